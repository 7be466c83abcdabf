package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/cputime"
)

// benchCommands are the subcommands of "dablot bench".
var benchCommands = map[string]func(args []string, out io.Writer) error{
	"playouts": runBenchPlayouts,
	"net":      runBenchNetTo,
}

func init() {
	register(&command{"bench", "measure speed: bench playouts|net ...", runBench})
}

func runBench(args []string, out io.Writer) error {
	names := make([]string, 0, len(benchCommands))
	for n := range benchCommands {
		names = append(names, n)
	}
	slices.Sort(names)
	if len(args) == 0 {
		return usagef("which benchmark? one of: %s", strings.Join(names, ", "))
	}
	run, ok := benchCommands[args[0]]
	if !ok {
		return usagef("unknown benchmark %q (one of: %s)", args[0], strings.Join(names, ", "))
	}
	return run(args[1:], out)
}

func runBenchPlayouts(args []string, out io.Writer) error {
	fs := newFlags("bench playouts", "--variant V [--seconds S] [--threads T] [--seed N]", out)
	variant := fs.String("variant", "keyland", "variant name, YAML file, or name,key=value,...")
	seconds := fs.Float64("seconds", 5, "how long to run")
	threads := fs.Int("threads", 1, "playouts in parallel")
	seed := fs.Uint64("seed", 1, "random seed (thread i uses seed+i)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *threads < 1 || *threads > 256 {
		return usagef("--threads %d: want 1 to 256", *threads)
	}
	if *seconds <= 0 || *seconds > 3600 {
		return usagef("--seconds %g: want more than 0, at most 3600", *seconds)
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
