// Package progress draws the progress bars of long runs on a terminal and
// writes the times they show.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Bar is a progress bar with a count and labelled times, drawn only
// when its output is a terminal (so that logs stay readable); otherwise its
// methods do nothing. Every long run of the program shows one:
//
//	45% |██████████          | (29/64) gen 4 self-play · 12s elapsed, 15s left
type Bar struct{ p *progress }

// progress is the state behind a drawn Bar. Add may be called from
// several goroutines: mu orders every use of the bar.
type progress struct {
	bar   *progressbar.ProgressBar
	mu    sync.Mutex
	label string
	n     int
	done  int
	start time.Time
}

// Tee is an output that goes to a terminal and elsewhere (a log file,
// say): Terminal returns that terminal, nil if there is none (any more).
// A bar on a Tee is drawn on its terminal alone.
type Tee interface {
	io.Writer
	Terminal() *os.File
}

// New starts a bar of n steps described by label on out: a terminal, or a
// Tee with one.
func New(out io.Writer, n int, label string) Bar {
	f, _ := out.(*os.File)
	if t, ok := out.(Tee); ok {
		f = t.Terminal()
	}
	if f == nil || n <= 0 || !term.IsTerminal(int(f.Fd())) {
		return Bar{}
	}
	p := &progress{label: label, n: n, start: time.Now()}
	// progressbar's own times read "[12s:15s]" with no names: the bar
	// shows its label and the times named instead, after the count.
	p.bar = progressbar.NewOptions(n,
		progressbar.OptionSetWriter(f),
		progressbar.OptionSetDescription(barText(label, 0, n, 0)),
		progressbar.OptionShowDescriptionAtLineEnd(),
		progressbar.OptionSetPredictTime(false),
		progressbar.OptionSetElapsedTime(false),
		progressbar.OptionShowCount(),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(200*time.Millisecond))
	return Bar{p}
}

// Add advances the bar by n steps.
func (p Bar) Add(n int) {
	if p.p == nil {
		return
	}
	p.p.mu.Lock()
	defer p.p.mu.Unlock()
	p.p.done += n
	// Set the text without drawing it (Describe would draw the old count),
	// then step: the bar draws count and text together.
	progressbar.OptionSetDescription(barText(p.p.label, p.p.done, p.p.n, time.Since(p.p.start)))(p.p.bar)
	p.p.bar.Add(n)
}

// Describe changes the bar's label, shown from the next step on.
func (p Bar) Describe(label string) {
	if p.p == nil {
		return
	}
	p.p.mu.Lock()
	defer p.p.mu.Unlock()
	p.p.label = label
}

// Finish completes the bar.
func (p Bar) Finish() {
	if p.p == nil {
		return
	}
	p.p.mu.Lock()
	defer p.p.mu.Unlock()
	p.p.bar.Finish()
}

// barText is what a bar shows after its count: its label, the time since
// it started and, once a step is done, the time left at the rate so far.
func barText(label string, done, n int, elapsed time.Duration) string {
	text := label + " · " + ShortDuration(elapsed) + " elapsed"
	if done > 0 && done <= n {
		left := time.Duration(float64(elapsed) * float64(n-done) / float64(done))
		text += ", " + ShortDuration(left) + " left"
	}
	return text
}

// ShortDuration writes d as a person reads a time to wait: 45s, 4m10s,
// 35m, 7h35m.
func ShortDuration(d time.Duration) string {
	d = max(d, 0).Round(time.Second)
	if d >= 10*time.Minute {
		d = d.Round(time.Minute)
	}
	switch {
	case d >= time.Hour:
		return fmt.Sprintf("%dh%02dm", d/time.Hour, d%time.Hour/time.Minute)
	case d >= 10*time.Minute:
		return fmt.Sprintf("%dm", d/time.Minute)
	case d >= time.Minute:
		return fmt.Sprintf("%dm%02ds", d/time.Minute, d%time.Minute/time.Second)
	}
	return fmt.Sprintf("%ds", d/time.Second)
}
