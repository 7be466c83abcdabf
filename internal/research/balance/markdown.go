package balance

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dablot-zero/dablot/game"
)

// Unreliable is the flag the report puts on a variant whose model is
// weaker than the anchor (or was not checked).
const Unreliable = "balance not yet reliable"

// MainColumns are the columns of the first table of Markdown.
var MainColumns = []string{
	"variant", "first", "sims", "games", "distinct", "first W/D/L", "first-player score (95 % CI)",
	"draw rate", "mean length", "median length", "start value (net)", "start W/D/L (net)",
	"start value (search)", "vs anchor", "reliability",
}

// Markdown returns the study of every variant as GitHub markdown: a table
// at the main strength, the first player's score at each strength of the
// ladder, how the games ended, and notes on the method and on the
// variants whose balance is not yet reliable.
func Markdown(results []*VariantResult) string {
	var b strings.Builder
	if len(results) == 0 {
		b.WriteString("No variants studied.\n")
		return b.String()
	}
	b.WriteString("## Balance at the main strength\n\n")
	row(&b, MainColumns...)
	row(&b, slices.Repeat([]string{"---"}, len(MainColumns))...)
	for _, v := range results {
		m := v.Main()
		if m == nil {
			continue
		}
		row(&b, v.Variant, v.FirstName, fmt.Sprint(m.Sims), fmt.Sprint(m.Games), fmt.Sprint(m.Distinct),
			fmt.Sprintf("%d/%d/%d", m.First.W, m.First.D, m.First.L),
			scoreCI(m.FirstScore, m.CILow, m.CIHigh),
			pct(m.DrawRate), fmt.Sprintf("%.1f", m.MeanLen), fmt.Sprintf("%.1f", m.MedianLen),
			signed(v.StartValue),
			fmt.Sprintf("%.0f/%.0f/%.0f %%", 100*v.StartWDL[0], 100*v.StartWDL[1], 100*v.StartWDL[2]),
			signed(v.StartSearch),
			anchorCell(v), reliabilityCell(v))
	}

	b.WriteString("\n## First-player score by strength\n\n")
	var ladder []int
	for _, v := range results {
		for _, s := range v.PerSims {
			ladder = append(ladder, s.Sims)
		}
	}
	slices.Sort(ladder)
	ladder = slices.Compact(ladder)
	head := []string{"variant"}
	for _, n := range ladder {
		head = append(head, fmt.Sprintf("%d sims", n))
	}
	row(&b, head...)
	row(&b, slices.Repeat([]string{"---"}, len(head))...)
	for _, v := range results {
		cells := []string{v.Variant}
		for _, n := range ladder {
			cell := "—"
			for _, s := range v.PerSims {
				if s.Sims == n {
					cell = fmt.Sprintf("%s, draws %s, %.0f turns", scoreCI(s.FirstScore, s.CILow, s.CIHigh), pct(s.DrawRate), s.MeanLen)
				}
			}
			cells = append(cells, cell)
		}
		row(&b, cells...)
	}

	b.WriteString("\n## How the games end (main strength, share of games)\n\n")
	var keys []string
	for r := game.NotOver + 1; r <= game.Adjudicated; r++ {
		for _, v := range results {
			if m := v.Main(); m != nil && m.Ends[r.Key()] > 0 {
				keys = append(keys, r.Key())
				break
			}
		}
	}
	head = append([]string{"variant"}, keys...)
	row(&b, head...)
	row(&b, slices.Repeat([]string{"---"}, len(head))...)
	for _, v := range results {
		m := v.Main()
		if m == nil {
			continue
		}
		cells := []string{v.Variant}
		for _, k := range keys {
			cells = append(cells, pct(float64(m.Ends[k])/float64(max(m.Games, 1))))
		}
		row(&b, cells...)
	}

	b.WriteString("\n## Notes\n\n")
	for _, v := range results {
		if !v.Reliable {
			fmt.Fprintf(&b, "- **%s: %s**: %s.\n", v.Variant, Unreliable, v.Reason)
		}
		if n := len(v.PerSims); n > 0 && v.DistinctOpenings > 0 && v.DistinctOpenings < v.PerSims[0].Games {
			fmt.Fprintf(&b, "- %s: only %d distinct openings of %d: the policy at temperature %g, redrawn up to %d times at up to %g times that, gave no more in %d turns or up to %d more.\n",
				v.Variant, v.DistinctOpenings, v.PerSims[0].Games, v.OpeningTemperature, maxOpeningDraws-1, redrawTemperature(maxOpeningDraws-1), v.OpeningTurns, maxExtraOpeningTurns)
		}
		if v.LongerOpenings > 0 {
			fmt.Fprintf(&b, "- %s: %d of %d openings are longer than %d turns (up to %d): at that length the policy's draws repeated earlier openings.\n",
				v.Variant, v.LongerOpenings, v.DistinctOpenings, v.OpeningTurns, v.LongestOpening)
		}
		for _, s := range v.PerSims {
			if s.Distinct < s.Games {
				fmt.Fprintf(&b, "- %s at %d sims: only %d distinct games of %d; the interval is too narrow (more opening turns or a higher temperature would vary them).\n",
					v.Variant, s.Sims, s.Distinct, s.Games)
			}
		}
		if v.Rating != nil {
			fmt.Fprintf(&b, "- %s: the model file's rating table puts %s at %+.0f ± %.0f and %s at %+.0f.\n",
				v.Variant, v.Rating.Player, v.Rating.Elo, v.Rating.Err95, v.Rating.Anchor, v.Rating.AnchorElo)
		}
	}
	b.WriteString(methodNote(results[0]))
	return b.String()
}

