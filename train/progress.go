package train

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Progress is a progress bar with a count and an ETA, drawn only when its
// output is a terminal (so that logs stay readable); otherwise its methods
// do nothing. Every long run of the program shows one.
type Progress struct{ bar *progressbar.ProgressBar }

// NewProgress starts a bar of n steps described by label on out.
func NewProgress(out io.Writer, n int, label string) Progress {
	f, ok := out.(*os.File)
	if !ok || n <= 0 || !term.IsTerminal(int(f.Fd())) {
		return Progress{}
	}
	return Progress{progressbar.NewOptions(n,
		progressbar.OptionSetWriter(out),
		progressbar.OptionSetDescription(label),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(200*time.Millisecond))}
}

// Add advances the bar by n steps.
func (p Progress) Add(n int) {
	if p.bar != nil {
		p.bar.Add(n)
	}
}

// Describe changes the bar's label.
func (p Progress) Describe(label string) {
	if p.bar != nil {
		p.bar.Describe(label)
	}
}

// Finish completes the bar.
func (p Progress) Finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
}

// bar starts a progress bar of n steps for the run, if it shows progress.
func (r *Run) bar(n int, label string) Progress {
	if !r.opts.Progress || r.opts.Out == nil {
		return Progress{}
	}
	return NewProgress(r.opts.Out, n, label)
}
