// Package net is the policy-value network of dablot-zero for inference: the
// weights, a pure-Go float32 forward pass and the model file format. It
// does not import gorgonia: the trainer is package net/trainer.
//
// The board enters as a Topology (points and their neighbours in the eight
// directions N, NE, E, SE, S, SW, W, NW). One graph-convolution layer
// gathers, for every point, its own feature vector and those of its eight
// neighbours (zeros where there is none) into a 9*C row and multiplies it
// by a [9*C, Cout] weight matrix plus bias. The network is a stem layer,
// Config.Blocks residual blocks of two such layers, a policy head (per-point
// logits for 8 directions x {step, jump} plus one global "stop the chain"
// logit, in the layout of game.PolicySize) and a value head (mean pool, one
// hidden layer, win/draw/loss logits from the side to move).
//
// Matrix products go through Sgemm, a register-blocked AVX-512 kernel
// written with simd/archsimd in GOEXPERIMENT=simd builds on amd64, and
// gonum's blas32 otherwise.
//
// Evaluator is the allocation-free inference path; Softmax turns its policy
// logits into priors over the legal moves. Save and Load store weights in
// the safetensors layout with metadata and a checksum; FileKind, EncodeFile
// and DecodeFile give the same layout to the trainer's checkpoints.
package net
