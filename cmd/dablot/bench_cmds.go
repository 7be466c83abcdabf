package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/cputime"
)

// cmdBenchPlayouts measures the rules: random playouts.
var cmdBenchPlayouts = &command{
	name:  "playouts",
	usage: "[--variant V] [--seconds S] [--threads T] [--seed N]",
	short: "random playouts per second: the speed of the rules",
	long: `Plays random games from the variant's start for --seconds on --threads goroutines
and prints the playouts and decisions per second (and per CPU-second), the mean game
length, the outcomes and how the games ended.`,
	run: runBenchPlayouts,
}

func runBenchPlayouts(args []string, out io.Writer) error {
	fs := newFlags("analyse bench playouts", out)
	variant := fs.String("variant", "keyland", "variant name, YAML file, or name,key=value,...")
	seconds := rangeFlag[float64](fs, "seconds", 5, 0.01, 3600, "how long to run")
	threads := threadsFlag(fs, 1, "playouts in parallel")
	seed := fs.Uint64("seed", 1, "random seed (thread i uses seed+i)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	r, start, err := position(*variant, "")
	if err != nil {
		return err
	}
	type tally struct {
		games, decisions, plies int64
		outcomes                [4]int64
		reasons                 map[game.Reason]int64
	}
	tallies := make([]tally, *threads)
	deadline := time.Now().Add(time.Duration(*seconds * float64(time.Second)))
	began, cpuBegan := time.Now(), cputime.Process()
	var wg sync.WaitGroup
	for i := range *threads {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(*seed+uint64(i), 0x706c61796f757473))
			t := &tallies[i]
			t.reasons = map[game.Reason]int64{}
			for time.Now().Before(deadline) {
				for range 16 {
					p := start
					st, n := p.RandomPlayout(rng)
					t.games++
					t.decisions += int64(n)
					t.plies += int64(p.Ply())
					t.outcomes[st.Outcome]++
					t.reasons[st.Reason]++
				}
			}
		})
	}
	wg.Wait()
	el := time.Since(began).Seconds()
	cpu := (cputime.Process() - cpuBegan).Seconds()
	var sum tally
	sum.reasons = map[game.Reason]int64{}
	for _, t := range tallies {
		sum.games += t.games
		sum.decisions += t.decisions
		sum.plies += t.plies
		for o, n := range t.outcomes {
			sum.outcomes[o] += n
		}
		for k, n := range t.reasons {
			sum.reasons[k] += n
		}
	}
	g := float64(sum.games)
	fmt.Fprintf(out, "variant %s, %d thread(s), %.1f s\n", r.Name, *threads, el)
	fmt.Fprintf(out, "playouts/s   %.0f\n", g/el)
	fmt.Fprintf(out, "decisions/s  %.0f\n", float64(sum.decisions)/el)
	if cpu > 0 {
		fmt.Fprintf(out, "decisions per CPU-second  %.0f  (%.1f CPU-s used in %.1f s; the difference is time the machine gave to others)\n",
			float64(sum.decisions)/cpu, cpu, el)
	}
	fmt.Fprintf(out, "games %d, mean length %.1f turns (%.1f decisions)\n", sum.games, float64(sum.plies)/g, float64(sum.decisions)/g)
	fmt.Fprintf(out, "south %.1f%%, north %.1f%%, draw %.1f%%\n",
		100*float64(sum.outcomes[game.SouthWins])/g, 100*float64(sum.outcomes[game.NorthWins])/g, 100*float64(sum.outcomes[game.Draw])/g)
	var parts []string
	for reason := game.NoPieces; reason <= game.Adjudicated; reason++ {
		if n := sum.reasons[reason]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %.1f%%", reason, 100*float64(n)/g))
		}
	}
	fmt.Fprintf(out, "ended by: %s\n", strings.Join(parts, ", "))
	return nil
}
