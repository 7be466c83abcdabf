package train

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/dablot-zero/dablot/train/progress"
)

// Progress returns how far the run is toward its stop condition, with the
// time left: "run 30%: 3 of 10 generations, about 42m left". The time a
// generation takes is measured over the generations this process has
// trained (before the first of them, over the run's own history if it
// did not start from a model); until it is known, a stop after so many
// generations shows no time left.
func (r *Run) Progress() string {
	perGen := 0.0
	if n := r.state.Generation - r.paceGen; n > 0 {
		perGen = (r.state.Hours - r.paceHours) / float64(n)
	} else if r.state.InitFrom == "" && r.state.Generation > 0 {
		perGen = r.state.Hours / float64(r.state.Generation)
	}
	rate := 0.0 // CPU hours per hour in this process
	if wall := r.hours() - r.paceHours; wall > 0 {
		rate = (r.cpuHours() - r.paceCPU) / wall
	}
	return runProgress(r.Config.Stop, r.state.Generation, r.hours(), perGen, time.Since(r.since).Hours(), r.cpuHours(), rate)
}

// startPace marks where this process begins to train, for Progress.
func (r *Run) startPace() {
	r.paceGen, r.paceHours, r.paceCPU = r.state.Generation, r.state.Hours, r.state.CPUHours
}

// runProgress describes progress toward stop after gens generations and
// hours of training in all, given the hours a generation takes (perGen; 0
// if not known) and the hours the generation under way has run (current),
// and after cpu CPU hours, spent at rate CPU hours an hour (0 if not known).
// With several bounds, the share and the time left are those of the bound
// reached first.
func runProgress(stop StopConfig, gens int, hours, perGen, current, cpu, rate float64) string {
	var parts []string
	share, left, known := 0.0, 0.0, false
	if g := stop.Generations; g > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d generations", gens, g))
		share = float64(gens) / float64(g)
		if perGen > 0 {
			share = (float64(gens) + min(current/perGen, 1)) / float64(g)
			left, known = float64(g-gens)*perGen-current, true
		}
	}
	if h := stop.Hours; h > 0 {
		unit := "hours"
		if h == 1 {
			unit = "hour"
		}
		parts = append(parts, fmt.Sprintf("%.2f of %g %s", hours, h, unit))
		if l := h - hours; !known || l < left {
			share, left, known = hours/h, l, true
		}
	}
	if c := stop.CPUHours; c > 0 {
		parts = append(parts, fmt.Sprintf("%.2f of %g CPU hours", cpu, c))
		if rate > 0 {
			if l := (c - cpu) / rate; !known || l < left {
				share, left, known = cpu/c, l, true
			}
		} else if !known {
			share = cpu / c
		}
	}
	text := fmt.Sprintf("run %.0f%%: %s", math.Floor(100*min(max(share, 0), 1)), strings.Join(parts, ", "))
	if known && left > 0 {
		text += ", about " + progress.ShortDuration(time.Duration(left*float64(time.Hour))) + " left"
	}
	return text
}

// bar starts a progress bar of n steps for the run, if it shows progress.
func (r *Run) bar(n int, label string) progress.Bar {
	if !r.opts.Progress || r.opts.Out == nil {
		return progress.Bar{}
	}
	return progress.New(r.opts.Out, n, label)
}
