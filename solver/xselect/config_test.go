package xselect

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/xflex/xflex/vecpack"
)

// cfgTol is the relative slack when comparing LP optima: CLP meets its
// constraints to about 1e-7 relative.
const cfgTol = 1e-6

// bruteKnapsack enumerates every configuration of one node independently
// of the branch and bound: the best Σ w_s·a_s.
func bruteKnapsack(sizes [][]float64, w []float64, cap []float64, demand []float64) float64 {
	best := 0.0
	a := make([]int, len(sizes))
	var rec func(i int, rem []float64, val float64)
	rec = func(i int, rem []float64, val float64) {
		if i == len(sizes) {
			best = math.Max(best, val)
			return
		}
		for k := 0; ; k++ {
			if demand != nil && float64(k) > demand[i] {
				return
			}
			ok := true
			r2 := make([]float64, len(rem))
			for r := range rem {
				r2[r] = rem[r] - float64(k)*sizes[i][r]
				if r2[r] < -1e-9 {
					ok = false
				}
			}
			if !ok {
				return
			}
			a[i] = k
			rec(i+1, r2, val+float64(k)*w[i])
		}
	}
	rec(0, cap, 0)
	return best
}

// TestConfigPricingVsEnumeration checks the pricing branch and bound
// against enumeration on random small knapsacks (with and without demand
// caps, with sizes that are zero in some resources).
func TestConfigPricingVsEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for it := 0; it < 300; it++ {
		R := 1 + rng.IntN(3)
		S := 1 + rng.IntN(4)
		cap := make([]float64, R)
		for r := range cap {
			cap[r] = float64(4 + rng.IntN(12))
		}
		c := &configLP{classes: []cfgClass{{nodes: []int{0}, cap: cap}}, seen: map[string]bool{}}
		sizes := make([][]float64, S)
		w := make([]float64, S)
		var demand []float64
		if it%2 == 1 {
			demand = make([]float64, S)
		}
		for s := range sizes {
			sizes[s] = make([]float64, R)
			for r := range sizes[s] {
				sizes[s][r] = float64(rng.IntN(5))
			}
			sizes[s][rng.IntN(R)] = float64(1 + rng.IntN(5))
			if s > 0 && rng.IntN(3) == 0 {
				// Same size as kind 0: the pricing merges them.
				copy(sizes[s], sizes[0])
			}
			w[s] = math.Round(rng.Float64()*100) / 10
			if demand != nil {
				demand[s] = float64(rng.IntN(4))
			}
			c.kinds = append(c.kinds, cfgKind{size: sizes[s], allowed: []bool{true}})
		}
		want := bruteKnapsack(sizes, w, cap, demand)
		cols, found, exact := c.price(context.Background(), 0, w, demand, 0)
		if !exact {
			t.Fatalf("instance %d: pricing not exact on a tiny knapsack", it)
		}
		if want > 1e-9 != found {
			t.Fatalf("instance %d: found %v, enumeration optimum %g", it, found, want)
		}
		for j, a := range cols {
			got := checkConfig(t, it, a, sizes, w, cap, demand)
			if j == 0 && math.Abs(got-want) > 1e-9 {
				t.Fatalf("instance %d: pricing value %g, enumeration %g", it, got, want)
			}
			if got <= 0 || got > want+1e-9 {
				t.Fatalf("instance %d: column %d of value %g, floor 0, optimum %g", it, j, got, want)
			}
		}
	}
}

// checkConfig fails unless configuration a fits cap within demand; it
// returns a's value.
func checkConfig(t *testing.T, it int, a []int, sizes [][]float64, w, cap, demand []float64) float64 {
	t.Helper()
	got := 0.0
	use := make([]float64, len(cap))
	for s, k := range a {
		got += w[s] * float64(k)
		for r := range use {
			use[r] += float64(k) * sizes[s][r]
		}
		if demand != nil && float64(k) > demand[s] {
			t.Fatalf("instance %d: kind %d count %d above demand %g", it, s, k, demand[s])
		}
	}
	if !vecpack.Fits(use, cap) {
		t.Fatalf("instance %d: configuration %v does not fit %v", it, a, cap)
	}
	return got
}

// TestConfigBoundBetweenMIPAndClassLP checks on random tiny instances that
// the configuration LP's λ is a valid bound (at least the exact MIP's λ)
// and no weaker than the class LP's (it is a restriction of it).
func TestConfigBoundBetweenMIPAndClassLP(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 12
	}
	checked := 0
	for seed := int64(0); seed < int64(n); seed++ {
		req := GenerateWith(seed, tinyParams(seed))
		m, err := build(req)
		if err != nil {
			continue
		}
		m.upperBound(context.Background())
		cfg := m.newConfigLP()
		creq := make([]float64, len(cfg.kinds))
		for g, gr := range m.groups {
			creq[cfg.kindOf[g]] += float64(gr.c)
		}
		sol, err := cfg.solve(context.Background(), creq, nil)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if sol.obj > m.lpBound*(1+cfgTol)+cfgTol {
			t.Fatalf("seed %d: configuration LP λ %g above the class LP's %g", seed, sol.obj, m.lpBound)
		}
		req.Method = MethodExact
		_, ex, err := solveDirect(t, req, 20*time.Second)
		if err != nil {
			t.Fatalf("seed %d exact: %v", seed, err)
		}
		if ex.Lambda > sol.obj*(1+cfgTol)+cfgTol {
			t.Fatalf("seed %d: MIP optimum %s above the configuration LP's λ %g", seed, ex.LambdaFraction, sol.obj)
		}
		checked++
	}
	if checked < n/2 {
		t.Fatalf("only %d of %d instances checked", checked, n)
	}
}

