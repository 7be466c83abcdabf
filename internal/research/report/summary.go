package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dablot-zero/dablot/internal/research/study"
	"github.com/dablot-zero/dablot/mcts/match"
	"github.com/dablot-zero/dablot/mcts/match/rating"
	"github.com/dablot-zero/dablot/train/runlog"
)

// summary returns the markdown summary of a run: totals, the last
// generation's numbers, the rating table and links to the plots.
func summary(run *Run, table rating.Table, anchor string, disconnected *rating.DisconnectedError, factors *selfPlay) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Training run `%s`\n\n", run.Dir)
	gens := run.Generations
	if len(gens) == 0 {
		b.WriteString("No generations recorded yet.\n\n")
	} else {
		last := gens[len(gens)-1]
		fmt.Fprintf(&b, "- generations: %d (%d to %d)\n", len(gens), gens[0].Generation, last.Generation)
		fmt.Fprintf(&b, "- training time: %.2f hours\n", last.Hours)
		fmt.Fprintf(&b, "- self-play games: %d\n", last.Games)
		fmt.Fprintf(&b, "- samples: %d\n", last.Samples)
		fmt.Fprintf(&b, "- best model: gen%d\n\n", last.Best)
		lastGeneration(&b, last)
	}

	b.WriteString("## Ratings\n\n")
	if len(table) == 0 {
		fmt.Fprintf(&b, "No rating matches in %s yet.\n\n", runlog.RatingsFile)
	} else {
		var games int
		var anchors []string
		for _, m := range run.Matches {
			games += m.Wins + m.Draws + m.Losses
		}
		for _, r := range table {
			if _, isGen := GenerationOf(r.Name); !isGen {
				anchors = append(anchors, "`"+r.Name+"`")
			}
		}
		slices.Sort(anchors)
		fmt.Fprintf(&b, "Logistic Elo, fitted by maximum likelihood to all %d matches (%d games) of %s, "+
			"a draw counting half a win; `%s` is fixed at 0 and ± is the 95 %% interval. "+
			"Each pair of players that met has one virtual draw added.\n\n", len(run.Matches), games, runlog.RatingsFile, anchor)
		if len(anchors) > 0 {
			fmt.Fprintf(&b, "Anchors: %s.\n\n", strings.Join(anchors, ", "))
		}
		if disconnected != nil {
			fmt.Fprintf(&b, "Unrated (no chain of games to `%s`): %s.\n\n", anchor, strings.Join(disconnected.Players, ", "))
		}
		b.WriteString(table.Markdown())
		b.WriteString("\n")
	}

	if factors != nil {
		factorsSection(&b, factors.GameFactors, factors.first, factors.last)
	}

	b.WriteString("## Plots\n\n")
	for _, p := range []struct{ file, what string }{
		{RatingPlot, "rating against training hours"},
		{LossPlot, "policy and value loss"},
		{LengthPlot, "game length"},
		{DrawsPlot, "draw rate and first-player score"},
	} {
		fmt.Fprintf(&b, "[![%s](%s)](%s)\n", p.what, p.file, p.file)
	}
	return b.String()
}