// methodNote describes how the numbers were made.
func methodNote(v *VariantResult) string {
	return fmt.Sprintf(`- Method: the model plays itself (%s), both sides at the same strength; each game opens with %d complete turns drawn decision by decision from the network's policy at temperature %g, its own opening (seeded from seed %d and the game's number, and drawn again, at a higher temperature each time, while its position repeats an earlier game's), and every strength replays the same openings. The first player is the side that moves first in the variant, not necessarily South. A draw counts half a point.
- The 95 %% interval of the first-player score is the normal approximation with the trinomial (win/draw/loss) variance of one game's score, s ± 1.96·√(var/n); when every game had the same result, Wilson's interval. Its half-width is at most 1.96·0.5/√n: about 10 points with 100 games, 3 with 1000.
- Length is in complete turns, the opening included. The start value is the network's (and the search's) expected result of the start position for the first player, in [-1, 1].
- A variant is flagged "%s" when its model scores below 50 %% against the anchor at the main strength (colours alternating, from the same openings), or when its strength was not checked.
`, v.Search, v.OpeningTurns, v.OpeningTemperature, v.Seed, Unreliable)
}

func anchorCell(v *VariantResult) string {
	if v.AnchorWDL.Games() == 0 {
		if v.Rating != nil {
			return fmt.Sprintf("stored Elo %+.0f vs %+.0f", v.Rating.Elo, v.Rating.AnchorElo)
		}
		return "not played"
	}
	w := v.AnchorWDL
	return fmt.Sprintf("%s: %d/%d/%d, %s", v.Anchor, w.W, w.D, w.L, scoreCI(v.AnchorScore, v.AnchorCILow, v.AnchorCIHigh))
}

func reliabilityCell(v *VariantResult) string {
	if v.Reliable {
		return "reliable"
	}
	return fmt.Sprintf("**%s**: %s", Unreliable, v.Reason)
}

// scoreCI formats a score and its interval in percent.
func scoreCI(s, lo, hi float64) string {
	if math.IsNaN(s) {
		return "—"
	}
	return fmt.Sprintf("%.1f %% [%.1f, %.1f]", 100*s, 100*lo, 100*hi)
}

// signed formats a value in [-1, 1] with its sign, and no "-0.000".
func signed(x float64) string {
	if math.Abs(x) < 0.0005 {
		x = 0
	}
	return fmt.Sprintf("%+.3f", x)
}

func pct(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return fmt.Sprintf("%.0f %%", 100*x)
}

// row writes one table row, escaping the cells' pipes.
func row(b *strings.Builder, cells ...string) {
	b.WriteString("|")
	for _, c := range cells {
		b.WriteString(" ")
		b.WriteString(strings.ReplaceAll(c, "|", `\|`))
		b.WriteString(" |")
	}
	b.WriteString("\n")
}
