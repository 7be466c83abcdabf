package train

import (
	"time"

	"github.com/schollz/progressbar/v3"
)

// progress is a progress bar with an ETA, or nothing when the run's output
// is not a terminal (so logs stay readable).
type progress struct{ bar *progressbar.ProgressBar }

// bar starts a progress bar of n steps described by label.
func (r *Run) bar(n int, label string) progress {
	if !r.opts.Progress || r.opts.Out == nil || n <= 0 {
		return progress{}
	}
	return progress{progressbar.NewOptions(n,
		progressbar.OptionSetWriter(r.opts.Out),
		progressbar.OptionSetDescription(label),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(200*time.Millisecond))}
}

func (p progress) add(n int) {
	if p.bar != nil {
		p.bar.Add(n)
	}
}

func (p progress) finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
}
