// Package study holds the analysis tools that read games and positions
// apart from the training pipeline: blunder rates (JudgePlayer), forced
// king hunts (HuntKings), the lone-king endgame table (SolveLoneKing),
// game factors (AnalyseGames) and the opening book (MakeBook).
package study