// TestConfigPackValid packs generated instances (some with exlocation and
// Garbo applications) from
// the configuration LP at a λ below the bound and verifies every packing
// independently (capacity, counts), and that it places almost everything.
func TestConfigPackValid(t *testing.T) {
	for seed := int64(1); seed <= 12; seed++ {
		gp := GenParams{Nodes: 20 + int(seed)*7, Resources: 1 + int(seed%4), Apps: 3 + int(seed%5), Shapes: 5, Types: 3, MaxCount: 10}
		if seed%3 == 0 {
			// Exlocation and a Garbo application: configurations must
			// respect the conflicts.
			gp.Garbo, gp.Exlocate = 1, 2
		}
		if seed%4 == 1 {
			// Colocation: configurations leave room for the bundles,
			// which the fill places whole.
			gp.Colocate = 1
		}
		req := GenerateWith(seed, gp)
		m, err := build(req)
		if err != nil {
			t.Fatal(err)
		}
		ub, _ := m.upperBound(context.Background())
		if m.lp == nil || m.lp.cfg == nil {
			t.Fatalf("seed %d: no configuration LP", seed)
		}
		c := m.required()
		lam := vecpack.BreakpointAtMost(0.97*ub, c)
		n := lam.Counts(c)
		sp := m.buildSpec(n, nil)
		p, err := configPack(context.Background(), sp, m.lp.cfg, vecpack.FFDSum(), uint64(seed))
		if err != nil || p == nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if err := p.Verify(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		total := 0
		for _, k := range n {
			total += int(k)
		}
		// At 97% of the bound the rounding plus repair leaves at most a
		// few containers out on these small clusters.
		const maxLeft = 0.02
		if float64(p.Unplaced()) > maxLeft*float64(total) {
			t.Fatalf("seed %d: %d of %d containers unplaced at λ %s (bound %g)", seed, p.Unplaced(), total, lam, ub)
		}
	}
}

// TestConfigLPManyKinds checks that predicates splitting the shapes into
// more kinds than cfgMaxKinds no longer turn the configuration LP off:
// the pricing branches on one kind per size (mergeItems), so the LP is
// built, solved with proof and kept for the packer. (Before, 119 kinds
// against a cap of 64 left the packer to the LP-guided greedy.)
func TestConfigLPManyKinds(t *testing.T) {
	req := GenerateWith(5, GenParams{Nodes: 300, Resources: 4, Apps: 120, Shapes: 20, Types: 10, MaxCount: 20, Require: 0.5})
	m, err := build(req)
	if err != nil {
		t.Fatal(err)
	}
	cfg := m.newConfigLP()
	if len(cfg.kinds) <= cfgMaxKinds || cfg.branchKinds() > cfgMaxKinds {
		t.Fatalf("instance has %d kinds, %d branched on: want more than %d and at most %d", len(cfg.kinds), cfg.branchKinds(), cfgMaxKinds, cfgMaxKinds)
	}
	ub, _ := m.upperBound(context.Background())
	if m.lp == nil || m.lp.cfg == nil {
		t.Fatal("configuration LP not kept for the packer")
	}
	t.Logf("%d kinds, %d branched on, bound %.4f", len(cfg.kinds), cfg.branchKinds(), ub)
}

// TestConfigLPGarboKinds checks that groups with the same conflict
// partners share a kind: beside Garbo applications every other group is
// in a conflict, and with a kind per group (before) the pricing hit its
// node cap on this cluster (60 kinds), so the configuration LP was never
// solved with proof.
func TestConfigLPGarboKinds(t *testing.T) {
	req := GenerateWith(5, GenParams{Nodes: 1000, Resources: 3, Apps: 30, Shapes: 8, Types: 3, MaxCount: 20, Garbo: 3, Exlocate: 5, Colocate: 3})
	m, err := build(req)
	if err != nil {
		t.Fatal(err)
	}
	cfg := m.newConfigLP()
	creq := make([]float64, len(cfg.kinds))
	for g, gr := range m.groups {
		creq[cfg.kindOf[g]] += float64(gr.c)
	}
	sol, err := cfg.solve(context.Background(), creq, nil)
	if err != nil {
		t.Fatalf("%d kinds: %v", len(cfg.kinds), err)
	}
	t.Logf("%d groups, %d kinds, λ ≤ %.4f", len(m.groups), len(cfg.kinds), sol.obj)
	// The cluster has colocation too: the configuration packer still
	// runs and, with the bundles left to the fill, packs 97% of the bound
	// whole (the LP-guided greedy and local search reached 95.4%).
	ub, _ := m.upperBound(context.Background())
	if m.lp == nil || m.lp.cfg == nil {
		t.Fatal("configuration LP not kept for the packer")
	}
	c := m.required()
	n := vecpack.BreakpointAtMost(0.97*ub, c).Counts(c)
	sp := m.buildSpec(n, nil)
	if !sp.bundled() {
		t.Fatal("no colocated bundles")
	}
	p, err := configPack(context.Background(), sp, m.lp.cfg, vecpack.FFDSum(), 1)
	if err != nil || p == nil {
		t.Fatalf("configPack: %v", err)
	}
	if err := p.Verify(); err != nil {
		t.Fatal(err)
	}
	if p.Unplaced() > 0 {
		t.Fatalf("%d containers unplaced at 97%% of the bound %g", p.Unplaced(), ub)
	}
}
