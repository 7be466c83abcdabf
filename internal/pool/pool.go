// Package pool runs numbered items over a fixed set of workers, each with
// state of its own (a search, an evaluator), stopping at the first error.
package pool

import "sync"

// Run calls work(i) for each i in [0, n) over at most threads goroutines.
// Each goroutine's work function comes from newWorker, with a function that
// releases what it holds (nil for none), called when Run returns. After the
// first error no item is started and Run returns that error. onDone, if not
// nil, is called after each item done without error, one call at a time.
func Run(n, threads int, newWorker func() (work func(int) error, release func(), err error), onDone func()) error {
	if n <= 0 {
		return nil
	}
	threads = max(1, min(threads, n))
	works := make([]func(int) error, 0, threads)
	for range threads {
		work, release, err := newWorker()
		if release != nil {
			defer release()
		}
		if err != nil {
			return err
		}
		works = append(works, work)
	}
	var (
		mu    sync.Mutex
		next  int
		first error
		wg    sync.WaitGroup
	)
	for _, work := range works {
		wg.Go(func() {
			for {
				mu.Lock()
				i := next
				next++
				stop := i >= n || first != nil
				mu.Unlock()
				if stop {
					return
				}
				err := work(i)
				mu.Lock()
				if err != nil && first == nil {
					first = err
				}
				if err == nil && onDone != nil {
					onDone()
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return first
}
