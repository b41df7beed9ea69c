package fairshare

import (
	"math/rand/v2"
	"testing"

	"github.com/xflex/xflex/lp"
)

// TestPFWarmMatchesCold: the PF round loop re-solves one LP warm with the
// coin backend (lp.Incremental keeps CLP's basis) and cold with the native
// backend; on random instances and several α both must certify their gap
// and reach the same optimum.
func TestPFWarmMatchesCold(t *testing.T) {
	backends := lp.Backends()
	if len(backends) < 2 {
		t.Skipf("only %v compiled in", backends)
	}
	rng := rand.New(rand.NewPCG(5, 8))
	for trial := 0; trial < 24; trial++ {
		alpha := []float64{0.5, 1, 2}[trial%3]
		req := randomInstance(rng, trial%2 == 0, false)
		var ref *exactResult
		for _, be := range backends {
			_, m, _, er := exactAlloc(t, req, PolicyPF+"/"+PFInnerLP, CriterionTasks, alpha, be)
			phiSum := 0.0
			for n := range m.in.fws {
				if !m.inert[n] {
					phiSum += m.in.fws[n].phi
				}
			}
			if !gapOK(er.objective, er.bound, alpha, phiSum) {
				t.Fatalf("trial %d α=%g %s: gap not certified: %g vs bound %g after %d LPs", trial, alpha, be, er.objective, er.bound, er.lps)
			}
			if ref == nil {
				ref = er
				continue
			}
			if !close(er.objective, ref.objective) {
				t.Fatalf("trial %d α=%g: PF %g (%s) vs %g (%s)", trial, alpha, er.objective, be, ref.objective, backends[0])
			}
		}
	}
}
