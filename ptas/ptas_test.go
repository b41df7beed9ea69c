package ptas

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

// testTol is the relative slack of cost comparisons in these tests: costs
// are sums of at most a few dozen products of doubles, so 1e-9 is far above
// round-off and far below any real difference.
const testTol = 1e-9

func TestRhoFormulas2D(t *testing.T) {
	for m := 1; m <= 60; m++ {
		d := MixRays(m)
		if got := rho2D(d.Vecs); math.Abs(got-d.Rho) > 1e-12 {
			t.Errorf("mix m=%d: rho2D %v, formula %v", m, got, d.Rho)
		}
	}
	for M := 2; M <= 60; M++ {
		d := AngleRays(M)
		if got := rho2D(d.Vecs); math.Abs(got-d.Rho) > 1e-12 {
			t.Errorf("angle M=%d: rho2D %v, formula 1+tan δ = %v", M, got, d.Rho)
		}
	}
	// Lattice directions in 2D are the mix rays plus both axes: ρ = 1+1/N.
	for N := 1; N <= 30; N++ {
		d := LatticeRays(2, N)
		if got := rho2D(d.Vecs); math.Abs(got-d.Rho) > 1e-12 {
			t.Errorf("lattice N=%d: rho2D %v, formula %v", N, got, d.Rho)
		}
	}
}

// The paper's π/ε − 1 equi-angled rays give about 1 + ε/2.
func TestPaperRayCount(t *testing.T) {
	for _, eps := range []float64{0.5, 0.2, 0.1, 0.05, 0.01} {
		M := int(math.Round(math.Pi / eps))
		d := AngleRays(M)
		if d.Len() != M-1 {
			t.Fatalf("eps %v: %d rays, want π/ε−1 = %d", eps, d.Len(), M-1)
		}
		if d.Rho > 1+eps/2*(1+eps) || d.Rho < 1+eps/2*(1-eps) {
			t.Errorf("eps %v: ρ = %v, want about 1+ε/2 = %v", eps, d.Rho, 1+eps/2)
		}
	}
}

// Mix rays are optimal: m rays cannot beat 1+1/m, and mix rays reach it.
// The worst point between rays a and b sits at mix q = p_a/(1−p_b+p_a).
func TestMixTight(t *testing.T) {
	for m := 1; m <= 20; m++ {
		d := MixRays(m)
		pa, pb := d.Vecs[0][1], d.Vecs[1%m][1]
		q := 0.0 // below the first ray the worst point is the x axis
		if m > 1 {
			q = pa / (1 - pb + pa)
		}
		s := []float64{1 - q, q}
		_, c := RoundUp(s, d)
		if m > 1 && math.Abs(c/Cost(s)-d.Rho) > 1e-12 {
			t.Errorf("m=%d: worst point ratio %v, want ρ=%v", m, c/Cost(s), d.Rho)
		}
		if _, c0 := RoundUp([]float64{1, 0}, d); math.Abs(c0-d.Rho) > 1e-12 {
			t.Errorf("m=%d: axis point ratio %v, want ρ=%v", m, c0, d.Rho)
		}
	}
	// Equal angles are tight at the axes: (1, 0) costs exactly 1 + tan δ.
	for M := 2; M <= 20; M++ {
		d := AngleRays(M)
		if _, c := RoundUp([]float64{1, 0}, d); math.Abs(c-d.Rho) > 1e-12 {
			t.Errorf("angle M=%d: axis ratio %v, want %v", M, c, d.Rho)
		}
	}
}

func randPoint(r *rand.Rand, d int) []float64 {
	s := make([]float64, d)
	for i := range s {
		switch r.IntN(5) {
		case 0:
			s[i] = 0 // zero coordinates are common (no GPU) and extreme
		case 1:
			s[i] = r.Float64() * 1e-3
		default:
			s[i] = r.Float64()
		}
	}
	if Cost(s) == 0 {
		s[r.IntN(d)] = 1
	}
	return s
}

