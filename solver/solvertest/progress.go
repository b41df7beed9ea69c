package solvertest

import (
	"context"

	"github.com/xflex/xflex/internal/progress"
)

// SampleProgress runs solve with a progress.Reporter on its context and
// samples the reporter while solve runs, as the job worker does (the
// reporter keeps only the latest report), plus once after it returns.
func SampleProgress(solve func(ctx context.Context)) []progress.Progress {
	r := &progress.Reporter{}
	ctx := progress.WithReporter(context.Background(), r)
	done := make(chan struct{})
	go func() {
		defer close(done)
		solve(ctx)
	}()
	var got []progress.Progress
	take := func() {
		if p, ok := r.Take(); ok {
			got = append(got, p)
		}
	}
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		take()
	}
	take()
	return got
}
