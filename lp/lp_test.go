package lp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

const (
	// objTol is the relative agreement demanded between objectives (each
	// other, hand-computed values, enumeration): the 1e-7.
	objTol = 1e-7
	// feasCheckTol is the slack allowed when checking a returned point
	// against bounds and rows, relative to 1+|bound|. Both engines work to
	// ≤1e-7 primal tolerance on data of magnitude ≤ 10.
	feasCheckTol = 1e-7
	// dualCheckTol bounds the violation of dual sign conditions and of
	// strong duality, relative to 1 + the magnitude of the terms summed.
	dualCheckTol = 1e-7
)

func relDiff(a, b float64) float64 { return math.Abs(a-b) / max(1, math.Abs(a), math.Abs(b)) }

// checkFeasible verifies that x satisfies bounds, rows and integrality.
func checkFeasible(t *testing.T, m *Model, x []float64, label string) {
	t.Helper()
	if len(x) != len(m.Vars) {
		t.Fatalf("%s: len(X)=%d, want %d", label, len(x), len(m.Vars))
	}
	for j, v := range m.Vars {
		if x[j] < v.Lower-feasCheckTol*(1+math.Abs(v.Lower)) || x[j] > v.Upper+feasCheckTol*(1+math.Abs(v.Upper)) {
			t.Errorf("%s: x[%d]=%g outside [%g,%g]", label, j, x[j], v.Lower, v.Upper)
		}
		if v.Integer && math.Abs(x[j]-math.Round(x[j])) > 1e-9 {
			t.Errorf("%s: integer x[%d]=%g not integral", label, j, x[j])
		}
	}
	for i, r := range m.Rows {
		act, scale := 0.0, 1.0
		for k, j := range r.Index {
			act += r.Coef[k] * x[j]
			scale += math.Abs(r.Coef[k] * x[j])
		}
		if act < r.Lower-feasCheckTol*scale || act > r.Upper+feasCheckTol*scale {
			t.Errorf("%s: row %d activity %g outside [%g,%g]", label, i, act, r.Lower, r.Upper)
		}
	}
}

// checkDuality verifies an optimal LP solution's duals: reduced costs equal
// c − Aᵀy, the sign conditions of the package convention (for a
// minimisation a dual > 0 only at a lower bound, < 0 only at an upper
// bound; reversed for a maximisation), and strong duality: the dual
// objective Σ y_i·(active row bound) + Σ d_j·(active column bound) equals
// the primal objective.
func checkDuality(t *testing.T, m *Model, s *Solution, label string) {
	t.Helper()
	if len(s.RowDuals) != len(m.Rows) || len(s.ReducedCosts) != len(m.Vars) {
		t.Fatalf("%s: %d duals, %d reduced costs for %d rows, %d columns", label, len(s.RowDuals), len(s.ReducedCosts), len(m.Rows), len(m.Vars))
	}
	sense := 1.0
	if m.Maximize {
		sense = -1
	}
	act := make([]float64, len(m.Rows))
	rc := make([]float64, len(m.Vars))
	scale := 1.0
	for j, v := range m.Vars {
		rc[j] = v.Cost
		scale += math.Abs(v.Cost * s.X[j])
	}
	for i, r := range m.Rows {
		for k, j := range r.Index {
			act[i] += r.Coef[k] * s.X[j]
			rc[j] -= r.Coef[k] * s.RowDuals[i]
		}
	}
	for j := range m.Vars {
		if math.Abs(rc[j]-s.ReducedCosts[j]) > dualCheckTol*(1+math.Abs(rc[j])) {
			t.Errorf("%s: reduced cost %d = %g, c−Aᵀy gives %g", label, j, s.ReducedCosts[j], rc[j])
		}
	}
	dualObj := 0.0
	term := func(kind string, idx int, dual, val, lo, up float64) {
		d := sense * dual // minimisation-sense dual
		at := func(b float64) bool { return math.Abs(val-b) <= feasCheckTol*(1+math.Abs(b)) }
		switch {
		case d > dualCheckTol*(1+math.Abs(val)):
			if !at(lo) {
				t.Errorf("%s: %s %d dual %g > 0 but value %g not at lower %g", label, kind, idx, dual, val, lo)
			}
			dualObj += d * lo
			scale += math.Abs(d * lo)
		case d < -dualCheckTol*(1+math.Abs(val)):
			if !at(up) {
				t.Errorf("%s: %s %d dual %g < 0 but value %g not at upper %g", label, kind, idx, dual, val, up)
			}
			dualObj += d * up
			scale += math.Abs(d * up)
		default:
			dualObj += d * val
		}
	}
	for i, r := range m.Rows {
		term("row", i, s.RowDuals[i], act[i], r.Lower, r.Upper)
	}
	for j, v := range m.Vars {
		term("column", j, s.ReducedCosts[j], s.X[j], v.Lower, v.Upper)
	}
	primal := sense * (s.Objective - m.ObjOffset)
	if math.Abs(dualObj-primal) > dualCheckTol*scale {
		t.Errorf("%s: dual objective %g ≠ primal %g", label, dualObj, primal)
	}
}

type handLP struct {
	name   string
	build  func() *Model
	status Status
	obj    float64
	x      []float64 // nil: not unique, not checked
	duals  []float64
	rc     []float64
}