// Rounding any point up to its cheapest dominating ray point costs at most
// ρ, in every family and dimension, and the rounded point dominates it.
func TestRoundingFactorProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	sets := []*Directions{MixRays(1), MixRays(7), AngleRays(2), AngleRays(9), LatticeRays(2, 5),
		LatticeRays(3, 1), LatticeRays(3, 6), LatticeRays(4, 4), LatticeRays(5, 3),
		InductiveRays(3, AngleRays(5)), InductiveRays(4, MixRays(3)), InductiveRays(3, MixRays(6))}
	for _, ds := range sets {
		for it := 0; it < 3000; it++ {
			s := randPoint(r, ds.Dim)
			k, c := RoundUp(s, ds)
			if c > ds.Rho*Cost(s)*(1+testTol) {
				t.Fatalf("%s/%d d=%d: point %v rounds at ratio %v > ρ = %v", ds.Family, ds.Param, ds.Dim, s, c/Cost(s), ds.Rho)
			}
			for i, x := range s {
				if c*ds.Vecs[k][i] < x*(1-testTol) {
					t.Fatalf("rounded point does not dominate %v", s)
				}
			}
		}
	}
}

// Lattice directions reach the same ρ as the inductive construction with
// far fewer directions in 3D and up.
func TestLatticeFewerDirections(t *testing.T) {
	for _, d := range []int{3, 4} {
		for _, eps := range []float64{0.2, 0.1, 0.05} {
			lat, _ := ForEpsilon(FamilyLattice, d, eps)
			ind, _ := ForEpsilon(FamilyAngle, d, eps)
			if lat.Rho > 1+eps+rhoSlack || ind.Rho > 1+eps+rhoSlack {
				t.Fatalf("d=%d eps=%v: ρ lattice %v inductive %v", d, eps, lat.Rho, ind.Rho)
			}
			if lat.Len() >= ind.Len() {
				t.Errorf("d=%d eps=%v: lattice %d directions, inductive %d", d, eps, lat.Len(), ind.Len())
			}
			if lat.Len() != LatticeCount(d, lat.Param) {
				t.Errorf("LatticeCount(%d,%d) = %d, built %d", d, lat.Param, LatticeCount(d, lat.Param), lat.Len())
			}
		}
	}
}

func TestForEpsilon(t *testing.T) {
	for _, f := range Families() {
		for d := 1; d <= 4; d++ {
			for _, eps := range []float64{1, 0.3, 0.1, 0.05} {
				ds, err := ForEpsilon(f, d, eps)
				if err != nil {
					t.Fatal(err)
				}
				if ds.Rho > 1+eps+rhoSlack {
					t.Errorf("%s d=%d eps=%v: ρ = %v", f, d, eps, ds.Rho)
				}
				for _, v := range ds.Vecs {
					if len(v) != d || math.Abs(Cost(v)-1) > 1e-12 {
						t.Fatalf("%s d=%d: direction %v does not sum to 1", f, d, v)
					}
				}
			}
		}
	}
	if ds, _ := ForEpsilon(FamilyMix, 2, 0.05); ds.Len() != 20 {
		t.Errorf("ε = 0.05 in 2D needs 20 mix rays, got %d", ds.Len())
	}
	if _, err := ForEpsilon(FamilyMix, 2, 0); err == nil {
		t.Error("ε = 0 accepted")
	}
}

// randInstance draws a small instance on a coarse grid (so requests share
// coordinates, as real request histograms do).
func randInstance(r *rand.Rand, d, n, K int, nodes bool) *Instance {
	in := &Instance{K: K}
	for j := 0; j < n; j++ {
		u := make([]float64, d)
		for i := range u {
			u[i] = float64(r.IntN(9)) / 16
		}
		if Cost(u) == 0 {
			u[r.IntN(d)] = 1.0 / 16
		}
		in.U = append(in.U, u)
		in.W = append(in.W, float64(1+r.IntN(20)))
	}
	dist, w, _ := Aggregate(in.U, in.W)
	in.U, in.W = dist, w
	if nodes {
		// two node types, each strong in a different resource, plus a
		// large one so every request fits somewhere
		for k := 0; k < 2; k++ {
			c := make([]float64, d)
			for i := range c {
				c[i] = 0.3 + 0.4*r.Float64()
			}
			c[k%d] = 0.75
			in.Caps = append(in.Caps, c)
		}
		big := make([]float64, d)
		for i := range big {
			big[i] = 0.5 + 0.5*r.Float64()
		}
		for _, u := range in.U {
			for i := range big {
				big[i] = math.Max(big[i], u[i])
			}
		}
		in.Caps = append(in.Caps, big)
	}
	return in
}

