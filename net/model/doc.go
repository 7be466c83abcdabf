// Package model is a trained network together with the variant it plays:
// the model file (Model, LoadModel, DecodeModel, Save and the metadata
// keys), the network as an evaluator for the search (NetEvaluator), and the
// options under which player specs such as "gumbel:model=FILE,sims=16" load
// model files (SpecOptions, OwnSpecOptions).
//
// It is what a program needs to load a model and play: it imports the
// inference side of net, mcts and game, never gorgonia (net/trainer) or the
// training pipeline (train).
package model
