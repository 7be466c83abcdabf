// Package train runs the self-play pipeline: self-play games, sample shards,
// the trainer, candidate evaluation and ratings. It wires game, mcts and net.
package train