// bruteRays enumerates every set of at most K candidates.
func bruteRays(rp *rayProblem, K int) float64 {
	best := math.Inf(1)
	sel := []int{}
	var rec func(from int)
	rec = func(from int) {
		if len(sel) > 0 {
			st := newState(rp, sel)
			if st.total < best {
				best = st.total
			}
		}
		if len(sel) == K {
			return
		}
		for c := from; c < len(rp.cands); c++ {
			sel = append(sel, c)
			rec(c + 1)
			sel = sel[:len(sel)-1]
		}
	}
	rec(0)
	return best
}

// The exact ray-restricted methods agree with each other and with
// enumeration, and the Lagrangian bound never exceeds the optimum.
func TestRayExactMethodsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ctx := context.Background()
	checked := 0
	for it := 0; it < 120; it++ {
		d := 2 + it%2
		in := randInstance(r, d, 3+r.IntN(4), 1+r.IntN(3), it%3 == 0)
		dirs := MixRays(1 + r.IntN(3))
		if d == 3 {
			dirs = LatticeRays(3, 1+r.IntN(2))
		}
		rp := buildRayProblem(ctx, in, dirs, Cost)
		if len(rp.cands) > 28 {
			continue
		}
		cover := MinShapes(in, in.K)
		if len(cover) > in.K {
			continue
		}
		want := bruteRays(rp, in.K)
		sel, dv, ok := levelDP(ctx, rp, in.K)
		if !ok {
			t.Fatalf("DP gave up on %d candidates", len(rp.cands))
		}
		if math.Abs(dv-want) > testTol*want || math.Abs(newState(rp, sel).total-dv) > testTol*want {
			t.Fatalf("it %d: DP %v, enumeration %v", it, dv, want)
		}
		all := make([]int, len(rp.cands))
		for c := range all {
			all[c] = c
		}
		mr, err := solveMIP(ctx, rp, all, in.K, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !mr.optimal || math.Abs(mr.value-want) > 1e-6*want {
			t.Fatalf("it %d: MIP %v (optimal %v), enumeration %v", it, mr.value, mr.optimal, want)
		}
		init := []int{}
		for _, n := range cover {
			init = append(init, rp.full[n])
		}
		st := localSearch(ctx, rp, init, in.K, nil)
		if st.total < want*(1-testTol) {
			t.Fatalf("local search %v below the optimum %v", st.total, want)
		}
		lg := newLagrange(rp, in.K)
		if lb := lg.subgradient(ctx, st, 200, math.Inf(1)); lb > want*(1+testTol) {
			t.Fatalf("it %d: Lagrangian bound %v above the optimum %v", it, lb, want)
		}
		checked++
	}
	if checked < 60 {
		t.Fatalf("only %d instances small enough", checked)
	}
}

