// Package diagnose measures why self-play training stops teaching the
// dablot network (issue 70, Stage A item 4): how much its value head
// knows against exact endgame results and a deep alpha-beta search, by
// phase of the game (MeasurePositions); how often self-play's small
// searches improve on the policy prior, judged by the deep search (the
// same); how often the shipped player's guard overrules the network
// (MeasureGuard); and what share of the value target is hand-written
// material (TargetTerms, SummariseTargets). docs/diagnosis.md holds the
// measurements and the commands ("dablot analyse diagnose") that made
// them.
//
// Everything here is built on the public API of the search (mcts), the
// tables (game/endgame), the model (net/model) and self-play (train); it
// changes none of them.
package diagnose
