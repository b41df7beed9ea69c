package fairshare

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// TestPFIPMMatchesInnerLP: the interior-point PF solver and the inner
// approximation by LP are independent methods; on random instances (δ
// restrictions, task caps, generic utilities, several α) both must certify
// their gap and agree on the optimum within the gaps they certify.
func TestPFIPMMatchesInnerLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	for trial := 0; trial < 200; trial++ {
		alpha := []float64{1, 0.5, 2, 1, 3}[trial%5]
		req := randomInstance(rng, trial%2 == 0, trial%3 == 0)
		if trial%4 == 1 {
			for n := range req.Frameworks {
				if rng.IntN(2) == 0 {
					c := float64(1 + rng.IntN(20))
					req.Frameworks[n].MaxTasks = &c
				}
			}
		}
		in, crit := buildRotating(t, req, trial)
		mi := newModel(in, crit)
		ipm, err := solvePFIPM(context.Background(), mi, alpha)
		if err != nil {
			t.Fatal(err)
		}
		ml := newModel(in, crit)
		inner, err := solvePFInner(context.Background(), ml, alpha, "")
		if err != nil {
			t.Fatal(err)
		}
		phiSum := 0.0
		for n := range in.fws {
			if !mi.inert[n] {
				phiSum += in.fws[n].phi
			}
		}
		if !gapOK(ipm.objective, ipm.bound, alpha, phiSum) {
			t.Fatalf("trial %d α=%g %s: ipm gap not certified: %.12g vs bound %.12g after %d steps", trial, alpha, crit, ipm.objective, ipm.bound, ipm.lps)
		}
		checkFeasible(t, in, mi.split(ipm.x))
		// Each certificate brackets the optimum, so the two must overlap.
		if ipm.objective > inner.bound+1e-9*math.Abs(inner.bound) || inner.objective > ipm.bound+1e-9*math.Abs(ipm.bound) {
			t.Fatalf("trial %d α=%g %s: ipm [%.12g, %.12g] and lp [%.12g, %.12g] do not overlap", trial, alpha, crit, ipm.objective, ipm.bound, inner.objective, inner.bound)
		}
		t.Logf("trial %d: %d steps", trial, ipm.lps)
	}
}

// buildRotating builds req and picks its criterion: the request's own
// (generic) or, by trial number, tasks, DRF or PS-DSF.
func buildRotating(t *testing.T, req *Request, trial int) (*instance, string) {
	t.Helper()
	crit := req.Criterion
	if crit == "" {
		crit = []string{CriterionTasks, CriterionDRF, CriterionPSDSF}[trial%3]
	}
	in, err := build(req)
	if err != nil {
		t.Fatal(err)
	}
	return in, crit
}
