package flex

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/xflex/xflex/solver"
)

// stepCtx is a context whose Err reports DeadlineExceeded from its
// limit-th call on: a budget that runs out at an exact point, with no clock.
type stepCtx struct {
	context.Context
	calls, limit int
}

func (c *stepCtx) Err() error {
	c.calls++
	if c.calls >= c.limit {
		return context.DeadlineExceeded
	}
	return nil
}

func deadlineInstance(t *testing.T, n int) (*Instance, *Request) {
	t.Helper()
	raw, err := Generate(5, map[string]string{"jobs": strconv.Itoa(n)})
	if err != nil {
		t.Fatal(err)
	}
	req := raw.(*Request)
	in, err := Build(req)
	if err != nil {
		t.Fatal(err)
	}
	return in, req
}

// Past the deadline the solve adds no ordering after RAP's (each is an MPS
// run, tens of ms at 10⁵ jobs): the answer is RAP's schedule, Fair's
// beside it, with status timeout.
func TestExpiredSkipsOrderings(t *testing.T) {
	in, req := deadlineInstance(t, 200)
	res, meta, err := run(&stepCtx{Context: context.Background(), limit: 1}, in, req, solver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range res.Candidates {
		got = append(got, c.Source)
	}
	if len(got) != 2 || got[0] != "rap" || got[1] != "fair" {
		t.Errorf("candidates %v, want [rap fair]", got)
	}
	if meta.Status != solver.StatusTimeout {
		t.Errorf("status %q, want timeout", meta.Status)
	}
}

// The sampled local search checks the deadline before every MPS
// evaluation (one costs about 0.1 s at 10⁵ jobs): a deadline that passes
// after the first check allows exactly one.
func TestLocalSearchStopsAtNextEvaluation(t *testing.T) {
	in, _ := deadlineInstance(t, 200)
	ev := newEvaluator(in)
	prio := identity(in.N())
	_, _, stopped := ev.localSearch(&stepCtx{Context: context.Background(), limit: 2}, prio, ev.eval(prio), 1000, rand.New(rand.NewPCG(1, 2)))
	if !stopped || ev.evals != 2 {
		t.Errorf("stopped %v after %d evaluations, want true after 2 (the start and one move)", stopped, ev.evals)
	}
}
