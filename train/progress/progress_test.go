package progress

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestShortDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{-time.Second, "0s"},
		{0, "0s"},
		{1400 * time.Millisecond, "1s"},
		{59*time.Second + 600*time.Millisecond, "1m00s"},
		{4*time.Minute + 10*time.Second, "4m10s"},
		{9*time.Minute + 59*time.Second + 700*time.Millisecond, "10m"},
		{35*time.Minute + 20*time.Second, "35m"},
		{59*time.Minute + 40*time.Second, "1h00m"},
		{7*time.Hour + 35*time.Minute + 10*time.Second, "7h35m"},
		{26 * time.Hour, "26h00m"},
	} {
		if got := ShortDuration(tc.d); got != tc.want {
			t.Errorf("ShortDuration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

// TestBarText: a bar names its two times, and the time left is the rate
// so far applied to the steps left.
func TestBarText(t *testing.T) {
	for _, tc := range []struct {
		label   string
		done, n int
		elapsed time.Duration
		want    string
	}{
		{"gen 4 self-play", 0, 64, 2 * time.Second, "gen 4 self-play · 2s elapsed"},
		{"gen 4 self-play", 16, 64, 12 * time.Second, "gen 4 self-play · 12s elapsed, 36s left"},
		{"games", 29, 64, 58 * time.Second, "games · 58s elapsed, 1m10s left"},
		{"games", 64, 64, 3 * time.Minute, "games · 3m00s elapsed, 0s left"},
	} {
		if got := barText(tc.label, tc.done, tc.n, tc.elapsed); got != tc.want {
			t.Errorf("barText(%q, %d, %d, %v) = %q, want %q", tc.label, tc.done, tc.n, tc.elapsed, got, tc.want)
		}
	}
}

// tee is a Tee: the terminal term (nil: none) and the writer other.
type tee struct {
	term  *os.File
	other bytes.Buffer
}

func (t *tee) Write(p []byte) (int, error) { return t.other.Write(p) }
func (t *tee) Terminal() *os.File          { return t.term }

// TestBarOnTee: a bar is drawn on a terminal, or on the terminal of a Tee
// and nowhere else of it; on anything else, a Tee without a terminal
// included, it is not drawn.
func TestBarOnTee(t *testing.T) {
	file, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for _, out := range []io.Writer{file, &bytes.Buffer{}, &tee{}, &tee{term: file}} {
		if b := New(out, 10, "games"); b.p != nil {
			t.Errorf("a bar on %T (no terminal)", out)
		}
	}
	master, slave := openPty(t)
	out := &tee{term: slave}
	b := New(out, 10, "games")
	if b.p == nil {
		t.Fatal("no bar on a Tee with a terminal")
	}
	b.Add(5) // the first step is drawn, unthrottled
	defer b.Finish()
	if out.other.Len() > 0 {
		t.Errorf("the bar went to the Tee's other writer too: %q", out.other.String())
	}
	master.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 4096)
	n, err := master.Read(buf)
	if err != nil || !strings.Contains(string(buf[:n]), "(5/10) games ·") {
		t.Errorf("the terminal got %q (%v), want the bar", buf[:n], err)
	}
}