func handLPs() []handLP {
	return []handLP{
		{name: "min two rows", build: func() *Model {
			m := NewModel()
			x := m.AddVar("x", 0, Inf, 1, false)
			y := m.AddVar("y", 0, Inf, 2, false)
			m.AddRow("cover", []int{x, y}, []float64{1, 1}, 2, Inf)
			m.AddRow("diff", []int{x, y}, []float64{1, -1}, -Inf, 1)
			return m
		}, status: Optimal, obj: 2.5, x: []float64{1.5, 0.5}, duals: []float64{1.5, -0.5}, rc: []float64{0, 0}},
		{name: "objective offset", build: func() *Model {
			m := NewModel()
			x := m.AddVar("x", 0, Inf, 1, false)
			y := m.AddVar("y", 0, Inf, 2, false)
			m.AddRow("cover", []int{x, y}, []float64{1, 1}, 2, Inf)
			m.AddRow("diff", []int{x, y}, []float64{1, -1}, -Inf, 1)
			m.ObjOffset = 10
			return m
		}, status: Optimal, obj: 12.5, x: []float64{1.5, 0.5}, duals: []float64{1.5, -0.5}, rc: []float64{0, 0}},
		{name: "maximize", build: func() *Model {
			m := NewModel()
			m.Maximize = true
			x := m.AddVar("x", 0, Inf, 3, false)
			y := m.AddVar("y", 0, Inf, 2, false)
			m.AddRow("a", []int{x, y}, []float64{1, 1}, -Inf, 4)
			m.AddRow("b", []int{x, y}, []float64{1, 3}, -Inf, 7)
			m.AddRow("c", []int{x}, []float64{1}, -Inf, 3)
			return m
		}, status: Optimal, obj: 11, x: []float64{3, 1}, duals: []float64{2, 0, 1}, rc: []float64{0, 0}},
		{name: "equality and free variables", build: func() *Model {
			m := NewModel()
			x := m.AddVar("x", -Inf, Inf, 1, false)
			y := m.AddVar("y", -Inf, Inf, 1, false)
			m.AddRow("eq", []int{x, y}, []float64{1, -1}, 1, 1)
			m.AddRow("ge", []int{x, y}, []float64{1, 1}, 3, Inf)
			return m
		}, status: Optimal, obj: 3, x: []float64{2, 1}, duals: []float64{0, 1}, rc: []float64{0, 0}},
		{name: "column at upper bound", build: func() *Model {
			m := NewModel()
			x := m.AddVar("x", 0, 2, -1, false)
			y := m.AddVar("y", 0, Inf, -1, false)
			m.AddRow("cap", []int{x, y}, []float64{1, 2}, -Inf, 4)
			return m
		}, status: Optimal, obj: -3, x: []float64{2, 1}, duals: []float64{-0.5}, rc: []float64{-0.5, 0}},
		{name: "ranged row and negative lower bounds", build: func() *Model {
			m := NewModel()
			x := m.AddVar("x", -5, 5, 1, false)
			y := m.AddVar("y", -5, 5, 1, false)
			m.AddRow("range", []int{x, y}, []float64{1, 1}, -3, 2)
			return m
		}, status: Optimal, obj: -3, duals: []float64{1}, rc: []float64{0, 0}},
		{name: "duplicate indices are summed", build: func() *Model {
			m := NewModel()
			x := m.AddVar("x", 0, Inf, 1, false)
			m.AddRow("dup", []int{x, x}, []float64{1, 1}, 2, Inf)
			return m
		}, status: Optimal, obj: 1, x: []float64{1}, duals: []float64{0.5}, rc: []float64{0}},
		{name: "empty row inside bounds", build: func() *Model {
			m := NewModel()
			m.AddVar("x", 1, 4, 1, false)
			m.AddRow("empty", nil, nil, -1, 1)
			return m
		}, status: Optimal, obj: 1, x: []float64{1}, duals: []float64{0}, rc: []float64{1}},
		{name: "empty row outside bounds", build: func() *Model {
			m := NewModel()
			x := m.AddVar("x", 1, 4, 1, false)
			m.AddRow("empty", nil, nil, 1, 2)
			m.AddRow("x", []int{x}, []float64{1}, 0, 3)
			return m
		}, status: Infeasible},
		{name: "Beale cycling example", build: func() *Model {
			m := NewModel()
			x4 := m.AddVar("x4", 0, Inf, -0.75, false)
			x5 := m.AddVar("x5", 0, Inf, 20, false)
			x6 := m.AddVar("x6", 0, Inf, -0.5, false)
			x7 := m.AddVar("x7", 0, Inf, 6, false)
			m.AddRow("r1", []int{x4, x5, x6, x7}, []float64{0.25, -8, -1, 9}, -Inf, 0)
			m.AddRow("r2", []int{x4, x5, x6, x7}, []float64{0.5, -12, -0.5, 3}, -Inf, 0)
			m.AddRow("r3", []int{x6}, []float64{1}, -Inf, 1)
			return m
		}, status: Optimal, obj: -1.25, x: []float64{1, 0, 1, 0}},
		{name: "redundant equality rows", build: func() *Model {
			m := NewModel()
			x := m.AddVar("x", 0, Inf, 1, false)
			y := m.AddVar("y", 0, Inf, -1, false)
			m.AddRow("e1", []int{x, y}, []float64{1, 1}, 2, 2)
			m.AddRow("e2", []int{x, y}, []float64{2, 2}, 4, 4)
			m.AddRow("e3", []int{x, y}, []float64{-1, -1}, -2, -2)
			return m
		}, status: Optimal, obj: -2, x: []float64{0, 2}},
		{name: "infeasible", build: func() *Model {
			m := NewModel()
			x := m.AddVar("x", 0, Inf, 1, false)
			y := m.AddVar("y", 0, Inf, 1, false)
			m.AddRow("le", []int{x, y}, []float64{1, 1}, -Inf, 1)
			m.AddRow("ge", []int{x, y}, []float64{1, 1}, 2, Inf)
			return m
		}, status: Infeasible},
		{name: "infeasible with unbounded ray", build: func() *Model {
			m := NewModel()
			x := m.AddVar("x", 0, Inf, -1, false)
			y := m.AddVar("y", 0, Inf, 0, false)
			m.AddRow("ge", []int{x, y}, []float64{1, -1}, 0, Inf)
			m.AddRow("neg", []int{y}, []float64{1}, -Inf, -1)
			return m
		}, status: Infeasible},
		{name: "unbounded", build: func() *Model {
			m := NewModel()
			x := m.AddVar("x", 0, Inf, -1, false)
			y := m.AddVar("y", 0, Inf, 0, false)
			m.AddRow("r", []int{x, y}, []float64{1, -1}, -Inf, 1)
			return m
		}, status: Unbounded},
		{name: "unbounded maximize free variable", build: func() *Model {
			m := NewModel()
			m.Maximize = true
			x := m.AddVar("x", -Inf, Inf, -1, false)
			m.AddRow("r", []int{x}, []float64{1}, -Inf, 5)
			return m
		}, status: Unbounded},
		{name: "unbounded through a column without rows", build: func() *Model {
			// CLP 1.17 calls this primal infeasible (see solveCLP).
			m := NewModel()
			x := m.AddVar("x", 0, Inf, 1, false)
			y := m.AddVar("y", 0, Inf, 1, false)
			m.AddVar("z", -Inf, -2, 3, false)
			m.AddRow("a", []int{x, y}, []float64{1, 1}, 1, 5)
			return m
		}, status: Unbounded},
		{name: "unbounded through a column bounded above", build: func() *Model {
			// CLP 1.17's primal simplex without presolve calls this optimal
			// at x = 0 (see solveCLP).
			m := NewModel()
			m.AddVar("x0", 0, 4, 4, false)
			m.AddVar("x1", -Inf, 2, 5, false)
			m.AddVar("x2", 0, Inf, 3, false)
			m.AddRow("r0", []int{1, 2}, []float64{-1, -1}, -2, Inf)
			return m
		}, status: Unbounded},
		{name: "zero rows", build: func() *Model {
			m := NewModel()
			m.AddVar("x", 1, 3, 1, false)
			m.AddVar("y", -2, 5, -1, false)
			return m
		}, status: Optimal, obj: -4, x: []float64{1, 5}, duals: []float64{}, rc: []float64{1, -1}},
		{name: "zero rows unbounded", build: func() *Model {
			m := NewModel()
			m.AddVar("x", 0, Inf, -1, false)
			return m
		}, status: Unbounded},
		{name: "zero columns", build: func() *Model {
			m := NewModel()
			m.AddRow("r", nil, nil, -1, 1)
			m.ObjOffset = 7
			return m
		}, status: Optimal, obj: 7, x: []float64{}, duals: []float64{0}, rc: []float64{}},
		{name: "zero columns infeasible", build: func() *Model {
			m := NewModel()
			m.AddRow("r", nil, nil, 1, 2)
			return m
		}, status: Infeasible},
		{name: "empty model", build: NewModel, status: Optimal, obj: 0, x: []float64{}, duals: []float64{}, rc: []float64{}},
		{name: "crossed column bounds", build: func() *Model {
			m := NewModel()
			m.AddVar("x", 2, 1, 1, false)
			return m
		}, status: Infeasible},
		{name: "fixed columns", build: func() *Model {
			m := NewModel()
			x := m.AddVar("x", 2, 2, 1, false)
			y := m.AddVar("y", 0, Inf, 1, false)
			m.AddRow("r", []int{x, y}, []float64{1, 1}, 5, 5)
			return m
		}, status: Optimal, obj: 5, x: []float64{2, 3}},
	}
}