// The heart of the PTAS: OPT ≤ OPT_rays ≤ ρ·OPT, and Solve's answer is
// within 1+ε of the exact optimum with an honest bound, on hundreds of
// random small instances in 2 and 3 dimensions, with and without node types.
func TestPTASWithinRho(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ctx := context.Background()
	n := 300
	if testing.Short() {
		n = 80
	}
	for it := 0; it < n; it++ {
		d := 2 + it%2
		in := randInstance(r, d, 4+r.IntN(6), 1+r.IntN(4), it%4 == 1)
		if len(MinShapes(in, in.K)) > in.K {
			continue
		}
		_, _, opt, err := Exact(in, Cost)
		if err != nil {
			t.Fatal(err)
		}
		eps := []float64{0.5, 0.2, 0.1}[it%3]
		fam := []Family{FamilyAuto, FamilyMix, FamilyAngle, FamilyLattice}[it%4]
		dirs, _ := ForEpsilon(fam, d, eps)
		rp := buildRayProblem(ctx, in, dirs, Cost)
		if len(rp.chains) <= 6 {
			if _, rv, ok := levelDP(ctx, rp, in.K); ok {
				if rv < opt*(1-testTol) || rv > dirs.Rho*opt*(1+testTol) {
					t.Fatalf("it %d: OPT_rays %v outside [OPT, ρ·OPT] = [%v, %v]", it, rv, opt, dirs.Rho*opt)
				}
			}
		}
		res, err := Solve(ctx, in, Options{Epsilon: eps, Family: fam, ExactLimit: -1, NoJoins: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Cost < opt*(1-testTol) || res.Cost > (1+eps)*opt*(1+testTol) {
			t.Fatalf("it %d (%s, ε=%v): cost %v, OPT %v", it, fam, eps, res.Cost, opt)
		}
		if res.LowerBound > opt*(1+testTol) {
			t.Fatalf("it %d: bound %v above OPT %v", it, res.LowerBound, opt)
		}
		if res.Epsilon > eps*(1+testTol) {
			t.Fatalf("it %d: reached ε %v > asked %v (levels %+v)", it, res.Epsilon, eps, res.Levels)
		}
		checkShapes(t, in, res)
	}
}

func checkShapes(t *testing.T, in *Instance, res *Result) {
	t.Helper()
	if len(res.Shapes) > in.K {
		t.Fatalf("%d shapes for K = %d", len(res.Shapes), in.K)
	}
	for _, s := range res.Shapes {
		ok := len(in.Caps) == 0
		for _, c := range in.Caps {
			ok = ok || Fits(s, c)
		}
		if !ok {
			t.Fatalf("shape %v fits no node type", s)
		}
	}
	total := 0.0
	for j, u := range in.U {
		s := res.Shapes[res.Assign[j]]
		if !Fits(u, s) {
			t.Fatalf("request %v assigned to %v", u, s)
		}
		total += in.W[j] * Cost(s)
	}
	if math.Abs(total-res.Cost) > testTol*math.Max(total, 1) {
		t.Fatalf("reported cost %v, recomputed %v", res.Cost, total)
	}
}

func bruteMaxFit(keys, wts []float64, K int) float64 {
	m := len(keys)
	K = min(K, m)
	f := make([]float64, m+1)
	for i := range f {
		f[i] = math.Inf(1)
	}
	f[0] = 0
	for k := 1; k <= K; k++ {
		g := make([]float64, m+1)
		for i := range g {
			g[i] = math.Inf(1)
		}
		for i := 1; i <= m; i++ {
			w := 0.0
			for a := i - 1; a >= 0; a-- {
				w += wts[a]
				g[i] = math.Min(g[i], f[a]+keys[i-1]*w)
			}
		}
		f = g
	}
	return f[m]
}

// fit "max": the divide-and-conquer DP matches the quadratic DP and the
// subset DP.
func TestMaxFitDP(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for it := 0; it < 300; it++ {
		m := 1 + r.IntN(40)
		keys := make([]float64, m)
		wts := make([]float64, m)
		x := 0.0
		for i := range keys {
			x += 0.01 + r.Float64()
			keys[i], wts[i] = x, 1+float64(r.IntN(9))
		}
		K := 1 + r.IntN(6)
		levels, v := maxFitLevels(keys, wts, K)
		if want := bruteMaxFit(keys, wts, K); math.Abs(v-want) > testTol*want {
			t.Fatalf("D&C %v, quadratic %v", v, want)
		}
		if len(levels) != min(K, m) || levels[len(levels)-1] != m-1 {
			t.Fatalf("levels %v", levels)
		}
	}
	for it := 0; it < 200; it++ {
		in := randInstance(r, 2+it%3, 3+r.IntN(7), 1+r.IntN(3), false)
		_, _, want, err := Exact(in, MaxCost)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Solve(context.Background(), in, Options{Fit: FitMax, ExactLimit: -1})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(res.Cost-want) > testTol*want || !res.Optimal {
			t.Fatalf("max fit %v (optimal %v), exact %v", res.Cost, res.Optimal, want)
		}
	}
}

// fit "max" with node types no single type holds goes through the ray
// machinery with ρ = 1 and must still be exact.
func TestMaxFitNodes(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for it := 0; it < 100; it++ {
		in := randInstance(r, 2, 4+r.IntN(5), 2+r.IntN(3), true)
		in.Caps = in.Caps[:2]
		ok := true
		for _, u := range in.U {
			ok = ok && len(fittingNodes(u, in.Caps)) > 0
		}
		if !ok || len(MinShapes(in, in.K)) > in.K {
			continue
		}
		_, _, want, err := Exact(in, MaxCost)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Solve(context.Background(), in, Options{Fit: FitMax, ExactLimit: -1})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(res.Cost-want) > 1e-6*want {
			t.Fatalf("it %d: max fit with nodes %v, exact %v", it, res.Cost, want)
		}
	}
}

func TestAggregate(t *testing.T) {
	d, w, idx := Aggregate([][]float64{{1, 2}, {0, 1}, {1, 2}, {0, 1}, {3, 0}}, []float64{1, 2, 3, 4, 5})
	if len(d) != 3 || w[0] != 6 || w[1] != 4 || w[2] != 5 {
		t.Fatalf("distinct %v weights %v", d, w)
	}
	if idx[0] != 1 || idx[2] != 1 || idx[1] != 0 || idx[4] != 2 {
		t.Fatalf("index %v", idx)
	}
}

// TestAggregateMatchesStableSort: hashing then sorting the distinct sizes
// gives exactly what a stable sort of all inputs gives (the method before
// it): same distinct sizes in order, same per-input index, weights summed
// in the same order (bit-equal), with −0 and 0 merged.
func TestAggregateMatchesStableSort(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 44))
	vals := []float64{0, math.Copysign(0, -1), 0.1, 0.25, 1, 3}
	for it := 0; it < 200; it++ {
		n, d := 1+r.IntN(60), 1+r.IntN(3)
		sizes := make([][]float64, n)
		w := make([]float64, n)
		for i := range sizes {
			sizes[i] = make([]float64, d)
			for k := range sizes[i] {
				sizes[i][k] = vals[r.IntN(len(vals))]
			}
			w[i] = r.Float64()
		}
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return lexCmp(sizes[order[a]], sizes[order[b]]) < 0 })
		var wantD [][]float64
		var wantW []float64
		wantIdx := make([]int, n)
		for k, i := range order {
			if k == 0 || lexCmp(sizes[order[k-1]], sizes[i]) < 0 {
				wantD = append(wantD, sizes[i])
				wantW = append(wantW, 0)
			}
			wantIdx[i] = len(wantD) - 1
			wantW[len(wantW)-1] += w[i]
		}
		gotD, gotW, gotIdx := Aggregate(sizes, w)
		if len(gotD) != len(wantD) || !slices.Equal(gotW, wantW) || !slices.Equal(gotIdx, wantIdx) {
			t.Fatalf("it %d: got %v %v %v, want %v %v %v", it, gotD, gotW, gotIdx, wantD, wantW, wantIdx)
		}
		for k := range gotD {
			if &gotD[k][0] != &wantD[k][0] {
				t.Fatalf("it %d: distinct %d is not the first input holding it", it, k)
			}
		}
	}
}

