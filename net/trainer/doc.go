// Package trainer trains the network of package net with gorgonia.
//
// Trainer runs Adam on gorgonia graphs whose graph convolutions (and their
// gradients) are single custom operations working on row chunks of a few
// positions on net.SetGemmThreads goroutines, with results independent of
// the thread count. Trainer.Weights gives the weights to save with
// net.Save; Trainer.SaveCheckpoint and LoadTrainer store the whole
// optimiser state, so that training can stop and resume exactly.
// UseInGorgonia makes gorgonia's own matrix products use net's kernel.
package trainer
