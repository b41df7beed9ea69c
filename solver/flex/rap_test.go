package flex

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// bruteRAP enumerates every allocation with Σs ≤ budget.
func bruteRAP(r *rapProblem, agg Aggregate) float64 {
	n := len(r.lo)
	s := append([]int(nil), r.lo...)
	best := math.Inf(1)
	var rec func(j, used int)
	rec = func(j, used int) {
		if j == n {
			best = math.Min(best, rapValue(r, s, agg))
			return
		}
		for v := r.lo[j]; v <= r.hi[j] && used+v <= r.budget; v++ {
			s[j] = v
			rec(j+1, used+v)
		}
	}
	rec(0, 0)
	return best
}

func feasibleAlloc(t *testing.T, r *rapProblem, s []int) {
	t.Helper()
	tot := 0
	for j, v := range s {
		if v < r.lo[j] || v > r.hi[j] {
			t.Fatalf("s[%d]=%d outside [%d,%d]", j, v, r.lo[j], r.hi[j])
		}
		tot += v
	}
	if tot > r.budget {
		t.Fatalf("allocation uses %d of %d", tot, r.budget)
	}
}

func TestRAPAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for it := 0; it < 700; it++ {
		m := allMetrics[it%len(allMetrics)]
		agg := Aggregate((it / len(allMetrics)) % 2)
		in := randInstance(rng, 1+rng.IntN(4), 1+rng.IntN(9), m, agg)
		r := in.rapProblem()
		want := bruteRAP(r, agg)
		if agg == Max {
			s := rapMinimax(r)
			feasibleAlloc(t, r, s)
			if got := rapValue(r, s, Max); !(got == want || near(got, want)) {
				t.Fatalf("instance %d (%s): minimax greedy %g, brute force %g", it, m, got, want)
			}
			continue
		}
		s, ok := rapDPSum(r)
		if !ok {
			t.Fatal("DP refused a tiny instance")
		}
		feasibleAlloc(t, r, s)
		if got := rapValue(r, s, Sum); !(got == want || near(got, want)) {
			t.Fatalf("instance %d (%s): DP %g, brute force %g", it, m, got, want)
		}
		if in.rapConvex() {
			s := rapConvexSum(r)
			feasibleAlloc(t, r, s)
			if got := rapValue(r, s, Sum); !(got == want || near(got, want)) {
				t.Fatalf("instance %d (%s): greedy %g, brute force %g", it, m, got, want)
			}
		}
	}
}

// TestRAPConvexity checks the convexity claim behind the greedy: for the
// metrics rapConvex accepts (tardiness included), every F_j has
// non-decreasing first differences on s ≥ 1.
func TestRAPConvexity(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	// convexTol absorbs round-off in second differences of penalties of
	// magnitude ≤ 1e3.
	const convexTol = 1e-9
	for it := 0; it < 500; it++ {
		m := allMetrics[it%len(allMetrics)]
		in := randInstance(rng, 3, 2+rng.IntN(30), m, Sum)
		if !in.rapConvex() {
			continue
		}
		r := in.rapProblem()
		for j := range in.Jobs {
			for s := 2; s < r.hi[j]; s++ {
				if d := r.f(j, s-1) - 2*r.f(j, s) + r.f(j, s+1); d < -convexTol*math.Max(1, math.Abs(r.f(j, s))) {
					t.Fatalf("%s: F_%d not convex at %d (second difference %g)", m, j, s, d)
				}
			}
		}
	}
}

// TestGreedyFailsOnTardy shows why tardy jobs need the DP: a job that
// needs 3 more slots to become on time is never chosen by the marginal
// greedy, whose one-slot gains are 0.
func TestGreedyFailsOnTardy(t *testing.T) {
	in := &Instance{S: 4, Agg: Sum, Jobs: []Job{
		{ID: "a", Work: 4, Min: 1, Max: 4, Weight: 1, Deadline: 1, Metric: Tardy},
	}}
	r := in.rapProblem()
	g := rapValue(r, rapConvexSum(r), Sum)
	s, _ := rapDPSum(r)
	if d := rapValue(r, s, Sum); !(g == 1 && d == 0) {
		t.Fatalf("greedy %g, DP %g; want 1 and 0", g, d)
	}
}