func TestHandLPs(t *testing.T) {
	for _, name := range Backends() {
		for _, tc := range handLPs() {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				m := tc.build()
				s, err := Solve(context.Background(), m, Options{Backend: name})
				if err != nil {
					t.Fatal(err)
				}
				if s.Status != tc.status {
					t.Fatalf("status %v, want %v", s.Status, tc.status)
				}
				if s.Status != Optimal {
					return
				}
				if relDiff(s.Objective, tc.obj) > objTol || relDiff(s.Bound, tc.obj) > objTol {
					t.Errorf("objective %g bound %g, want %g", s.Objective, s.Bound, tc.obj)
				}
				checkFeasible(t, m, s.X, name)
				checkDuality(t, m, s, name)
				for j := range tc.x {
					if math.Abs(s.X[j]-tc.x[j]) > feasCheckTol {
						t.Errorf("x = %v, want %v", s.X, tc.x)
						break
					}
				}
				for i := range tc.duals {
					if math.Abs(s.RowDuals[i]-tc.duals[i]) > dualCheckTol {
						t.Errorf("duals = %v, want %v", s.RowDuals, tc.duals)
						break
					}
				}
				for j := range tc.rc {
					if math.Abs(s.ReducedCosts[j]-tc.rc[j]) > dualCheckTol {
						t.Errorf("reduced costs = %v, want %v", s.ReducedCosts, tc.rc)
						break
					}
				}
			})
		}
	}
}

