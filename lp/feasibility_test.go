package lp

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// checkSolution is the guard every sweep applies to every answer: an
// Optimal or Feasible solution has one value per column and passes Verify
// (bounds, rows, integrality, objective, and for LPs duals and strong
// duality).
func checkSolution(t *testing.T, m *Model, s *Solution, label string) {
	t.Helper()
	if s.Status != Optimal && s.Status != Feasible {
		return
	}
	if len(s.X) != len(m.Vars) {
		t.Errorf("%s: %s %v with len(X)=%d for %d columns", label, s.Backend, s.Status, len(s.X), len(m.Vars))
		return
	}
	if err := Verify(m, s, VerifyTol); err != nil {
		t.Errorf("%s: %s %v fails Verify: %v", label, s.Backend, s.Status, err)
	}
}

// zeroObjective returns m with every cost and the offset set to zero: a
// feasibility-only model.
func zeroObjective(m *Model) *Model {
	for j := range m.Vars {
		m.Vars[j].Cost = 0
	}
	m.ObjOffset = 0
	return m
}

// packModel draws a feasibility-only packing MIP shaped like X-Select's
// exact oracle (solver/xselect/exact.go before it switched to maximising
// the placed count): integer x_tb ≤ what fits, Σ_b x_tb = count_t,
// Σ_t size_tr·x_tb ≤ cap_br, and for types of different owners binaries
// z_tb with x_tb ≤ U·z_tb and z_tb + z_ub ≤ 1 (exlocation). Most draws are
// infeasible, a good share feasible.
func packModel(rng *rand.Rand) *Model {
	T, B, R := 1+rng.IntN(4), 1+rng.IntN(3), 1+rng.IntN(2)
	caps := make([][]float64, B)
	for b := range caps {
		caps[b] = make([]float64, R)
		for r := range caps[b] {
			caps[b][r] = float64(2 + rng.IntN(15))
		}
	}
	sizes := make([][]float64, T)
	counts := make([]int, T)
	owner := make([]int, T)
	for t := range sizes {
		sizes[t] = make([]float64, R)
		for r := range sizes[t] {
			sizes[t][r] = float64(1 + rng.IntN(6))
		}
		counts[t] = 1 + rng.IntN(6)
		owner[t] = rng.IntN(2)
	}
	return packingMIP(caps, sizes, counts, owner)
}

// packingMIP builds the model packModel describes.
func packingMIP(caps, sizes [][]float64, counts, owner []int) *Model {
	T, B := len(sizes), len(caps)
	m := NewModel()
	x := make([][]int, T)
	for t := range T {
		x[t] = make([]int, B)
		for b := range B {
			ub := float64(counts[t])
			for r, s := range sizes[t] {
				ub = math.Min(ub, math.Floor(caps[b][r]/s))
			}
			x[t][b] = m.AddVar(fmt.Sprintf("x_%d_%d", t, b), 0, ub, 0, true)
		}
	}
	for t := range T {
		var idx []int
		var coef []float64
		for b := range B {
			idx, coef = append(idx, x[t][b]), append(coef, 1)
		}
		m.AddRow(fmt.Sprint("count_", t), idx, coef, float64(counts[t]), float64(counts[t]))
	}
	for b := range B {
		for r := range caps[b] {
			var idx []int
			var coef []float64
			for t := range T {
				idx, coef = append(idx, x[t][b]), append(coef, sizes[t][r])
			}
			m.AddRow(fmt.Sprintf("cap_%d_%d", b, r), idx, coef, -Inf, caps[b][r])
		}
	}
	z := map[[2]int]int{}
	zvar := func(t, b int) int {
		if v, ok := z[[2]int{t, b}]; ok {
			return v
		}
		v := m.AddVar(fmt.Sprintf("z_%d_%d", t, b), 0, 1, 0, true)
		z[[2]int{t, b}] = v
		m.AddRow(fmt.Sprintf("link_%d_%d", t, b), []int{x[t][b], v}, []float64{1, -m.Vars[x[t][b]].Upper}, -Inf, 0)
		return v
	}
	for t := range T {
		for u := t + 1; u < T; u++ {
			if owner[t] == owner[u] {
				continue
			}
			for b := range B {
				m.AddRow(fmt.Sprintf("conf_%d_%d_%d", t, u, b), []int{zvar(t, b), zvar(u, b)}, []float64{1, 1}, -Inf, 1)
			}
		}
	}
	return m
}

// xselectExactModel is the feasibility MIP of solver/xselect/testdata/
// exact.json (nodes 8×16, 8×16, 4×8; app p with shapes a (3,5) and c (1,1),
// app q with shape b (2,6); p and q exlocated) at λ: counts ⌈λ·mix⌉.
func xselectExactModel(a, c, b int) *Model {
	caps := [][]float64{{8, 16}, {8, 16}, {4, 8}}
	sizes := [][]float64{{3, 5}, {1, 1}, {2, 6}}
	return packingMIP(caps, sizes, []int{a, c, b}, []int{0, 0, 1})
}