// TestPaperMinimaxTransform checks the paper's claim that the minimax RAP
// reduces to the minisum RAP of G_j(s) = Σ_{i≤s} F_j(i). With penalties
// that fall as slots grow, G_j is concave, and minimising Σ G_j hands out
// no slot beyond the minima (every F_j(i) > 0 adds cost): on the Lemma 1
// instance it gives a maximum penalty of 6 where the minimax optimum is 3.
// The largest-current-penalty greedy finds 3.
func TestPaperMinimaxTransform(t *testing.T) {
	in := lemma1Instance()
	r := in.rapProblem()
	G := &rapProblem{lo: r.lo, hi: r.hi, budget: r.budget, f: func(j, s int) float64 {
		v := 0.0
		for i := 1; i <= s; i++ {
			v += r.f(j, i)
		}
		return v
	}}
	// Concavity of G: second differences are F(s+1) − F(s) ≤ 0.
	if d := G.f(0, 1) - 2*G.f(0, 2) + G.f(0, 3); d >= 0 {
		t.Fatalf("G not concave here (second difference %g)", d)
	}
	// Minimise Σ G exactly by enumeration and read off the minimax value.
	best, bs := math.Inf(1), []int(nil)
	for a := r.lo[0]; a <= r.hi[0]; a++ {
		for b := r.lo[1]; b <= r.hi[1] && a+b <= r.budget; b++ {
			if v := G.f(0, a) + G.f(1, b); v < best {
				best, bs = v, []int{a, b}
			}
		}
	}
	if got := rapValue(r, bs, Max); got != 6 {
		t.Fatalf("transform's allocation %v has max penalty %g, want 6", bs, got)
	}
	if got := rapValue(r, rapMinimax(r), Max); got != 3 {
		t.Fatalf("minimax greedy gives %g, want 3", got)
	}
	if want := bruteRAP(r, Max); want != 3 {
		t.Fatalf("brute-force minimax %g, want 3", want)
	}
}

// TestWarmStartMatchesGreedy: the bisection warm start hands out exactly
// the increments the plain greedy takes first, so both allocations agree.
func TestWarmStartMatchesGreedy(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	for it := 0; it < 300; it++ {
		m := []Metric{WeightedResponseTime, Stretch, Lateness, Tardiness, Makespan}[it%5]
		in := randInstance(rng, 1+rng.IntN(30), 20+rng.IntN(400), m, Sum)
		for j := range in.Jobs {
			in.Jobs[j].Min = max(1, in.Jobs[j].Min)
		}
		if tot := func() int {
			x := 0
			for _, j := range in.Jobs {
				x += j.Min
			}
			return x
		}(); tot > in.S {
			continue
		}
		r := in.rapProblem()
		plain := greedyFrom(r, append([]int(nil), r.lo...), func() int {
			x := r.budget
			for _, v := range r.lo {
				x -= v
			}
			return x
		}())
		warm := rapConvexSum(r)
		for j := range plain {
			if plain[j] != warm[j] {
				t.Fatalf("instance %d (%s): plain %v, warm %v", it, m, plain, warm)
			}
		}
	}
}

// TestMinimaxWarmStart: with many spare slots the bisection warm start
// reaches the same minimax value as the plain one-slot-at-a-time greedy.
func TestMinimaxWarmStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	for it := 0; it < 300; it++ {
		m := allMetrics[it%len(allMetrics)]
		in := randInstance(rng, 1+rng.IntN(5), 200+rng.IntN(800), m, Max)
		r := in.rapProblem()
		warm := rapMinimax(r)
		feasibleAlloc(t, r, warm)
		// The plain greedy, forced by a factor check that cannot trigger.
		s := append([]int(nil), r.lo...)
		left := r.budget
		for _, v := range s {
			left -= v
		}
		for left > 0 {
			best, bv := -1, math.Inf(-1)
			for j := range s {
				if s[j] < r.hi[j] && r.f(j, s[j]) > bv {
					best, bv = j, r.f(j, s[j])
				}
			}
			if best < 0 {
				break
			}
			s[best]++
			left--
		}
		if a, b := rapValue(r, warm, Max), rapValue(r, s, Max); !(a == b || near(a, b)) {
			t.Fatalf("instance %d (%s): warm start %g, plain greedy %g", it, m, a, b)
		}
	}
}