func TestInvalidModelAndBackend(t *testing.T) {
	m := NewModel()
	m.AddVar("x", 0, 1, 1, false)
	m.AddRow("bad", []int{3}, []float64{1}, 0, 1)
	for _, name := range Backends() {
		if _, err := Solve(context.Background(), m, Options{Backend: name}); err == nil {
			t.Errorf("%s: out-of-range index accepted", name)
		}
	}
	// Magnitudes CLP would abort the process on are refused by every
	// backend, warm handle included (cost 1e30 made CLP assert).
	huge := NewModel()
	huge.AddVar("x", 0, 1, 1e30, false)
	huge.AddRow("r", []int{0}, []float64{1}, 0, 1)
	big := NewModel()
	big.AddVar("x", 0, 1, 1, false)
	big.AddRow("r", []int{0}, []float64{-3e21}, -Inf, 0)
	for _, hm := range []*Model{huge, big} {
		for _, name := range Backends() {
			if _, err := Solve(context.Background(), hm, Options{Backend: name}); err == nil {
				t.Errorf("%s: magnitude above MaxCoef accepted", name)
			}
			inc, err := NewIncremental(hm, Options{Backend: name})
			if err == nil {
				_, err = inc.Solve(context.Background())
				inc.Close()
			}
			if err == nil {
				t.Errorf("%s: warm handle accepted a magnitude above MaxCoef", name)
			}
		}
	}
	if _, err := Solve(context.Background(), NewModel(), Options{Backend: "highs"}); !errors.Is(err, ErrNoBackend) {
		t.Errorf("unknown backend: err = %v, want ErrNoBackend", err)
	}
	if _, err := Solve(context.Background(), nil, Options{}); err == nil {
		t.Error("nil model accepted")
	}
	if got := Backends(); got[len(got)-1] != BackendNative || DefaultBackend() != got[0] {
		t.Errorf("Backends() = %v", got)
	}
}

// enumerateMIP returns the optimum of an all-integer, bounded model by
// brute force over its box (ok=false when infeasible).
func enumerateMIP(m *Model) (best float64, ok bool) {
	n := len(m.Vars)
	x := make([]float64, n)
	sense := 1.0
	if m.Maximize {
		sense = -1
	}
	best = math.Inf(1)
	var rec func(j int)
	rec = func(j int) {
		if j == n {
			for _, r := range m.Rows {
				act := 0.0
				for k, c := range r.Index {
					act += r.Coef[k] * x[c]
				}
				if act < r.Lower-1e-9 || act > r.Upper+1e-9 {
					return
				}
			}
			if v := sense * objective(m, x); v < best {
				best = v
			}
			return
		}
		for v := math.Ceil(m.Vars[j].Lower); v <= m.Vars[j].Upper; v++ {
			x[j] = v
			rec(j + 1)
		}
	}
	rec(0)
	if math.IsInf(best, 1) {
		return 0, false
	}
	return sense * best, true
}

func knapsack() *Model {
	m := NewModel()
	m.Maximize = true
	values := []float64{10, 13, 7, 8, 9, 4}
	weights := []float64{3, 4, 2, 3, 4, 1}
	idx := make([]int, len(values))
	for k := range values {
		idx[k] = m.AddVar(fmt.Sprint("item", k), 0, 1, values[k], true)
	}
	m.AddRow("capacity", idx, weights, -Inf, 9)
	return m
}

func assignment() *Model {
	cost := [][]float64{{4, 2, 8, 5}, {4, 3, 7, 3}, {3, 1, 6, 2}, {9, 8, 4, 7}}
	m := NewModel()
	n := len(cost)
	v := make([][]int, n)
	for i := range cost {
		v[i] = make([]int, n)
		for j := range cost[i] {
			v[i][j] = m.AddVar(fmt.Sprintf("x%d%d", i, j), 0, 1, cost[i][j], true)
		}
	}
	for i := 0; i < n; i++ {
		row, col := make([]int, n), make([]int, n)
		for j := 0; j < n; j++ {
			row[j], col[j] = v[i][j], v[j][i]
		}
		ones := []float64{1, 1, 1, 1}
		m.AddRow(fmt.Sprint("worker", i), row, ones, 1, 1)
		m.AddRow(fmt.Sprint("job", i), col, ones, 1, 1)
	}
	return m
}

