// Package mcts holds the tree search (PUCT and Gumbel) and the baseline
// players that the arena measures models against. It depends only on game.
package mcts
