package jobs

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"golang.org/x/sync/semaphore"

	"github.com/xflex/xflex/internal/progress"
	"github.com/xflex/xflex/solver"
)

// phaseMemory is the progress phase of a running job waiting for memory.
const phaseMemory = "waiting for memory"

// errMemoryWait is the worker's MemoryGate's answer when the solve's
// estimate is not free at once: the solve ends before it starts, and the
// worker waits for the memory and runs it again (jobMemory).
var errMemoryWait = errors.New("waiting for job memory")

// jobMemory is a replica's memory budget for its job solves
// (Config.MemoryBytes): each solve reserves its problem's estimate
// (solver.Typed.Memory) through the MemoryGate on its context before it
// starts, so the workers together stay within the budget whatever their
// number. An estimate above the whole budget reserves the whole budget:
// that solve runs alone, as it would through the HTTP API's admission.
//
// A job never fails for lack of memory: it waits, running, with progress
// phase "waiting for memory", until the memory frees or the job is
// cancelled. The wait is outside the solve: memory that is not free at
// once ends the solve before it starts (errMemoryWait), the worker waits
// holding nothing, and then runs the solve again with the memory held. A
// wait inside the solve would spend the job's budget_ms (the solve's
// deadline runs from before the estimate is known) and could outlast it;
// the price is one more decode and build of the request, which is cheap
// next to the solve. The semaphore grants in arrival order, so a large
// estimate is not starved by smaller ones behind it.
type jobMemory struct {
	sem      *semaphore.Weighted
	budget   int64
	reserved atomic.Int64 // bytes held by solves now
	waiting  atomic.Int64 // solves waiting for memory now
}

func newJobMemory(budget int64) *jobMemory {
	return &jobMemory{sem: semaphore.NewWeighted(budget), budget: budget}
}

// memoryHold is one job's reservation: what its solve holds, and what it
// asked for when that was not free.
type memoryHold struct {
	m    *jobMemory
	held int64
	want int64
}

// gate is the job's solver.MemoryGate: it takes the estimate, at most the
// whole budget, when it is free at once, and otherwise records it and
// returns errMemoryWait (wait then takes it).
func (h *memoryHold) gate(_ context.Context, total int64) error {
	want := min(max(total, 0), h.m.budget)
	if want <= h.held {
		return nil
	}
	if h.m.sem.TryAcquire(want - h.held) {
		h.m.reserved.Add(want - h.held)
		h.held = want
		return nil
	}
	h.want = want
	return errMemoryWait
}

// wait gives back what the job holds and waits, reporting the wait as the
// job's progress, for the estimate the gate could not have; it returns
// ctx's error at once when the job is cancelled or the worker stops.
func (h *memoryHold) wait(ctx context.Context, rep *progress.Reporter) error {
	h.release()
	rep.Set(progress.Progress{Phase: phaseMemory, Message: fmt.Sprintf(
		"needs an estimated %d MB of this replica's %d MB job memory budget; waiting for other jobs to free it",
		mb(h.want), mb(h.m.budget))})
	h.m.waiting.Add(1)
	defer h.m.waiting.Add(-1)
	if err := h.m.sem.Acquire(ctx, h.want); err != nil {
		return err
	}
	h.m.reserved.Add(h.want)
	h.held = h.want
	rep.Set(progress.Progress{Phase: "solving"})
	return nil
}

// release returns what the job holds.
func (h *memoryHold) release() {
	if h.held > 0 {
		h.m.sem.Release(h.held)
		h.m.reserved.Add(-h.held)
		h.held = 0
	}
}

// mb is n bytes in MB, rounded up.
func mb(n int64) int64 { return (n + 1<<20 - 1) >> 20 }

// runWithMemory runs the job's solve with a MemoryGate on its context,
// waiting for memory and running it again for as long as its estimate is
// not free; the memory is returned when it ends, however it ends (the
// runner turns a solver's panic into an error).
func (s *Service) runWithMemory(ctx context.Context, problem string, input []byte, rep *progress.Reporter) (*solver.Response, error) {
	h := &memoryHold{m: s.memory}
	defer h.release()
	ctx = solver.WithMemoryGate(ctx, h.gate)
	for {
		resp, err := s.runner.Run(ctx, problem, input)
		if !errors.Is(err, errMemoryWait) {
			return resp, err
		}
		if err := h.wait(ctx, rep); err != nil {
			return nil, &solver.Error{Kind: solver.KindCanceled, Detail: "job stopped while waiting for memory", Err: err}
		}
	}
}
