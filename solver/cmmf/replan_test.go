package cmmf

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/xflex/xflex/lp"
	"github.com/xflex/xflex/solver/solvertest"
)

// randomCurrent gives each machine to a random user (or nobody), ignoring
// constraints: a stale allocation is allowed, it just has to move.
func randomCurrent(r *rand.Rand, in *Instance, fractional bool) {
	in.Current = make([][]float64, len(in.Users))
	for i := range in.Current {
		in.Current[i] = make([]float64, len(in.Types))
	}
	for t, ty := range in.Types {
		for k := int64(0); k < ty.Cap; k++ {
			if fractional {
				left := 1.0
				for i := range in.Users {
					v := math.Round(r.Float64()*left*4) / 4
					in.Current[i][t] += v
					left -= v
				}
				continue
			}
			if w := r.IntN(len(in.Users) + 1); w < len(in.Users) {
				in.Current[w][t]++
			}
		}
	}
}

// TestReplanIntegerMinMoves: among all leximin-optimal integer allocations
// (found by enumeration), Replan's has the fewest moves.
func TestReplanIntegerMinMoves(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	n := 400
	if testing.Short() {
		n = 100
	}
	for it := 0; it < n; it++ {
		in := randInstance(r, false, 3, 3, 4)
		randomCurrent(r, in, false)
		a := solveFlow(t, in)
		if err := Replan(context.Background(), in, a); err != nil {
			t.Fatal(err)
		}
		checkValid(t, in, a)
		want, optima := bruteInteger(in)
		if cmpLex(ratShares(in, intTotals(a)), want) != 0 {
			t.Fatalf("instance %d: replanned allocation is not optimal", it)
		}
		got := movedAmount(in, a, nil)
		best := math.Inf(1)
		for _, cnt := range optima {
			mv := 0.0
			for i := range in.Users {
				for tt := range in.Types {
					mv += math.Max(0, in.Current[i][tt]-float64(cnt[i][tt]))
				}
			}
			best = math.Min(best, mv)
		}
		if got != best {
			t.Fatalf("instance %d: replan moves %v machines, brute force %v\n%+v\ncurrent %v", it, got, best, in, in.Current)
		}
	}
}

// TestReplanDivisibleMinMoves compares the min-cost-flow replan with an LP
// that maximises the amount kept for the same totals.
func TestReplanDivisibleMinMoves(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	for it := 0; it < 300; it++ {
		in := randInstance(r, true, 4, 4, 4)
		randomCurrent(r, in, true)
		a := solveFlow(t, in)
		totals := append([]float64(nil), a.Total...)
		if err := Replan(context.Background(), in, a); err != nil {
			t.Fatal(err)
		}
		checkValid(t, in, a)
		for i := range totals {
			if math.Abs(totals[i]-a.Total[i]) > 1e-9 {
				t.Fatalf("instance %d: replan changed user %d's total %v → %v", it, i, totals[i], a.Total[i])
			}
		}
		got := movedAmount(in, a, nil)

		m := lp.NewModel()
		m.Maximize = true
		curSum := 0.0
		byType := make([][]int, len(in.Types))
		for i, u := range in.Users {
			var cols []int
			for _, tt := range u.Allowed {
				x := m.AddVar("", 0, lp.Inf, 0, false)
				kept := m.AddVar("", 0, in.Current[i][tt], 1, false)
				m.AddRow("", []int{kept, x}, []float64{1, -1}, math.Inf(-1), 0)
				cols = append(cols, x)
				byType[tt] = append(byType[tt], x)
			}
			m.AddRow("", cols, ones(len(cols)), totals[i], totals[i])
			for _, v := range in.Current[i] {
				curSum += v
			}
		}
		for tt, cols := range byType {
			if len(cols) > 0 {
				m.AddRow("", cols, ones(len(cols)), math.Inf(-1), float64(in.Types[tt].Cap))
			}
		}
		sol, err := lp.Solve(context.Background(), m, lp.Options{})
		if err != nil || sol.Status != lp.Optimal {
			t.Fatalf("instance %d: LP %v %v", it, err, sol)
		}
		want := curSum - sol.Objective
		if math.Abs(got-want) > 1e-7 {
			t.Fatalf("instance %d: replan moves %v, LP %v", it, got, want)
		}
	}
}

// TestReplanHugeCounts: the whole-machine replan built one flow node per
// level of the optimal totals, so a billion machines of a type (the
// robustness sweep set testdata/replan.json's counts to 1e9) ran out of
// memory. Levels now come in runs, one node per run.
func TestReplanHugeCounts(t *testing.T) {
	cases := []struct {
		name      string
		body      string
		wantMoved float64
	}{
		{"replan.json with counts 1e9", `{"machine_types": [{"name": "small", "count": 1000000000, "attributes": {"zone": "a"}}, {"name": "large", "count": 1000000000, "attributes": {"zone": "b"}}],
			"users": [{"name": "batch", "weight": 1}, {"name": "web", "weight": 2, "require": [{"attr": "zone", "op": "in", "value": ["b"]}]}, {"name": "ml", "demand": 3, "allowed": ["small"]}],
			"divisible": false, "current": {"batch": {"small": 5, "large": 2}, "ml": {"small": 1}}, "seed": 1}`, 2},
		{"equal weights on 1e9 machines, current split unevenly", `{"machine_types": [{"name": "m", "count": 1000000000}],
			"users": [{"name": "a"}, {"name": "b"}, {"name": "c", "demand": 7}],
			"divisible": false, "current": {"a": {"m": 999999990}, "c": {"m": 10}}}`,
			// c keeps its demand of 7 (3 move); a and b split the rest
			// 499999997/499999996 and a keeps the larger half.
			(999999990 - 499999997) + 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, xe := solvertest.Run(t, Problem(), []byte(c.body))
			if xe != nil {
				t.Fatal(xe)
			}
			var resp struct {
				Result struct {
					Moved float64 `json:"moved"`
				} `json:"result"`
			}
			if err := json.Unmarshal(out, &resp); err != nil {
				t.Fatal(err)
			}
			if resp.Result.Moved != c.wantMoved {
				t.Fatalf("moved %v, want %v\n%s", resp.Result.Moved, c.wantMoved, out)
			}
		})
	}
}