// lastGeneration writes a table of one generation's numbers.
func lastGeneration(b *strings.Builder, g runlog.Generation) {
	fmt.Fprintf(b, "## Last generation (%d)\n\n", g.Generation)
	b.WriteString("| | |\n|---|---:|\n")
	row := func(name, format string, args ...any) {
		fmt.Fprintf(b, "| %s | "+format+" |\n", append([]any{name}, args...)...)
	}
	if !g.Time.IsZero() {
		row("ended", "%s", g.Time.UTC().Format("2006-01-02 15:04 UTC"))
	}
	row("hours (cumulative)", "%.2f", g.Hours)
	row("self-play games", "%d", g.GenGames)
	row("samples", "%d", g.GenSamples)
	if g.GenFullSearches > 0 {
		row("full searches (samples without surprise weighting)", "%d", g.GenFullSearches)
		row("mean policy surprise", "%.3f nats", g.MeanSurprise)
	}
	row("game length, mean / median", "%.1f / %.1f turns", g.MeanLength, g.MedianLength)
	row("draw rate", "%.1f %%", 100*g.DrawRate)
	row("first-player score", "%.1f %%", 100*g.FirstPlayerScore)
	if len(g.Ends) > 0 {
		row("game ends", "%s", match.FormatEnds(g.Ends))
	}
	row("policy / value loss", "%.4f / %.4f", g.PolicyLoss, g.ValueLoss)
	for _, aux := range auxLosses {
		if v := aux.value(g); v > 0 {
			row(aux.name, "%.4f", v)
		}
	}
	row("train steps (cumulative)", "%d", g.TrainSteps)
	row("learning rate", "%g", g.LearningRate)
	if n := g.CandidateWins + g.CandidateDraws + g.CandidateLosses; n > 0 {
		verdict := "not promoted"
		if g.Promoted {
			verdict = "promoted"
		}
		row("candidate against best", "+%d =%d -%d (%.1f %%), %s",
			g.CandidateWins, g.CandidateDraws, g.CandidateLosses, 100*g.CandidateScore, verdict)
	}
	row("best model", "gen%d", g.Best)
	row("CPU utilisation", "%.0f %%", 100*g.Utilisation)
	total := g.SelfPlaySeconds + g.TrainSeconds + g.EvalSeconds + g.RatingSeconds
	row("time: self-play / train / eval / rating", "%s / %s / %s / %s",
		share(g.SelfPlaySeconds, total), share(g.TrainSeconds, total), share(g.EvalSeconds, total), share(g.RatingSeconds, total))
	b.WriteString("\n")
}

// share formats seconds with their share of total.
func share(s, total float64) string {
	if total <= 0 || math.IsNaN(s) {
		return fmt.Sprintf("%.0f s", s)
	}
	return fmt.Sprintf("%.0f s (%.0f %%)", s, 100*s/total)
}

// factorsSection writes what decided the self-play games of generations
// first to last (study.GameFactors).
func factorsSection(b *strings.Builder, f study.GameFactors, first, last int) {
	fmt.Fprintf(b, "## What decided the self-play games (generations %d to %d)\n\n", first, last)
	if f.Games == 0 {
		b.WriteString("No finished self-play games from the setup.\n\n")
		return
	}
	wdl := func(r match.WDL) string {
		return fmt.Sprintf("%d | %d / %d / %d | %.1f %%", r.Games(), r.W, r.D, r.L, 100*r.Score())
	}
	fmt.Fprintf(b, "%d finished games from the variant's setup (games from curriculum endgames left out).\n\n", f.Games)
	b.WriteString("| games | count | W / D / L | score |\n|---|---:|---|---:|\n")
	fmt.Fprintf(b, "| a king was taken: the side that lost its king first | %s |\n", wdl(f.KingFirst))
	fmt.Fprintf(b, "| no king was taken: South | %s |\n\n", wdl(f.NoKingTaken))
	fmt.Fprintf(b, "Positions with both kings on the board (every %dth turn from turn %d), by the lead in soldiers "+
		"and princes (1 and 3 each), and how the side ahead (South when level) fared:\n\n", factorEvery, factorFrom)
	fmt.Fprintf(b, "| lead | positions | W / D / L | score | mean lead %d turns later |\n|---|---:|---|---:|---:|\n", f.Horizon)
	for _, l := range f.Leads {
		name := fmt.Sprintf("%d to %d", l.Min, l.Max)
		switch {
		case l.Max < 0:
			name = fmt.Sprintf("%d or more", l.Min)
		case l.Min == l.Max:
			name = fmt.Sprint(l.Min)
		}
		if l.Positions == 0 {
			fmt.Fprintf(b, "| %s | 0 | | | |\n", name)
			continue
		}
		fmt.Fprintf(b, "| %s | %d | %d / %d / %d | %.1f %% | %.1f |\n", name, l.Positions, l.Result.W, l.Result.D, l.Result.L, 100*l.Result.Score(), l.Later)
	}
	fmt.Fprintf(b, "\nA lead %d turns later is %.2f times the lead now (least-squares slope): "+
		"a lead that lasts but does not raise the score is one the games do not reward.\n\n", f.Horizon, f.Persistence)
}