// TestHugeSlotsStayCheap: a billion slots and jobs without minima must not
// make the RAP hand out slots one by one.
func TestHugeSlotsStayCheap(t *testing.T) {
	for _, agg := range []Aggregate{Sum, Max} {
		in := &Instance{S: 1_000_000_000, Agg: agg, Jobs: []Job{
			{ID: "a", Work: 1e12, Min: 0, Max: 1_000_000_000, Weight: 1, Metric: WeightedResponseTime},
			{ID: "b", Work: 5e11, Min: 0, Max: 600_000_000, Weight: 2, Metric: WeightedResponseTime},
		}}
		s, _ := in.rapSolve()
		if s[0] < 1 || s[1] < 1 || s[0]+s[1] > in.S {
			t.Fatalf("%s: allocation %v", agg, s)
		}
	}
}

func TestHungarianAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 30))
	for it := 0; it < 300; it++ {
		n := 1 + rng.IntN(6)
		a := make([][]float64, n)
		for i := range a {
			a[i] = make([]float64, n)
			for j := range a[i] {
				a[i][j] = float64(rng.IntN(50)) - 10
			}
		}
		best := math.Inf(1)
		p := identity(n)
		for {
			v := 0.0
			for i, j := range p {
				v += a[i][j]
			}
			best = math.Min(best, v)
			if !nextPerm(p) {
				break
			}
		}
		if got := hungarian(a); got != best {
			t.Fatalf("matrix %v: hungarian %g, brute force %g", a, got, best)
		}
	}
}

// TestWarmStartSurvivesNoisyGains: with S = 1e9 the gains near θ are
// differences of penalties about 1e-8 apart in relative terms, so counting
// increments from them admitted a few more than the budget; the warm start
// then gave up and left the greedy about a billion single steps (the
// robustness sweep's flex request with slots 1e9, ten jobs of work 1e9 and
// min 1 ran for 36 s of CPU on a 200 ms budget). The warm start must hand
// out all but at most n of the spare slots, within the budget.
func TestWarmStartSurvivesNoisyGains(t *testing.T) {
	cases := []struct {
		name     string
		jobs     int
		slots    int
		work     float64
		min, max int
	}{
		{"sweep request: ten jobs of work 1e9 on 1e9 slots", 10, 1_000_000_000, 1e9, 1, 1_000_000_000},
		{"three jobs of work 1e12", 3, 1_000_000_000, 1e12, 1, 1_000_000_000},
		{"seven jobs of work 1 on 1e9 slots, max 2e8", 7, 1_000_000_000, 1, 1, 200_000_000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := &Instance{S: tc.slots, Agg: Sum}
			for j := range tc.jobs {
				in.Jobs = append(in.Jobs, Job{ID: strconv.Itoa(j), Work: tc.work, Min: tc.min, Max: tc.max, Weight: 1, Metric: WeightedResponseTime})
			}
			r := in.rapProblem()
			s := append([]int(nil), r.lo...)
			left := r.budget
			for _, v := range s {
				left -= v
			}
			used := warmStart(r, s, left)
			total := 0
			for j, v := range s {
				if v < r.lo[j] || v > r.hi[j] {
					t.Fatalf("job %d gets %d slots, outside [%d, %d]", j, v, r.lo[j], r.hi[j])
				}
				total += v - r.lo[j]
			}
			if total != used || used > left || used < left-tc.jobs {
				t.Fatalf("warm start handed out %d (counts sum to %d) of %d spare slots; want between %d and %d", used, total, left, left-tc.jobs, left)
			}
		})
	}
}
