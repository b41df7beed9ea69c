package fairshare

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// expiresAfter is a context whose deadline passes at its (n+1)-th check:
// where a solver stops on it is counted in checks, not in time.
type expiresAfter struct {
	context.Context
	n int
}

func (c *expiresAfter) Err() error {
	if c.n <= 0 {
		return context.DeadlineExceeded
	}
	c.n--
	return nil
}

// TestPFIPMSetupStops: the interior-point method's setup stops on an
// expired context (it has no problem to offer) and solvePFIPM answers
// timeout without a step. Unchecked, the setup took 1.2–3.3 s at 100,000
// frameworks and ran pf's 2 s budget to 3 s (issue 28).
func TestPFIPMSetupStops(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 1))
	in, crit := buildRotating(t, randomInstance(rng, false, false), 0)
	m := newModel(in, crit)
	if s := newPFIPM(expiredAtOnce{context.Background()}, m, 1); s != nil {
		t.Fatal("newPFIPM set up the problem on an expired context")
	}
	res, err := solvePFIPM(expiredAtOnce{context.Background()}, m, 1)
	if err != nil || !res.timeout || res.steps != 0 {
		t.Fatalf("solvePFIPM on an expired context: timeout %v, %d steps, err %v; want a timeout before any step", res.timeout, res.steps, err)
	}
}

// TestPFIPMStepStops: a step whose context ends midway (at each of its
// checks in turn) returns the context's error and leaves the iterate as
// it was, so the answer so far is the last certified one; one step at
// 100,000 frameworks took 1.5 s unchecked (issue 28).
func TestPFIPMStepStops(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 2))
	in, crit := buildRotating(t, randomInstance(rng, true, false), 1)
	for checks := 0; checks < 3; checks++ {
		s := newPFIPM(context.Background(), newModel(in, crit), 1)
		if s == nil || s.nf == 0 {
			t.Fatal("no problem set up")
		}
		x, lam, y := slices.Clone(s.X), slices.Clone(s.lam), slices.Clone(s.y)
		_, _, ok, err := s.step(&expiresAfter{context.Background(), checks})
		if err == nil || ok {
			t.Fatalf("after %d checks: step ok %v, err %v; want the context's error", checks, ok, err)
		}
		if !slices.Equal(x, s.X) || !slices.Equal(lam, s.lam) || !slices.Equal(y, s.y) {
			t.Fatalf("after %d checks: the cut step moved the iterate", checks)
		}
	}
	s := newPFIPM(context.Background(), newModel(in, crit), 1)
	if _, _, ok, err := s.step(context.Background()); !ok || err != nil {
		t.Fatalf("uncut step: ok %v, err %v", ok, err)
	}
}
