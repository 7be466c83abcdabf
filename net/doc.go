// Package net is the policy-value network of dablot-zero: a residual graph
// convolution over the board's points, trained with gorgonia and evaluated
// by a pure-Go float32 forward pass.
//
// The board enters as a Topology (points and their neighbours in the eight
// directions N, NE, E, SE, S, SW, W, NW). One graph-convolution layer
// gathers, for every point, its own feature vector and those of its eight
// neighbours (zeros where there is none) into a 9*C row and multiplies it
// by a [9*C, Cout] weight matrix plus bias. The network is a stem layer,
// Config.Blocks residual blocks of two such layers, a policy head (per-point
// logits for 8 directions x {step, jump} plus one global "stop the chain"
// logit, see PolicySize and PolicyIndex) and a value head (mean pool, one
// hidden layer, win/draw/loss logits from the side to move).
//
// Matrix products go through Sgemm, a register-blocked AVX-512 kernel
// written with simd/archsimd in GOEXPERIMENT=simd builds on amd64, and
// gonum's blas32 otherwise. BLAS adapts it for gorgonia.
//
// Trainer runs Adam on gorgonia graphs whose graph convolutions (and
// their gradients) are single custom operations working on row chunks of a
// few positions on SetGemmThreads goroutines, with results independent of
// the thread count. Evaluator is the allocation-free inference path. Save
// and Load store weights in the safetensors layout with metadata and a
// checksum; Trainer.SaveCheckpoint and LoadTrainer do the same for the
// whole optimiser state, so that training can stop and resume exactly.
package net
