package train

import (
	"testing"
	"time"
)

// TestRunProgress: the share of the stop condition done and the time left
// for the whole run, by generations, by hours, and by whichever of the two
// comes first.
func TestRunProgress(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		stop                   StopConfig
		gens                   int
		hours, perGen, current float64
		cpu, rate              float64
		want                   string
	}{
		{"generations", StopConfig{Generations: 10}, 3, 0.3, 0.1, 0, 0, 0, "run 30%: 3 of 10 generations, about 42m left"},
		{"generations, pace unknown", StopConfig{Generations: 10}, 0, 0.01, 0, 0.01, 0, 0, "run 0%: 0 of 10 generations"},
		// Half-way through generation 2 of 4 at 6 minutes a generation.
		{"within a generation", StopConfig{Generations: 4}, 1, 0.15, 0.1, 0.05, 0, 0, "run 37%: 1 of 4 generations, about 15m left"},
		{"generations done", StopConfig{Generations: 3}, 3, 0.2, 0.07, 0, 0, 0, "run 100%: 3 of 3 generations"},
		{"hours", StopConfig{Hours: 8}, 12, 0.5, 0, 0.01, 0, 0, "run 6%: 0.50 of 8 hours, about 7h30m left"},
		{"one hour", StopConfig{Hours: 1}, 12, 0.25, 0.02, 0, 0, 0, "run 25%: 0.25 of 1 hour, about 45m left"},
		{"hours passed", StopConfig{Hours: 1}, 60, 1.02, 0.02, 0.01, 0, 0, "run 100%: 1.02 of 1 hour"},
		// 90 generations left at 36 s each is 54 minutes; the hour ends in 30.
		{"hours first", StopConfig{Generations: 100, Hours: 1}, 10, 0.5, 0.01, 0, 0, 0, "run 50%: 10 of 100 generations, 0.50 of 1 hour, about 30m left"},
		// 50 generations left at 36 s each is 30 minutes; 9.5 hours are left.
		{"generations first", StopConfig{Generations: 100, Hours: 10}, 50, 0.5, 0.01, 0, 0, 0, "run 50%: 50 of 100 generations, 0.50 of 10 hours, about 30m left"},
		// The pace is not known yet: the hours give the share and the time.
		{"both, pace unknown", StopConfig{Generations: 100, Hours: 2}, 0, 0.5, 0, 0.5, 0, 0, "run 25%: 0 of 100 generations, 0.50 of 2 hours, about 1h30m left"},
		// CPU hours: 0.3 of 0.75 done at 0.6 CPU hours an hour leaves 45 minutes.
		{"cpu hours", StopConfig{CPUHours: 0.75}, 5, 0.5, 0.1, 0, 0.3, 0.6, "run 40%: 0.30 of 0.75 CPU hours, about 45m left"},
		{"cpu hours, rate unknown", StopConfig{CPUHours: 1}, 0, 0.01, 0, 0.01, 0.25, 0, "run 25%: 0.25 of 1 CPU hours"},
		// The wall-clock hour ends in 30 minutes, the CPU hours in 50.
		{"hours before cpu hours", StopConfig{Hours: 1, CPUHours: 1}, 5, 0.5, 0.1, 0, 0.5, 0.6, "run 50%: 0.50 of 1 hour, 0.50 of 1 CPU hours, about 30m left"},
		{"cpu hours before hours", StopConfig{Hours: 2, CPUHours: 1}, 5, 0.5, 0.1, 0, 0.8, 1.2, "run 80%: 0.50 of 2 hours, 0.80 of 1 CPU hours, about 10m left"},
	} {
		if got := runProgress(tc.stop, tc.gens, tc.hours, tc.perGen, tc.current, tc.cpu, tc.rate); got != tc.want {
			t.Errorf("%s: runProgress = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestRunPace: the time a generation takes comes from the generations this
// process trained, else from the run's own history, and not from the
// hours of a model the run started from.
func TestRunPace(t *testing.T) {
	cfg := &Config{Stop: StopConfig{Generations: 10}}
	for _, tc := range []struct {
		name  string
		state runState
		pace  [2]float64 // generation and hours when this process began
		want  string
	}{
		// Generations 3 to 5 in 0.2 hours here: 5 more take 0.5 hours.
		{"this process", runState{Generation: 5, Hours: 0.5}, [2]float64{3, 0.3}, "run 50%: 5 of 10 generations, about 30m left"},
		// Nothing trained here yet: 4 generations took 0.4 hours.
		{"the run's history", runState{Generation: 4, Hours: 0.4}, [2]float64{4, 0.4}, "run 40%: 4 of 10 generations, about 36m left"},
		// The hours include those of the model the run started from.
		{"started from a model", runState{Generation: 4, Hours: 2.4, InitFrom: "m.dbm"}, [2]float64{4, 2.4}, "run 40%: 4 of 10 generations"},
	} {
		r := &Run{Config: cfg, state: tc.state, since: time.Now(), paceGen: int(tc.pace[0]), paceHours: tc.pace[1]}
		if got := r.Progress(); got != tc.want {
			t.Errorf("%s: Progress = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestResumeCommand: the hint names the program as it was invoked, quoted
// for a shell where it must be.
func TestResumeCommand(t *testing.T) {
	for _, tc := range []struct{ program, dir, want string }{
		{"bin/dablot", "runs/dablot-overnight", "bin/dablot train --resume runs/dablot-overnight"},
		{"", "runs/x", "dablot train --resume runs/x"},
		{"/opt/my tools/dablot", "runs/it's", `'/opt/my tools/dablot' train --resume 'runs/it'\''s'`},
	} {
		if got := ResumeCommand(tc.program, tc.dir); got != tc.want {
			t.Errorf("ResumeCommand(%q, %q) = %q, want %q", tc.program, tc.dir, got, tc.want)
		}
	}
}
