package cmmf

import (
	"context"
	"math"
	"testing"
)

// The paper's worked examples, with individual machines as unit types
// (machine mK is type K-1). want holds totals per user; for integer cases
// where CMMF is not unique, wantSorted holds the sorted totals instead.
func TestPaperExamples(t *testing.T) {
	ones := func(n int) []int64 {
		c := make([]int64, n)
		for k := range c {
			c[k] = 1
		}
		return c
	}
	m := func(ks ...int) []int { // 1-based machine numbers to types
		out := make([]int, len(ks))
		for k, v := range ks {
			out[k] = v - 1
		}
		return out
	}
	rng := func(a, b int) []int {
		var out []int
		for k := a; k <= b; k++ {
			out = append(out, k)
		}
		return m(out...)
	}
	type round struct {
		level float64
		users []int
	}
	cases := []struct {
		name       string
		caps       []int64
		users      []uspec
		divisible  bool
		want       []float64
		wantSorted []float64
		rounds     []round
	}{
		{
			// Figure 1 / Figure 4 text: fractional CMMF gives u1 and u2 half
			// of m4 each: (1.5, 1.5, 3, 4).
			name: "figure 1 divisible", caps: ones(10), divisible: true,
			users:  []uspec{u(m(1, 4)...), u(m(3, 4)...), u(m(2, 3, 4, 6, 7)...), u(rng(5, 10)...)},
			want:   []float64{1.5, 1.5, 3, 4},
			rounds: []round{{1.5, []int{0, 1}}, {3, []int{2}}, {4, []int{3}}},
		},
		{
			// Figure 4: with indivisible machines one CMMF allocation is
			// a1={m1,m4}, a2={m3}, a3={m2,m6,m7}, a4={m5,m8,m9,m10}; the
			// alternative gives m4 to u2. Sorted: (1, 2, 3, 4).
			name: "figure 1 integer", caps: ones(10),
			users:      []uspec{u(m(1, 4)...), u(m(3, 4)...), u(m(2, 3, 4, 6, 7)...), u(rng(5, 10)...)},
			wantSorted: []float64{1, 2, 3, 4},
		},
		{
			// Figure 3: u1 can use m1..m3, u2 m3..m10; CMMF gives m3 to u1.
			name: "figure 3 divisible", caps: ones(10), divisible: true,
			users:  []uspec{u(rng(1, 3)...), u(rng(3, 10)...)},
			want:   []float64{3, 7},
			rounds: []round{{3, []int{0}}, {7, []int{1}}},
		},
		{
			name: "figure 3 integer", caps: ones(10),
			users: []uspec{u(rng(1, 3)...), u(rng(3, 10)...)},
			want:  []float64{3, 7},
		},
		{
			// §5 two-user example: c1={m1,m2}, c2={m2..m5}; M1 = 2, then
			// u2 alone rises to 3.
			name: "section 5 two users divisible", caps: ones(5), divisible: true,
			users:  []uspec{u(m(1, 2)...), u(rng(2, 5)...)},
			want:   []float64{2, 3},
			rounds: []round{{2, []int{0}}, {3, []int{1}}},
		},
		{
			name: "section 5 two users integer", caps: ones(5),
			users:  []uspec{u(m(1, 2)...), u(rng(2, 5)...)},
			want:   []float64{2, 3},
			rounds: []round{{2, []int{0}}, {3, []int{1}}},
		},
		{
			// Figure 5: c1={m1,m2}, c2={m2..m5}, c3={m5..m9}. Round 1: all
			// at 2; round 2: u2 and u3 at 3 (u2 freezes); round 3: u3 at 4.
			name: "figure 5 divisible", caps: ones(9), divisible: true,
			users:  []uspec{u(m(1, 2)...), u(rng(2, 5)...), u(rng(5, 9)...)},
			want:   []float64{2, 3, 4},
			rounds: []round{{2, []int{0}}, {3, []int{1}}, {4, []int{2}}},
		},
		{
			name: "figure 5 integer", caps: ones(9),
			users:  []uspec{u(m(1, 2)...), u(rng(2, 5)...), u(rng(5, 9)...)},
			want:   []float64{2, 3, 4},
			rounds: []round{{2, []int{0}}, {3, []int{1}}, {4, []int{2}}},
		},
		{
			// Issue #2: 4 machines, weights (1, 2), both can use all. Only
			// (2, 2) is leximin-optimal among integer allocations (shares
			// (2, 1)); (1, 3) gives shares (1, 1.5), which sorts lower.
			name: "weights 1 and 2 integer", caps: []int64{4},
			users: []uspec{{w: 1, allowed: []int{0}}, {w: 2, allowed: []int{0}}},
			want:  []float64{2, 2},
		},
		{
			name: "weights 1 and 2 divisible", caps: []int64{4}, divisible: true,
			users: []uspec{{w: 1, allowed: []int{0}}, {w: 2, allowed: []int{0}}},
			want:  []float64{4.0 / 3, 8.0 / 3},
		},
		{
			// Theorem 1's instance: each user brings one machine; u1 can
			// use both, u2 only m2. Independent allocation gives u2 half a
			// machine; CMMF gives each user one.
			name: "theorem 1 sharing incentive", caps: ones(2), divisible: true,
			users: []uspec{u(m(1, 2)...), u(m(2)...)},
			want:  []float64{1, 1},
		},
		{
			// §7.3 Mesos experiment, 4 machine types of 40 cores: Hadoop
			// (any), Spark (high-memory), CUDA (GPU), MPI (10 Gbps: cluster
			// and GPU nodes) each get a quarter.
			name: "mesos four jobs", caps: []int64{40, 40, 40, 40}, divisible: true,
			users: []uspec{u(0, 1, 2, 3), u(1), u(3), u(2, 3)},
			want:  []float64{40, 40, 40, 40},
		},
		{
			// After CUDA finishes: Spark 1/4, Hadoop and MPI 3/8 each.
			name: "mesos after cuda", caps: []int64{40, 40, 40, 40}, divisible: true,
			users: []uspec{u(0, 1, 2, 3), u(1), u(2, 3)},
			want:  []float64{60, 40, 60},
		},
		{
			// A demand cap frees machines for the others.
			name: "demand cap", caps: []int64{10}, divisible: true,
			users:  []uspec{{w: 1, allowed: []int{0}, capped: true, d: 2}, u(0), u(0)},
			want:   []float64{2, 4, 4},
			rounds: []round{{2, []int{0}}, {4, []int{1, 2}}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := mk(tc.caps, tc.divisible, tc.users...)
			methods := []string{MethodFlow}
			if tc.divisible {
				methods = append(methods, MethodLP)
			}
			for _, method := range methods {
				var a *Allocation
				var err error
				if method == MethodLP {
					a, err = solveDivisibleLP(context.Background(), in)
				} else {
					a = solveFlow(t, in)
				}
				if err != nil {
					t.Fatal(err)
				}
				checkValid(t, in, a)
				got := a.Total
				want := tc.want
				if tc.wantSorted != nil {
					got = append([]float64(nil), a.Total...)
					sortFloats(got)
					want = tc.wantSorted
				}
				for i := range want {
					if math.Abs(got[i]-want[i]) > 1e-9 {
						t.Fatalf("%s: totals %v, want %v", method, got, want)
					}
				}
				if tc.rounds != nil {
					if len(a.Rounds) != len(tc.rounds) {
						t.Fatalf("%s: rounds %+v, want %+v", method, a.Rounds, tc.rounds)
					}
					for k, r := range tc.rounds {
						if math.Abs(a.Rounds[k].Level-r.level) > 1e-9 || !equalInts(a.Rounds[k].Users, r.users) {
							t.Fatalf("%s: round %d = %+v, want %+v", method, k, a.Rounds[k], r)
						}
					}
				}
			}
		})
	}
}

