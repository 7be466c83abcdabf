// Package mcts holds the tree search (PUCT and Gumbel) and the baseline
// players that the arena measures models against. It depends only on game.
//
// # Evaluators
//
// The search consumes an Evaluator: a batch of Requests, each a position and
// its legal decisions, goes in; priors over those decisions and a value for
// the side to move come out. RolloutEvaluator (random playouts) and
// MaterialEvaluator (a hand-written heuristic) let the search run without a
// network; a network evaluator is added by other packages through the same
// interface (the model package's NetEvaluator, which encodes positions and
// indexes the policy in the frame of the side to move).
// Batcher is the one batching boundary: many goroutines call its Evaluate,
// it gathers their requests into one batch for the evaluator behind it.
//
// # Values and sides
//
// A turn can span several decisions by the same player (a capture chain), so
// the search never flips a value's sign by depth. Every node stores its side
// to move and its value sum from that side's point of view; a parent reads a
// child's value with the sign given by comparing the two sides.
//
// # Search
//
// Search is AlphaZero's PUCT (log-growth c_puct, first-play urgency,
// Dirichlet noise at the root scaled to the number of legal decisions, tree
// reuse, visit-count policy targets) or, with Config.Gumbel, the Gumbel root
// search of Danihelka et al. (ICLR 2022): Gumbel-top-k sampling, sequential
// halving and the completed-Q improved policy as the training target. Leaves
// are gathered with virtual loss and sent to the evaluator in batches.
//
// # Players
//
// Player is anything that picks a complete turn: RandomPlayer, GreedyPlayer,
// UCTPlayer (random rollouts), AlphaBetaPlayer and SearchPlayer (PUCT or
// Gumbel over an Evaluator). ParseSpec and NewFactory build players from
// strings such as "alphabeta:depth=4" for the arena.
//
// Package mcts/analysis builds on Search for a person or a front end: the
// best complete turns of a position with their win/draw/loss chances, the
// principal variation and what the solver proved.
package mcts
