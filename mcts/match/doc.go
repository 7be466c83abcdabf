// Package match plays matches between two kinds of players and measures
// them: RunArena and PlayGame, the win/draw/loss counts with their score,
// Elo and confidence intervals (WDL), the sequential test that stops a
// match once it has decided (SPRT), the single Elo formatter (FormatElo),
// and the random reduced start positions of endgame matches
// (RandomEndgame). The Elo fit over many players is its package rating.
//
// It needs only the search and the rules: players come in as
// mcts.Factory values, made from spec strings such as
// "gumbel:model=FILE,sims=16" with the options of package net/model.
package match
