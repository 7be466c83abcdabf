package pool

import (
	"errors"
	"sync/atomic"
	"testing"
)

// TestRun: every item is done once, over at most the threads asked for
// (each with its own worker, released at the end); onDone counts the
// items done; an error stops the items not yet started and is returned,
// and a worker that cannot be made is an error before any item.
func TestRun(t *testing.T) {
	for _, tc := range []struct{ n, threads, workers int }{{0, 4, 0}, {1, 4, 1}, {10, 3, 3}, {5, 0, 1}} {
		done := make([]atomic.Int32, tc.n)
		var made, released, counted atomic.Int32
		err := Run(tc.n, tc.threads, func() (func(int) error, func(), error) {
			made.Add(1)
			return func(i int) error { done[i].Add(1); return nil }, func() { released.Add(1) }, nil
		}, func() { counted.Add(1) })
		if err != nil {
			t.Fatal(err)
		}
		for i := range done {
			if done[i].Load() != 1 {
				t.Errorf("n %d: item %d done %d times", tc.n, i, done[i].Load())
			}
		}
		if int(made.Load()) != tc.workers || released.Load() != made.Load() || int(counted.Load()) != tc.n {
			t.Errorf("n %d, threads %d: %d workers made, %d released, %d counted", tc.n, tc.threads, made.Load(), released.Load(), counted.Load())
		}
	}
	boom := errors.New("boom")
	var started atomic.Int32
	err := Run(100, 1, func() (func(int) error, func(), error) {
		return func(i int) error {
			started.Add(1)
			if i == 3 {
				return boom
			}
			return nil
		}, nil, nil
	}, nil)
	if !errors.Is(err, boom) || started.Load() != 4 {
		t.Errorf("error %v after %d items, want boom after 4", err, started.Load())
	}
	if err := Run(3, 2, func() (func(int) error, func(), error) { return nil, nil, boom }, nil); !errors.Is(err, boom) {
		t.Errorf("a worker that cannot be made: %v", err)
	}
}
