package jobs

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/jobs/jobtest"
	"github.com/xflex/xflex/solver"
)

// memName is the memory test problem: the sleep problem's request, whose
// value is its memory estimate in bytes.
const memName = "test/mem"

// memBudget is the job memory budget of these tests, in bytes.
const memBudget = 1000

// memProblem counts the solves running at once and the most there were.
type memProblem struct {
	mu       sync.Mutex
	now, max int
}

// runner serves memName: a solve estimated at its request's value sleeps
// its ms (until cancelled), or panics when fail is set.
func (p *memProblem) runner(t *testing.T) *solver.Runner {
	t.Helper()
	typed := solver.Typed[jobtest.Request, struct{}]{
		Name: memName, RequestSchema: "test-sleep.request.json", ResponseSchema: "test-sleep.response.json",
		Build:  func(*jobtest.Request) (struct{}, error) { return struct{}{}, nil },
		Memory: func(b solver.Built[jobtest.Request, struct{}]) int64 { return int64(b.Req.Value) },
		Solve: func(ctx context.Context, b solver.Built[jobtest.Request, struct{}], _ solver.Options) (any, solver.Meta, error) {
			p.enter()
			defer p.leave()
			if b.Req.Fail {
				panic("asked to fail")
			}
			select {
			case <-ctx.Done():
			case <-time.After(time.Duration(b.Req.MS) * time.Millisecond):
			}
			return map[string]any{}, solver.Meta{Status: solver.StatusFeasible, Solver: memName}, nil
		},
	}
	set, err := jobtest.Schemas()
	if err != nil {
		t.Fatal(err)
	}
	r, err := solver.NewRunnerWithSchemas([]solver.Problem{typed.Problem()}, time.Minute, set)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (p *memProblem) enter() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.now++
	p.max = max(p.max, p.now)
}

func (p *memProblem) leave() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.now--
}

func (p *memProblem) most() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.max
}

// memJob is a job of memName estimated at bytes that sleeps ms.
func memJob(ms int, bytes float64, extra ...string) map[string]any {
	return map[string]any{"problem": memName, "input": sleepInput(ms, bytes, extra...)}
}

// newMemHarness is a harness of workers workers over a memBudget budget.
func newMemHarness(t *testing.T, store string, workers int) (*harness, *memProblem) {
	p := &memProblem{}
	h := newHarnessWith(t, store, Config{Workers: workers, MemoryBytes: memBudget}, p.runner(t), httpapi.Config{})
	return h, p
}

// waitMemory waits until job id is running and waiting for memory.
func (h *harness) waitMemory(id string) Job {
	h.t.Helper()
	return h.waitFor(id, "waiting for memory", func(j Job) bool { return j.State == StateRunning && j.Progress.Phase == phaseMemory })
}

// checkIdle fails unless the job memory is all free and nothing waits.
func checkIdle(t *testing.T, h *harness) {
	t.Helper()
	if r, w := h.svc.memory.reserved.Load(), h.svc.memory.waiting.Load(); r != 0 || w != 0 {
		t.Errorf("after the jobs: %d bytes reserved, %d waiting, want 0 and 0", r, w)
	}
}

// TestJobMemoryBudget: two jobs whose estimates each exceed half the
// budget never solve at once (the second waits, running, with its wait
// in its progress, and solves once the first ends); a job that fits
// beside the first runs at once; an estimate above the whole budget runs
// alone instead of waiting forever.
func TestJobMemoryBudget(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, store string) {
		h, p := newMemHarness(t, store, 3)
		first := h.submit(memJob(60000, 600))
		h.waitFor(first, "solving", func(j Job) bool { return j.State == StateRunning && p.most() == 1 })
		beside := h.submit(memJob(0, 300))
		if j := h.waitTerminal(beside); j.State != StateSucceeded {
			t.Fatalf("job fitting beside the first: %+v", j)
		}
		second := h.submit(memJob(0, 600))
		j := h.waitMemory(second)
		if !strings.Contains(j.Progress.Message, "1 MB of this replica's 1 MB job memory budget") {
			t.Errorf("waiting job's message %q", j.Progress.Message)
		}
		if j.Progress.BudgetUsed != nil {
			t.Errorf("waiting job's budget_used %v, want none (its budget starts with its solve)", *j.Progress.BudgetUsed)
		}
		fams := h.scrape()
		for name, want := range map[string]float64{"xflex_job_memory_reserved_bytes": 600, "xflex_job_memory_waiting": 1} {
			if got, present := gaugeOf(fams, name, nil); !present || got != want {
				t.Errorf("while the second job waits: %s = %v (present %v), want %v", name, got, present, want)
			}
		}
		h.do("DELETE", "/v1/jobs/"+first, nil)
		if j := h.waitTerminal(second); j.State != StateSucceeded {
			t.Fatalf("second job after the first ended: %+v", j)
		}
		if most := p.most(); most != 2 {
			t.Errorf("at most %d solves at once, want 2 (the first and the one fitting beside it)", most)
		}
		huge := h.submit(memJob(0, 5*memBudget))
		if j := h.waitTerminal(huge); j.State != StateSucceeded {
			t.Fatalf("job estimated above the whole budget: %+v", j)
		}
		checkIdle(t, h)
	})
}

// TestJobMemoryWaitCancelled: cancelling a job waiting for memory ends it
// at once, while the job holding the memory runs on.
func TestJobMemoryWaitCancelled(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, store string) {
		h, _ := newMemHarness(t, store, 2)
		first := h.submit(memJob(60000, 600))
		h.waitFor(first, "running", func(j Job) bool { return j.State == StateRunning })
		second := h.submit(memJob(0, 600))
		h.waitMemory(second)
		if r := h.do("DELETE", "/v1/jobs/"+second, nil); r.status != http.StatusAccepted {
			t.Fatalf("cancel waiting job: %d %s", r.status, r.body)
		}
		if j := h.waitTerminal(second); j.State != StateCancelled {
			t.Errorf("cancelled waiting job: %+v", j)
		}
		if j := h.job(first); j.State != StateRunning {
			t.Errorf("first job after the second's cancel: %+v", j)
		}
		h.do("DELETE", "/v1/jobs/"+first, nil)
		h.waitTerminal(first)
		checkIdle(t, h)
	})
}

// TestJobMemoryReturnedAfterFailure: a solve that panics gives its memory
// back, so a job needing the whole budget runs after it.
func TestJobMemoryReturnedAfterFailure(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, store string) {
		h, _ := newMemHarness(t, store, 1)
		failing := h.submit(memJob(0, memBudget, "fail", "true"))
		if j := h.waitTerminal(failing); j.State != StateFailed {
			t.Fatalf("failing job: %+v", j)
		}
		whole := h.submit(memJob(0, memBudget))
		if j := h.waitTerminal(whole); j.State != StateSucceeded {
			t.Fatalf("job after the failure: %+v", j)
		}
		checkIdle(t, h)
	})
}