// TestXSelectExactFeasibility: the model behind the reported "Failed
// instead of Infeasible" (X-Select's exact oracle at λ = 1, the cap, on
// exact.json) and its feasible neighbour at λ = 2/3 (the optimum).
func TestXSelectExactFeasibility(t *testing.T) {
	cases := []struct {
		name    string
		m       *Model
		status  Status
		a, c, b int
	}{
		{"lambda 1", xselectExactModel(2, 3, 3), Infeasible, 2, 3, 3},
		{"lambda 2/3", xselectExactModel(2, 2, 2), Optimal, 2, 2, 2},
	}
	for _, name := range Backends() {
		for _, tc := range cases {
			s, err := Solve(context.Background(), tc.m, Options{Backend: name, TimeLimit: 20 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if s.Status != tc.status {
				t.Errorf("%s %s: status %v, want %v", name, tc.name, s.Status, tc.status)
			}
			checkSolution(t, tc.m, s, name+" "+tc.name)
		}
	}
}

// TestZeroObjectiveMIPs: feasibility-only MIPs, infeasible and feasible,
// on every backend. Pure integer models with a small box are checked
// against enumeration, X-Select-shaped packing models and mixed models
// with unbounded columns against the native backend. Every infeasible model
// must come back Infeasible (never Failed) and every feasible one Optimal
// with a verified point, objective and bound equal to the offset.
func TestZeroObjectiveMIPs(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 3))
	type instance struct {
		m    *Model
		want Status // from enumeration, or -1: compare with native
	}
	var ins []instance
	for range 1200 {
		m := zeroObjective(randomPureMIP(rng))
		want := Infeasible
		if _, ok := enumerateMIP(m); ok {
			want = Optimal
		}
		ins = append(ins, instance{m, want})
	}
	for range 500 {
		ins = append(ins, instance{packModel(rng), -1})
	}
	for len(ins) < 1900 {
		if m := randomLP(rng, 6, true); m.IsMIP() {
			ins = append(ins, instance{zeroObjective(m), -1})
		}
	}
	count := map[string]int{}
	for k, in := range ins {
		// A constant objective: the offset alone.
		in.m.ObjOffset = float64(k % 3)
		native, err := Solve(context.Background(), in.m, Options{Backend: BackendNative, TimeLimit: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		want := in.want
		if want < 0 {
			want = native.Status
		}
		count[want.String()]++
		for _, name := range Backends() {
			s := native
			if name != BackendNative {
				if s, err = Solve(context.Background(), in.m, Options{Backend: name, TimeLimit: 10 * time.Second}); err != nil {
					t.Fatal(err)
				}
			}
			label := fmt.Sprintf("instance %d", k)
			if s.Status != want {
				t.Errorf("%s: %s %v, want %v", label, s.Backend, s.Status, want)
			}
			if s.Status == Optimal && (s.Objective != in.m.ObjOffset || s.Bound != in.m.ObjOffset) {
				t.Errorf("%s: %s objective %g bound %g of the constant objective %g", label, s.Backend, s.Objective, s.Bound, in.m.ObjOffset)
			}
			checkSolution(t, in.m, s, label)
		}
	}
	t.Logf("verdicts: %v", count)
	if count["infeasible"] < 300 || count["optimal"] < 300 {
		t.Errorf("generator mix too narrow: %v", count)
	}
}

// TestSolutionsCarryX runs every backend over LPs, MIPs, feasibility-only
// MIPs and time-limited MIPs (which end Feasible) and applies
// checkSolution to every answer: the guard behind the report of an
// Optimal status with an empty X.
func TestSolutionsCarryX(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 5))
	var models []*Model
	for k := range 400 {
		switch k % 4 {
		case 0:
			models = append(models, randomLP(rng, 12, false))
		case 1:
			models = append(models, randomLP(rng, 8, true))
		case 2:
			models = append(models, randomPureMIP(rng))
		default:
			models = append(models, packModel(rng))
		}
	}
	count := map[string]int{}
	for _, name := range Backends() {
		for k, m := range models {
			s, err := Solve(context.Background(), m, Options{Backend: name, TimeLimit: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			count[name+" "+s.Status.String()]++
			checkSolution(t, m, s, fmt.Sprint("model ", k))
		}
		// Time-limited: incumbents without a proof.
		for seed := range uint64(3) {
			m := hardMIP(40, seed)
			s, err := Solve(context.Background(), m, Options{Backend: name, TimeLimit: 30 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			count[name+" limited "+s.Status.String()]++
			checkSolution(t, m, s, fmt.Sprint("hard MIP ", seed))
		}
	}
	t.Logf("statuses: %v", count)
}