// TestIndependentAllocationFigure2: the paper's Figure 2 shares.
func TestIndependentAllocationFigure2(t *testing.T) {
	ones := []int64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	in := mk(ones, true, u(0, 3), u(2, 3), u(1, 2, 3, 5, 6), u(4, 5, 6, 7, 8, 9))
	got := Independent(in)
	want := []float64{1 + 1.0/3, 0.5 + 1.0/3, 1 + 0.5 + 1.0/3 + 1, 1 + 1 + 1 + 1 + 1}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("independent %v, want %v", got, want)
		}
	}
}

// TestMisreportSupersetHurts: §4.2.2's example. u1 can only use m1, u2 both
// machines. Claiming both machines cannot help u1 (and here costs it its
// machine when the tie-break hands it m2).
func TestMisreportSupersetHurts(t *testing.T) {
	truth := solveFlow(t, mk([]int64{1, 1}, false, u(0), u(0, 1)))
	if truth.Total[0] != 1 || truth.Total[1] != 1 {
		t.Fatalf("truthful totals %v, want [1 1]", truth.Total)
	}
	lie := mk([]int64{1, 1}, false, u(0, 1), u(0, 1))
	a := solveFlow(t, lie)
	if a.Amount[0][0] > 1 {
		t.Fatalf("liar got %v of m1", a.Amount[0][0])
	}
}

func sortFloats(a []float64) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}