func TestHandMIPs(t *testing.T) {
	cases := []struct {
		name   string
		m      *Model
		status Status
		obj    float64
	}{
		{"knapsack", knapsack(), Optimal, 30},
		{"assignment", assignment(), Optimal, 12},
		{"integer infeasible", func() *Model {
			m := NewModel()
			x := m.AddVar("x", 0, 10, 1, true)
			y := m.AddVar("y", 0, 10, 1, true)
			m.AddRow("odd", []int{x, y}, []float64{2, 2}, 3, 3)
			return m
		}(), Infeasible, 0},
		{"integer bounds without integer point", func() *Model {
			m := NewModel()
			m.AddVar("x", 0.2, 0.8, 1, true)
			return m
		}(), Infeasible, 0},
		{"mixed integer", func() *Model {
			m := NewModel()
			m.Maximize = true
			x := m.AddVar("x", 0, Inf, 1, true)
			y := m.AddVar("y", 0, Inf, 1, false)
			m.AddRow("a", []int{x, y}, []float64{2, 1}, -Inf, 5.5)
			m.AddRow("b", []int{x, y}, []float64{-1, 1}, -Inf, 0.5)
			return m
		}(), Optimal, 3.5},
		{"unbounded MIP", func() *Model {
			m := NewModel()
			x := m.AddVar("x", 0, Inf, -1, true)
			y := m.AddVar("y", 0, Inf, 0, true)
			m.AddRow("r", []int{x, y}, []float64{1, -1}, -Inf, 0)
			return m
		}(), Unbounded, 0},
		{"infeasible MIP with unbounded relaxation", func() *Model {
			m := NewModel()
			x := m.AddVar("x", 0, 1, 0, true)
			z := m.AddVar("z", 0, Inf, -1, false)
			m.AddRow("half", []int{x}, []float64{2}, 1, 1)
			m.AddRow("link", []int{x, z}, []float64{1, -1}, -Inf, 1)
			return m
		}(), Infeasible, 0},
		{"zero rows MIP", func() *Model {
			m := NewModel()
			m.AddVar("x", -2.5, 3.5, 1, true)
			m.AddVar("y", -2.5, 3.5, -1, true)
			m.ObjOffset = 1
			return m
		}(), Optimal, -4},
	}
	for _, name := range Backends() {
		for _, tc := range cases {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				s, err := Solve(context.Background(), tc.m, Options{Backend: name, TimeLimit: 10 * time.Second})
				if err != nil {
					t.Fatal(err)
				}
				if s.Status != tc.status {
					t.Fatalf("status %v, want %v", s.Status, tc.status)
				}
				if s.Status != Optimal {
					return
				}
				if relDiff(s.Objective, tc.obj) > objTol || relDiff(s.Bound, tc.obj) > objTol {
					t.Errorf("objective %g bound %g, want %g", s.Objective, s.Bound, tc.obj)
				}
				checkFeasible(t, tc.m, s.X, name)
				if s.RowDuals != nil {
					t.Errorf("MIP returned row duals")
				}
			})
		}
	}
	for _, m := range []*Model{knapsack(), assignment()} {
		if best, ok := enumerateMIP(m); !ok || relDiff(best, map[bool]float64{true: 30, false: 12}[m.Maximize]) > objTol {
			t.Errorf("enumeration disagrees with the hand value: %g %v", best, ok)
		}
	}
}

// randomLP draws a model with up to maxDim rows and columns, integer data in
// [-5, 5], and a mix of bound kinds. Row bounds are built around a random
// point so most instances are feasible; a few get a contradictory row, and
// free or one-sided columns make some unbounded.
func randomLP(rng *rand.Rand, maxDim int, integer bool) *Model {
	m := NewModel()
	m.Maximize = rng.IntN(2) == 0
	n, rows := 1+rng.IntN(maxDim), rng.IntN(maxDim+1)
	x0 := make([]float64, n)
	for j := 0; j < n; j++ {
		lo, up := -Inf, Inf
		switch rng.IntN(6) {
		case 0, 1:
			lo = 0
		case 2:
			lo, up = float64(rng.IntN(5)-2), 0
			up = lo + float64(rng.IntN(5))
		case 3:
			up = float64(rng.IntN(7) - 3)
		case 4:
			lo = float64(rng.IntN(3))
			up = lo
		}
		x0[j] = math.Max(lo, math.Min(up, float64(rng.IntN(7)-3)))
		cost := float64(rng.IntN(11) - 5)
		m.AddVar(fmt.Sprint("x", j), lo, up, cost, integer && rng.IntN(4) != 0)
	}
	for i := 0; i < rows; i++ {
		var idx []int
		var coef []float64
		act := 0.0
		for j := 0; j < n; j++ {
			if rng.IntN(2) == 0 {
				c := float64(rng.IntN(11) - 5)
				idx, coef = append(idx, j), append(coef, c)
				act += c * x0[j]
			}
		}
		lo, up := -Inf, Inf
		switch rng.IntN(5) {
		case 0:
			lo = act - float64(rng.IntN(4))
		case 1:
			up = act + float64(rng.IntN(4))
		case 2:
			lo, up = act, act
		case 3:
			lo, up = act-float64(rng.IntN(3)), act+float64(rng.IntN(3))
		case 4:
			if rng.IntN(8) == 0 { // contradiction with the point
				lo = act + 1 + float64(rng.IntN(3))
			} else {
				up = act + float64(rng.IntN(3))
			}
		}
		m.AddRow(fmt.Sprint("r", i), idx, coef, lo, up)
	}
	m.ObjOffset = float64(rng.IntN(5))
	return m
}

func TestRandomLPsNativeDuality(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	count := map[Status]int{}
	for it := 0; it < 300; it++ {
		m := randomLP(rng, 15, false)
		s, err := Solve(context.Background(), m, Options{Backend: BackendNative})
		if err != nil {
			t.Fatal(err)
		}
		count[s.Status]++
		label := fmt.Sprintf("instance %d", it)
		checkSolution(t, m, s, label)
		switch s.Status {
		case Optimal:
			checkFeasible(t, m, s.X, label)
			checkDuality(t, m, s, label)
		case Infeasible, Unbounded:
		default:
			t.Errorf("%s: status %v", label, s.Status)
		}
	}
	t.Logf("statuses: %v", count)
	if count[Optimal] < 100 || count[Infeasible] < 5 || count[Unbounded] < 5 {
		t.Errorf("generator mix too narrow: %v", count)
	}
}

// randomPureMIP draws an all-integer model with a small box, for enumeration.
func randomPureMIP(rng *rand.Rand) *Model {
	m := NewModel()
	m.Maximize = rng.IntN(2) == 0
	n := 1 + rng.IntN(5)
	for j := 0; j < n; j++ {
		lo := float64(rng.IntN(3) - 1)
		m.AddVar(fmt.Sprint("x", j), lo, lo+float64(rng.IntN(4)), float64(rng.IntN(11)-5), true)
	}
	for i, rows := 0, rng.IntN(5); i < rows; i++ {
		var idx []int
		var coef []float64
		for j := 0; j < n; j++ {
			if rng.IntN(3) != 0 {
				idx, coef = append(idx, j), append(coef, float64(rng.IntN(9)-4))
			}
		}
		lo, up := -Inf, Inf
		b := float64(rng.IntN(9) - 3)
		switch rng.IntN(3) {
		case 0:
			lo = b
		case 1:
			up = b
		default:
			lo, up = b, b+float64(rng.IntN(2))
		}
		m.AddRow(fmt.Sprint("r", i), idx, coef, lo, up)
	}
	return m
}

func TestRandomMIPsNativeVsEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 2))
	for it := 0; it < 150; it++ {
		m := randomPureMIP(rng)
		best, ok := enumerateMIP(m)
		s, err := Solve(context.Background(), m, Options{Backend: BackendNative})
		if err != nil {
			t.Fatal(err)
		}
		label := fmt.Sprintf("instance %d", it)
		checkSolution(t, m, s, label)
		if !ok {
			if s.Status != Infeasible {
				t.Errorf("%s: status %v, enumeration says infeasible", label, s.Status)
			}
			continue
		}
		if s.Status != Optimal || relDiff(s.Objective, best) > objTol {
			t.Errorf("%s: %v %g, enumeration %g", label, s.Status, s.Objective, best)
			continue
		}
		checkFeasible(t, m, s.X, label)
	}
}

// hardMIP is a multi-constraint knapsack that takes many nodes.
func hardMIP(n int, seed uint64) *Model {
	rng := rand.New(rand.NewPCG(seed, 3))
	m := NewModel()
	m.Maximize = true
	idx := make([]int, n)
	for j := range idx {
		idx[j] = m.AddVar(fmt.Sprint("x", j), 0, 1, float64(50+rng.IntN(50)), true)
	}
	for i := 0; i < 5; i++ {
		w := make([]float64, n)
		sum := 0.0
		for j := range w {
			w[j] = float64(20 + rng.IntN(60))
			sum += w[j]
		}
		m.AddRow(fmt.Sprint("cap", i), idx, w, -Inf, math.Floor(sum/2)+0.5)
	}
	return m
}

