package fairshare

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/xflex/xflex/lp"
	"github.com/xflex/xflex/solver"
)

// crossTol compares optima computed by different LP routes: each is exact
// to the backends' ≈1e-7 feasibility tolerance, so 1e-6 relative.
const crossTol = 1e-6

func close(a, b float64) bool {
	return math.Abs(a-b) <= crossTol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func sortedShares(in *instance, crit string, a alloc) []float64 {
	var u []float64
	for n := range in.fws {
		u = append(u, shareOf(in, crit, a, n))
	}
	slices.Sort(u)
	return u
}

// TestBackendsAgree solves random instances with every LP backend (CLP and
// the pure-Go simplex): the MMF criterion vector (unique, Proposition 1's
// leximin values), the PF optimum and the maximum efficiency must agree.
func TestBackendsAgree(t *testing.T) {
	backends := lp.Backends()
	if len(backends) < 2 {
		t.Skipf("only %v compiled in", backends)
	}
	rng := rand.New(rand.NewPCG(21, 21))
	for trial := 0; trial < 40; trial++ {
		crit := []string{CriterionTasks, CriterionDRF, CriterionPSDSF, CriterionGeneric}[trial%4]
		req := randomInstance(rng, trial%2 == 0, crit == CriterionGeneric)
		var ref []float64
		var refPF, refEff float64
		for _, be := range backends {
			in, _, a, _ := exactAlloc(t, req, PolicyMMF, crit, 1, be)
			u := sortedShares(in, crit, a)
			_, _, _, eff := exactAlloc(t, req, PolicyEfficiency, CriterionTasks, 1, be)
			_, _, _, pf := exactAlloc(t, req, PolicyPF+"/"+PFInnerLP, CriterionTasks, 1, be)
			pfObj := pf.objective
			if ref == nil {
				ref, refPF, refEff = u, pfObj, eff.objective
				continue
			}
			for k := range u {
				if !close(u[k], ref[k]) {
					t.Fatalf("trial %d (%s): MMF shares differ between backends: %v vs %v", trial, crit, u, ref)
				}
			}
			if !close(eff.objective, refEff) {
				t.Fatalf("trial %d: efficiency %g vs %g", trial, eff.objective, refEff)
			}
			if !close(pfObj, refPF) {
				t.Fatalf("trial %d: PF %g vs %g", trial, pfObj, refPF)
			}
		}
	}
}

// TestPricingMatchesFullLP: column generation (pricing with row duals)
// reaches the optimum of the LP with every column present.
func TestPricingMatchesFullLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for trial := 0; trial < 60; trial++ {
		req := randomInstance(rng, trial%2 == 0, false)
		for _, pol := range []string{PolicyMMF, PolicyPF, PolicyEfficiency} {
			in, err := build(req)
			if err != nil {
				t.Fatal(err)
			}
			run := func(full bool) (float64, []float64) {
				m := newModel(in, CriterionTasks)
				if full {
					m.activateAll()
				}
				var er *exactResult
				switch pol {
				case PolicyMMF:
					er, err = solveMMF(context.Background(), m, "")
				case PolicyPF:
					er, err = solvePFInner(context.Background(), m, 1, "")
				default:
					er, err = solveEfficiency(context.Background(), m, "")
				}
				if err != nil {
					t.Fatal(err)
				}
				return er.objective, sortedShares(in, CriterionTasks, m.split(er.x))
			}
			a, ua := run(false)
			b, ub := run(true)
			if !close(a, b) {
				t.Fatalf("trial %d %s: pricing %g, full LP %g", trial, pol, a, b)
			}
			if pol == PolicyMMF {
				for k := range ua {
					if !close(ua[k], ub[k]) {
						t.Fatalf("trial %d: MMF shares %v vs %v", trial, ua, ub)
					}
				}
			}
		}
	}
}

// TestCoalescing: one server entry per copy gives the same optima as
// server types with counts, and the solver rediscovers the types.
func TestCoalescing(t *testing.T) {
	for seed := int64(0); seed < 6; seed++ {
		params := map[string]string{"frameworks": "12", "servers": "60", "types": "4", "resources": "3"}
		typed, _ := Generate(seed, params)
		params["expand"] = "true"
		flat, _ := Generate(seed, params)
		for _, pol := range []string{PolicyMMF, PolicyPF, PolicyEfficiency} {
			var objs []float64
			for k, v := range []any{typed, flat} {
				req := v.(*Request)
				req.Policy = pol
				raw, _ := json.Marshal(req)
				in, err := build(req)
				if err != nil {
					t.Fatal(err)
				}
				if len(in.groups) > 4 {
					t.Fatalf("seed %d: %d groups from 4 types", seed, len(in.groups))
				}
				res, meta, err := Solve(context.Background(), raw, solver.Options{Budget: time.Minute, Start: time.Now()})
				if err != nil {
					t.Fatal(err)
				}
				if meta.Objective == nil {
					t.Fatalf("seed %d %s (%d): no objective", seed, pol, k)
				}
				objs = append(objs, *meta.Objective)
				_ = res
			}
			if !close(objs[0], objs[1]) {
				t.Fatalf("seed %d %s: typed %g, expanded %g", seed, pol, objs[0], objs[1])
			}
		}
	}
}

// TestIntegerRounding: integer exact policies return whole tasks that fit
// every individual server copy, never beating the divisible bound.
func TestIntegerRounding(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for trial := 0; trial < 30; trial++ {
		req := randomInstance(rng, trial%2 == 0, false)
		pol := []string{PolicyMMF, PolicyPF, PolicyEfficiency}[trial%3]
		req.Policy = pol
		yes := true
		req.Integer = &yes
		raw, _ := json.Marshal(req)
		res, meta, err := Solve(context.Background(), raw, solver.Options{Budget: time.Minute, Start: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		r := res.(*Result)
		in, _ := build(req)
		a := make(alloc, len(in.fws))
		for n, fr := range r.Frameworks {
			a[n] = map[int]float64{}
			for j, s := range in.servers {
				v := fr.ByServer[s.name]
				if v != math.Trunc(v) {
					t.Fatalf("trial %d: fractional %g", trial, v)
				}
				a[n][j] = v
			}
		}
		checkFeasible(t, in, a)
		if meta.Objective != nil && meta.Bound != nil && *meta.Objective > *meta.Bound*(1+crossTol)+crossTol {
			t.Fatalf("trial %d %s: integer objective %g above divisible bound %g", trial, pol, *meta.Objective, *meta.Bound)
		}
		if fmt.Sprint(meta.Status) != string(solver.StatusFeasible) {
			t.Fatalf("trial %d: status %s", trial, meta.Status)
		}
	}
}