// Solve honours its context: a cancelled context still gives a valid answer.
func TestSolveCancelled(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	in := randInstance(r, 2, 12, 3, false)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Solve(ctx, in, Options{ExactLimit: -1, NoJoins: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut {
		t.Error("not marked timed out")
	}
	_ = res
}

// The Fenwick sweep over chains and the direct per-candidate sums compute
// the same Lagrangian values.
func TestLagrangeEvalPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for it := 0; it < 60; it++ {
		in := randInstance(r, 2+it%2, 5+r.IntN(10), 1+r.IntN(4), it%3 == 0)
		dirs := MixRays(1 + r.IntN(6))
		if it%2 == 1 {
			dirs = LatticeRays(3, 1+r.IntN(4))
		}
		rp := buildRayProblem(context.Background(), in, dirs, Cost)
		a, b := newLagrange(rp, in.K), newLagrange(rp, in.K)
		a.direct, b.direct = true, false
		for j := range a.lambda {
			a.lambda[j] = r.Float64() * 2 * in.W[j]
			b.lambda[j] = a.lambda[j]
		}
		a.eval()
		b.eval()
		for c := range a.v {
			if math.Abs(a.v[c]-b.v[c]) > 1e-9*(1+math.Abs(a.v[c])) {
				t.Fatalf("it %d cand %d: direct %v, sweep %v", it, c, a.v[c], b.v[c])
			}
		}
		if math.Abs(a.value-b.value) > 1e-9*(1+math.Abs(a.value)) {
			t.Fatalf("L: direct %v, sweep %v", a.value, b.value)
		}
	}
}

// Rays laid out evenly in raw units (cores against GB) lose far more than
// the same number laid out in normalized units: with totals of 64 cores and
// 1024 GB, raw mix rays crowd one end of the normalized quarter-plane.
func TestRawUnitsBalloon(t *testing.T) {
	R := []float64{64, 1024}
	for _, m := range []int{4, 10, 20} {
		raw := MixRays(m)
		var norm [][]float64
		for _, v := range raw.Vecs {
			x, y := v[0]/R[0], v[1]/R[1]
			norm = append(norm, []float64{x / (x + y), y / (x + y)})
		}
		rhoRaw := rho2D(norm)
		if rhoRaw < 1+4/float64(m) {
			t.Errorf("m=%d: raw-unit rays lose only %v, normalized %v", m, rhoRaw, raw.Rho)
		}
	}
}

// Rounding to the nearest ray by angle, instead of the cheapest dominating
// point, breaks the ρ bound.
func TestNearestAngleIsWorse(t *testing.T) {
	d := MixRays(4)
	r := rand.New(rand.NewPCG(15, 16))
	worst := 0.0
	for it := 0; it < 20000; it++ {
		s := randPoint(r, 2)
		phi := math.Atan2(s[1], s[0])
		best, bd := 0, math.Inf(1)
		for k, v := range d.Vecs {
			if a := math.Abs(math.Atan2(v[1], v[0]) - phi); a < bd {
				best, bd = k, a
			}
		}
		worst = math.Max(worst, Level(s, d.Vecs[best])/Cost(s))
	}
	if worst <= d.Rho*(1+testTol) {
		t.Fatalf("nearest-angle rounding stayed within ρ = %v (worst %v)", d.Rho, worst)
	}
}

// Finer ray sets are not nested in coarser ones, so a finer level can come
// out worse; Solve keeps the best level's answer.
func TestKeepsBestLevel(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	worseSeen := false
	for it := 0; it < 150; it++ {
		in := randInstance(r, 2, 6+r.IntN(8), 2+r.IntN(3), false)
		res, err := Solve(context.Background(), in, Options{NoMIP: it%2 == 0, ExactLimit: -1, NoJoins: true})
		if err != nil {
			t.Fatal(err)
		}
		best := math.Inf(1)
		for i, l := range res.Levels {
			best = math.Min(best, l.Cost)
			if i > 0 && l.RayValue > res.Levels[i-1].RayValue*(1+testTol) {
				worseSeen = true
			}
		}
		if len(res.Levels) > 0 && res.Cost > best*(1+testTol) {
			t.Fatalf("cost %v but a level reached %v", res.Cost, best)
		}
		checkShapes(t, in, res)
	}
	if !worseSeen {
		t.Log("no finer level came out worse on these instances")
	}
}

// Small instances are answered exactly by default.
func TestSolveSmallIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	for it := 0; it < 50; it++ {
		in := randInstance(r, 2+it%2, 4+r.IntN(6), 1+r.IntN(3), it%2 == 0)
		if len(MinShapes(in, in.K)) > in.K {
			continue
		}
		_, _, opt, err := Exact(in, Cost)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Solve(context.Background(), in, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(res.Cost-opt) > testTol*opt || !res.Optimal || res.Epsilon != 0 {
			t.Fatalf("cost %v optimal %v ε %v, exact %v", res.Cost, res.Optimal, res.Epsilon, opt)
		}
		checkShapes(t, in, res)
	}
}

// Every level's reported ray bound is a true lower bound on OPT_rays (from
// the level DP), and a level marked exact found OPT_rays: this checks the
// Lagrangian reduction in front of the MIP and the MIP's verdicts.
func TestLevelBoundsHonest(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	ctx := context.Background()
	exactMIP := 0
	for it := 0; it < 80; it++ {
		d := 2 + it%2
		in := randInstance(r, d, 6+r.IntN(8), 2+r.IntN(3), it%3 == 0)
		if len(MinShapes(in, in.K)) > in.K {
			continue
		}
		eps := []float64{0.5, 0.25}[it%2]
		res, err := Solve(ctx, in, Options{Epsilon: eps, NoDP: true, ExactLimit: -1, MaxIter: 5 + it%20, NoJoins: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range res.Levels {
			var dirs *Directions
			if d == 2 {
				dirs = MixRays(l.Param)
			} else {
				dirs = LatticeRays(3, l.Param)
			}
			rp := buildRayProblem(ctx, in, dirs, Cost)
			_, opt, ok := levelDP(ctx, rp, in.K)
			if !ok {
				continue
			}
			if l.RayBound > opt*(1+testTol) {
				t.Fatalf("it %d: ray bound %v above OPT_rays %v (%s)", it, l.RayBound, opt, l.Method)
			}
			if l.Exact && math.Abs(l.RayValue-opt) > 1e-6*opt {
				t.Fatalf("it %d: marked exact at %v, OPT_rays %v (%s)", it, l.RayValue, opt, l.Method)
			}
			if l.Exact && strings.Contains(l.Method, "mip") {
				exactMIP++
			}
		}
	}
	if exactMIP < 10 {
		t.Fatalf("only %d levels went through the MIP", exactMIP)
	}
}

// The paper's remark that fit "max" needs only "a very simple dynamic
// program" holds without node types; node types that split the requests
// break it. Here the contiguous key order A (.5), B (.55), C (.6) admits no
// feasible split into two groups (B shares no node type with A or C), while
// {A, C}, {B} is optimal. MaxFitDP declines and Solve finds the optimum.
func TestMaxFitPaperClaimNeedsOneNode(t *testing.T) {
	in := &Instance{
		U:    [][]float64{{0.5, 0}, {0, 0.55}, {0.6, 0}},
		W:    []float64{1, 1, 1},
		Caps: [][]float64{{1, 0.1}, {0.1, 1}},
		K:    2,
	}
	if _, _, _, ok := MaxFitDP(in); ok {
		t.Fatal("MaxFitDP accepted node types that split the requests")
	}
	keys := []float64{0.5, 0.55, 0.6}
	levels, _ := maxFitLevels(keys, in.W, 2)
	// the contiguous split puts B with A or with C: no node holds that join
	lo := levels[0]
	groups := [][]int{{}, {}}
	for i := range keys {
		g := 0
		if i > lo {
			g = 1
		}
		groups[g] = append(groups[g], i)
	}
	feasible := true
	for _, g := range groups {
		j := Join(in.U, g)
		if !Fits(j, in.Caps[0]) && !Fits(j, in.Caps[1]) {
			feasible = false
		}
	}
	if feasible {
		t.Fatalf("contiguous split %v is feasible", groups)
	}
	res, err := Solve(context.Background(), in, Options{Fit: FitMax, ExactLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.Cost-1.75) > testTol || !res.Optimal {
		t.Fatalf("cost %v (optimal %v), want 1.75", res.Cost, res.Optimal)
	}
}

// In many dimensions the first scheduled ε needs too many directions; the
// finest lattice that fits runs instead of nothing.
func TestManyDimensionsFallback(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	in := randInstance(r, 6, 40, 4, true)
	res, err := Solve(context.Background(), in, Options{MaxCandidates: 200000, ExactLimit: -1, NoJoins: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Levels) == 0 || res.Levels[0].Family != FamilyLattice || res.Levels[0].Rays*len(in.Caps)*len(in.U) > 200000 {
		t.Fatalf("levels %+v", res.Levels)
	}
	if res.LowerBound > res.Cost || res.Cost > res.Levels[0].Cost*(1+testTol) {
		t.Fatalf("cost %v bound %v levels %+v", res.Cost, res.LowerBound, res.Levels)
	}
	checkShapes(t, in, res)
}

// The grid joins contain an optimal solution: every shape of Exact's
// optimum is a grid join, and Solve (first ray level, then the join level)
// proves the exact optimum on random small instances.
func TestGridJoinsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	ctx := context.Background()
	for it := 0; it < 150; it++ {
		d := 2 + it%3
		in := randInstance(r, d, 5+r.IntN(6), 1+r.IntN(4), it%3 == 1)
		if len(MinShapes(in, in.K)) > in.K {
			continue
		}
		shapes, _, opt, err := Exact(in, Cost)
		if err != nil {
			t.Fatal(err)
		}
		joins, _ := GridJoins(ctx, in)
		keys := map[string]bool{}
		for _, s := range joins {
			keys[vecKey(s)] = true
		}
		for _, s := range shapes {
			if !keys[vecKey(s)] {
				t.Fatalf("it %d: optimal shape %v is not among the %d grid joins", it, s, len(joins))
			}
		}
		res, err := Solve(ctx, in, Options{ExactLimit: -1, NoDP: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.LowerBound > opt*(1+testTol) || res.Cost < opt*(1-testTol) {
			t.Fatalf("it %d: cost %v bound %v, OPT %v", it, res.Cost, res.LowerBound, opt)
		}
		hasJoins := false
		for _, l := range res.Levels {
			hasJoins = hasJoins || l.Family == FamilyJoins
		}
		if !hasJoins && !(len(res.Levels) == 1 && res.Optimal) {
			t.Fatalf("it %d: no join level: %+v", it, res.Levels)
		}
		if !res.Optimal || math.Abs(res.Cost-opt) > 1e-6*opt {
			t.Fatalf("it %d: join level gave %v (optimal %v), OPT %v: %+v", it, res.Cost, res.Optimal, opt, res.Levels)
		}
		checkShapes(t, in, res)
	}
}

// rho2D computes exactly, for any finite set of 2D directions, the worst
// ratio sup_s min_v cost(round_v(s))/cost(s): in mix coordinates with gaps
// g between consecutive rays (and between 0 or 1 and the extreme rays) it is
// 1/(1 − max g). It is the independent check of the 2D ρ formulas.
func rho2D(vecs [][]float64) float64 {
	ps := make([]float64, 0, len(vecs)+2)
	for _, v := range vecs {
		ps = append(ps, v[1]/(v[0]+v[1]))
	}
	sort.Float64s(ps)
	gap := ps[0]
	for i := 1; i < len(ps); i++ {
		gap = math.Max(gap, ps[i]-ps[i-1])
	}
	gap = math.Max(gap, 1-ps[len(ps)-1])
	if gap >= 1 {
		return math.Inf(1)
	}
	return 1 / (1 - gap)
}

// gridJoinsNaive is GridJoins by its definition: every grid point that
// fits a node type and is the join of the requests it dominates.
func gridJoinsNaive(in *Instance) (joins [][]float64, covers [][]int32) {
	d := in.Dim()
	vals := make([][]float64, d)
	size := 1
	for i := range vals {
		for _, u := range in.U {
			vals[i] = append(vals[i], u[i])
		}
		slices.Sort(vals[i])
		vals[i] = slices.Compact(vals[i])
		size *= len(vals[i])
	}
	for k := 0; k < size; k++ {
		s := make([]float64, d)
		for i, x := 0, k; i < d; i++ {
			s[i] = vals[i][x%len(vals[i])]
			x /= len(vals[i])
		}
		if len(in.Caps) > 0 && len(fittingNodes(s, in.Caps)) == 0 {
			continue
		}
		var cov []int
		for j, u := range in.U {
			if Fits(u, s) {
				cov = append(cov, j)
			}
		}
		if len(cov) == 0 || !equalVec(Join(in.U, cov), s) {
			continue
		}
		c32 := make([]int32, len(cov))
		for x, j := range cov {
			c32[x] = int32(j)
		}
		joins, covers = append(joins, s), append(covers, c32)
	}
	return joins, covers
}

// GridJoins' pruned depth-first walk finds exactly the grid joins of the
// definition, in the same order with the same covers.
func TestGridJoinsWalk(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for it := 0; it < 200; it++ {
		d := 1 + it%4
		in := randInstance(r, d, 3+r.IntN(30), 1+r.IntN(4), it%3 == 1)
		joins, covers := GridJoins(context.Background(), in)
		wj, wc := gridJoinsNaive(in)
		if !reflect.DeepEqual(joins, wj) || !reflect.DeepEqual(covers, wc) {
			t.Fatalf("it %d: got %d joins %v\nwant %d %v", it, len(joins), joins, len(wj), wj)
		}
	}
}

// On the grid-join problem the request-side evaluation of the Lagrangian
// gives bit-identical V_c, opened set and L(λ) to the direct sums.
func TestEvalByRequestIdentical(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	for it := 0; it < 60; it++ {
		in := randInstance(r, 2+it%3, 5+r.IntN(40), 1+r.IntN(4), it%3 == 1)
		joins, covers := GridJoins(context.Background(), in)
		rp := buildJoinProblem(in, joins, covers, Cost)
		lg := newLagrange(rp, in.K)
		if lg.byReq == nil {
			t.Fatalf("it %d: no request index on the join problem", it)
		}
		for j := range lg.lambda {
			lg.lambda[j] = in.W[j] * r.Float64() * 1.5
		}
		lg.eval()
		got, open, value := slices.Clone(lg.v), slices.Clone(lg.open), lg.value
		lg.byReq = nil
		lg.eval()
		if !slices.Equal(got, lg.v) || !slices.Equal(open, lg.open) || value != lg.value {
			t.Fatalf("it %d: by request %v %v %v, direct %v %v %v", it, got, open, value, lg.v, lg.open, lg.value)
		}
	}
}