func TestTimeLimitReturns(t *testing.T) {
	m := hardMIP(60, 5)
	for _, name := range Backends() {
		s, err := Solve(context.Background(), m, Options{Backend: name, TimeLimit: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		switch s.Status {
		case Feasible:
			checkFeasible(t, m, s.X, name)
			if s.Bound < s.Objective-1e-9 {
				t.Errorf("%s: maximisation bound %g below incumbent %g", name, s.Bound, s.Objective)
			}
		case TimeLimit, Optimal:
			if s.Status == Optimal {
				checkFeasible(t, m, s.X, name)
			}
		default:
			t.Errorf("%s: status %v under a time limit", name, s.Status)
		}
		t.Logf("%s: %v objective %g bound %g", name, s.Status, s.Objective, s.Bound)
	}
}

func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, name := range Backends() {
		for _, m := range []*Model{hardMIP(60, 5), randomLP(rand.New(rand.NewPCG(1, 1)), 10, false)} {
			s, err := Solve(ctx, m, Options{Backend: name})
			if err != nil {
				t.Fatal(err)
			}
			if s.Status != TimeLimit {
				t.Errorf("%s: status %v with a cancelled context", name, s.Status)
			}
		}
		dctx, dcancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		s, err := Solve(dctx, hardMIP(60, 5), Options{Backend: name})
		dcancel()
		if err != nil {
			t.Fatal(err)
		}
		if s.Status != Feasible && s.Status != TimeLimit && s.Status != Optimal {
			t.Errorf("%s: status %v under a context deadline", name, s.Status)
		}
	}
}

// TestMediumModelsAllBackends solves degenerate medium-size models (a
// balanced transportation LP, whose equality-like rows are rank deficient,
// and a set cover) with every backend and checks them with Verify and
// against each other.
func TestMediumModelsAllBackends(t *testing.T) {
	for _, m := range []*Model{transportLP(25, 30, 3), setCoverMIP(25, 40, 0.1, 4)} {
		var first *Solution
		for _, name := range Backends() {
			s, err := Solve(context.Background(), m, Options{Backend: name})
			if err != nil || s.Status != Optimal {
				t.Fatalf("%s: %v %v", name, s, err)
			}
			if err := Verify(m, s, VerifyTol); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			if !m.IsMIP() {
				checkDuality(t, m, s, name)
			}
			if first == nil {
				first = s
			} else if relDiff(first.Objective, s.Objective) > objTol {
				t.Errorf("%s objective %g, %s %g", first.Backend, first.Objective, s.Backend, s.Objective)
			}
		}
	}
}

// TestVerifyRejects corrupts correct solutions and expects Verify to notice.
func TestVerifyRejects(t *testing.T) {
	m := handLPs()[0].build()
	good := func() *Solution {
		return &Solution{Status: Optimal, Objective: 2.5, Bound: 2.5, X: []float64{1.5, 0.5}, RowDuals: []float64{1.5, -0.5}, ReducedCosts: []float64{0, 0}}
	}
	if err := Verify(m, good(), VerifyTol); err != nil {
		t.Fatalf("correct solution rejected: %v", err)
	}
	cases := map[string]func(s *Solution){
		"row violated":         func(s *Solution) { s.X = []float64{1, 0.5}; s.Objective = 2 },
		"bound violated":       func(s *Solution) { s.X = []float64{2.5, -0.5}; s.Objective = 1.5 },
		"objective mismatch":   func(s *Solution) { s.Objective = 3 },
		"dual sign":            func(s *Solution) { s.RowDuals = []float64{1.5, 0.5}; s.ReducedCosts = []float64{-1, 2.5} },
		"reduced cost":         func(s *Solution) { s.ReducedCosts = []float64{0, 1} },
		"not strongly dual":    func(s *Solution) { s.RowDuals = []float64{1, 0}; s.ReducedCosts = []float64{0, 1} },
		"wrong length":         func(s *Solution) { s.X = s.X[:1] },
		"integer not integral": func(s *Solution) { m.Vars[0].Integer = true; s.RowDuals = nil },
	}
	for name, corrupt := range cases {
		m = handLPs()[0].build()
		s := good()
		corrupt(s)
		if err := Verify(m, s, VerifyTol); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// quirkMIPs are models on which CBC 2.10.8 went wrong in the randomized
// cross-checks (wrong optimum, false infeasibility, process abort); see
// solveMIP and presolveMIP. Every backend must get them right.
func quirkMIPs() []struct {
	name   string
	m      *Model
	status Status
	obj    float64
} {
	v := func(lo, up, cost float64, integer bool) Var {
		return Var{Lower: lo, Upper: up, Cost: cost, Integer: integer}
	}
	r := func(idx []int, coef []float64, lo, up float64) Row {
		return Row{Index: idx, Coef: coef, Lower: lo, Upper: up}
	}
	return []struct {
		name   string
		m      *Model
		status Status
		obj    float64
	}{
		{"preprocessing wrong optimum 2x2", &Model{
			Vars:      []Var{v(-1, 2, -2, true), v(1, 4, 5, true)},
			Rows:      []Row{r([]int{0, 1}, []float64{4, -3}, -3, -2)},
			ObjOffset: 4,
		}, Optimal, 9},
		{"preprocessing wrong optimum mixed", &Model{
			Vars: []Var{v(0, 4, 3, true), v(-1, 2, 3, true), v(0, Inf, 1, true), v(-1, 3, -5, false)},
			Rows: []Row{r([]int{1}, []float64{2}, -Inf, 7), r([]int{0, 1, 3}, []float64{4, -5, 2}, -6, -4),
				r([]int{0, 1}, []float64{-3, 0}, -6, Inf), r([]int{0, 2}, []float64{4, 2}, 3, 6)},
			ObjOffset: 3,
		}, Optimal, -4},
		{"preprocessing wrong optimum free integer", &Model{
			Vars:      []Var{v(-Inf, -2, -3, false), v(-Inf, Inf, -3, true)},
			Rows:      []Row{r([]int{0, 1}, []float64{4, 4}, -Inf, -23)},
			ObjOffset: 4,
		}, Optimal, 21.25},
		{"preprocessing wrong optimum maximize", &Model{
			Maximize: true,
			Vars: []Var{v(0, Inf, -5, false), v(-Inf, 2, 5, true), v(-2, 0, -1, true), v(-Inf, 0, 0, true),
				v(0, 0, -4, true), v(-Inf, 1, 1, true)},
			Rows: []Row{r([]int{0, 1, 3, 5}, []float64{-3, 4, 4, -2}, -Inf, -12),
				r([]int{1, 4, 5}, []float64{2, -4, -5}, -Inf, -7)},
			ObjOffset: 4,
		}, Optimal, 2},
		{"no preprocessing aborts on singleton rows", &Model{
			Vars:      []Var{v(2, 5, 5, true), v(1, 1, 3, false), v(-Inf, 0, 4, true)},
			Rows:      []Row{r([]int{0}, []float64{-4}, -8, -8), r([]int{0, 2}, []float64{4, 3}, 2, 2)},
			ObjOffset: 2,
		}, Optimal, 7},
		{"no preprocessing aborts on an empty row", &Model{
			Maximize:  true,
			Vars:      []Var{v(0, Inf, -3, true), v(0, Inf, -4, true)},
			Rows:      []Row{r(nil, nil, -Inf, 0), r([]int{0, 1}, []float64{-4, 5}, 15, 15)},
			ObjOffset: 1,
		}, Optimal, -11},
		{"no preprocessing false infeasible", &Model{
			Vars: []Var{v(0, Inf, 4, true), v(1, 1, 0, false), v(2, 5, 2, true), v(0, 0, 1, true), v(-Inf, Inf, 2, true),
				v(-Inf, 0, 2, true), v(-Inf, Inf, -5, true), v(0, Inf, 1, true), v(-Inf, Inf, 3, true), v(0, Inf, -5, true)},
			Rows: []Row{
				r([]int{4, 5, 6, 7}, []float64{-2, 0, -4, 5}, -1, Inf),
				r([]int{1, 2, 4, 8}, []float64{0, 0, -3, 2}, -2, Inf),
				r([]int{0, 2, 4, 5, 7}, []float64{4, -1, -1, -4, -4}, -3, -1),
				r([]int{2, 5, 6, 7, 8}, []float64{-1, 2, -1, 2, 2}, -2, -2),
				r([]int{0, 1, 2, 5, 6, 8}, []float64{-1, -1, -4, 5, -3, -5}, -13, -11),
				r([]int{1, 4, 8, 9}, []float64{-5, -1, -5, 2}, -Inf, 3),
				r([]int{1, 2, 4, 5, 6, 8}, []float64{-3, 0, 0, -3, 4, -1}, 4, 8),
			},
			ObjOffset: 1,
		}, Optimal, -8},
		{"no preprocessing wrong optimum", &Model{
			Maximize: true,
			Vars: []Var{v(0, Inf, -3, true), v(-Inf, -1, -1, true), v(-Inf, -1, 0, true), v(0, Inf, -3, true),
				v(0, Inf, -2, false), v(-Inf, 2, 0, false), v(-Inf, Inf, 4, true), v(0, Inf, -3, true)},
			Rows: []Row{
				r([]int{2, 5, 6, 7}, []float64{2, 2, 3, 1}, 0, 0),
				r([]int{1, 3, 4, 5, 6}, []float64{2, 1, -1, 3, -5}, -Inf, -16),
				r([]int{2, 4, 7}, []float64{-3, 1, -2}, -Inf, 4),
				r([]int{3, 4}, []float64{2, 0}, -1, 2),
				r([]int{2, 5, 6}, []float64{3, -3, 1}, 5, 5),
				r([]int{2, 3, 6, 7}, []float64{1, 5, -3, 5}, -7, Inf),
				r([]int{2, 5}, []float64{0, 3}, -Inf, -3),
				r([]int{0, 1, 5}, []float64{-2, -4, -5}, -Inf, 13),
				r([]int{0, 3, 6}, []float64{5, -1, 5}, 14, Inf),
			},
		}, Optimal, 6},
		{"unbounded relaxation reported infeasible", &Model{
			Maximize: true,
			Vars: []Var{v(0, 2, 0, true), v(-Inf, Inf, -4, true), v(0, Inf, -1, false), v(-Inf, Inf, 2, true),
				v(1, 3, 1, true), v(-Inf, 2, -5, true)},
			Rows:      []Row{r([]int{0, 3}, []float64{0, 1}, 0, Inf), r([]int{1, 3, 5}, []float64{-4, -1, 5}, -Inf, -14)},
			ObjOffset: 2,
		}, Unbounded, 0},
	}
}

func TestQuirkMIPs(t *testing.T) {
	for _, name := range Backends() {
		for _, tc := range quirkMIPs() {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				s, err := Solve(context.Background(), tc.m, Options{Backend: name, TimeLimit: 20 * time.Second})
				if err != nil {
					t.Fatal(err)
				}
				if s.Status != tc.status {
					t.Fatalf("status %v, want %v", s.Status, tc.status)
				}
				if s.Status == Optimal {
					if relDiff(s.Objective, tc.obj) > objTol {
						t.Errorf("objective %g, want %g", s.Objective, tc.obj)
					}
					checkFeasible(t, tc.m, s.X, name)
				}
			})
		}
	}
	// The pure integer ones are small enough to enumerate on a box.
	if best, ok := enumerateMIP(quirkMIPs()[0].m); !ok || best != 9 {
		t.Errorf("enumeration: %g %v, want 9", best, ok)
	}
}

func TestRowCap(t *testing.T) {
	// The native engine refuses models beyond its dense limit instead of
	// allocating rows² memory.
	m := NewModel()
	x := m.AddVar("x", 0, 1, 1, false)
	for i := 0; i <= nativeMaxRows; i++ {
		m.AddRow("r", []int{x}, []float64{1}, -Inf, 1)
	}
	s, err := Solve(context.Background(), m, Options{Backend: BackendNative})
	if err != nil || s.Status != Failed {
		t.Errorf("native on %d rows: %v %v, want failed", len(m.Rows), s, err)
	}
}

// TestWarmStartMatchesCold re-solves random LPs after a branching-style
// bound change on a basic column, once from the parent's optimal basis and
// once from scratch: statuses and objectives must agree, and the warm start
// must actually be taken (not fall back) in most cases.
func TestWarmStartMatchesCold(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 5))
	tried, warmTaken := 0, 0
	for it := 0; it < 400; it++ {
		m := randomLP(rng, 15, false)
		p := newLPProblem(m)
		lo := make([]float64, p.n)
		up := make([]float64, p.n)
		for j, v := range m.Vars {
			lo[j], up[j] = v.Lower, v.Upper
		}
		root := solveLP(context.Background(), p, lo, up, time.Time{}, nil)
		if root.status != Optimal {
			continue
		}
		// Branch on the first basic structural column strictly inside its
		// bounds: x ≤ value − 0.5 or x ≥ value + 0.5.
		j := -1
		for _, b := range root.warm.basis {
			if b < p.n && root.x[b] > lo[b]+1 && root.x[b] < up[b]-1 {
				j = b
				break
			}
		}
		if j < 0 {
			continue
		}
		for _, down := range []bool{true, false} {
			clo := append([]float64(nil), lo...)
			cup := append([]float64(nil), up...)
			if down {
				cup[j] = root.x[j] - 0.5
			} else {
				clo[j] = root.x[j] + 0.5
			}
			cold := solveLP(context.Background(), p, clo, cup, time.Time{}, nil)
			warm := solveLP(context.Background(), p, clo, cup, time.Time{}, root.warm)
			tried++
			if _, ok := newSimplex(context.Background(), p, clo, cup, time.Time{}).solveWarm(root.warm); ok {
				warmTaken++
			}
			if cold.status != warm.status {
				t.Errorf("instance %d: cold %v, warm %v", it, cold.status, warm.status)
				continue
			}
			if cold.status == Optimal && relDiff(cold.obj, warm.obj) > objTol {
				t.Errorf("instance %d: cold %g, warm %g", it, cold.obj, warm.obj)
			}
		}
	}
	if tried < 50 || warmTaken < tried*9/10 {
		t.Errorf("warm start taken %d of %d times", warmTaken, tried)
	}
	t.Logf("warm start taken %d of %d", warmTaken, tried)
}
