package xselect

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/xflex/xflex/lp"
	"github.com/xflex/xflex/vecpack"
)

// errUndecided is returned by the exact oracle when CBC stops (time limit)
// without deciding feasibility.
var errUndecided = errors.New("xselect: MIP stopped before deciding feasibility")

// exactPack decides with a CBC MIP whether every item of sp can be packed,
// returning the packing when it can. Variables: x_tb ∈ ℤ, 0 ≤ x_tb ≤ what
// fits, for allowed (type, bin); maximise Σ x_tb subject to
// Σ_b x_tb ≤ count_t (the items pack iff the optimum is Σ count_t; the
// model is always feasible, so CBC never has to prove infeasibility, which
// its C interface does not always report as such); per bin and resource
// Σ_t size_t·x_tb ≤ cap_b; for conflicting types t, u a binary z_tb with
// x_tb ≤ U·z_tb and z_tb + z_ub ≤ 1 (a self-conflicting type gets x_tb ≤ 1).
func exactPack(ctx context.Context, sp *spec) (*vecpack.Packing, bool, error) {
	in := sp.in
	p, err := vecpack.NewPacking(in)
	if err != nil {
		return nil, false, err
	}
	T, B := len(in.Types), len(in.Caps)
	m := lp.NewModel()
	m.Maximize = true
	total := 0
	x := make([][]int, T)
	for t, it := range in.Types {
		x[t] = make([]int, B)
		for b := range x[t] {
			x[t][b] = -1
			if it.Count == 0 || !in.AllowedOn(t, b) || !vecpack.Fits(it.Size, in.Caps[b]) {
				continue
			}
			ub := float64(it.Count)
			for r, s := range it.Size {
				if s > 0 {
					ub = math.Min(ub, math.Floor(in.Caps[b][r]/s*(1+boundFitTol)))
				}
			}
			if in.Conflict(t, t) {
				ub = math.Min(ub, 1)
			}
			x[t][b] = m.AddVar(fmt.Sprintf("x_%d_%d", t, b), 0, ub, 1, true)
		}
	}
	for t, it := range in.Types {
		var idx []int
		var coef []float64
		for b := range B {
			if x[t][b] >= 0 {
				idx = append(idx, x[t][b])
				coef = append(coef, 1)
			}
		}
		if len(idx) == 0 && it.Count > 0 {
			return p, false, nil
		}
		total += it.Count
		if len(idx) > 0 {
			m.AddRow(fmt.Sprintf("count_%d", t), idx, coef, 0, float64(it.Count))
		}
	}
	for b := range B {
		for r := range in.Caps[b] {
			var idx []int
			var coef []float64
			for t, it := range in.Types {
				if x[t][b] >= 0 && it.Size[r] > 0 {
					idx = append(idx, x[t][b])
					coef = append(coef, it.Size[r])
				}
			}
			if len(idx) > 0 {
				m.AddRow(fmt.Sprintf("cap_%d_%d", b, r), idx, coef, math.Inf(-1), in.Caps[b][r]*(1+vecpack.FitTol))
			}
		}
	}
	z := map[[2]int]int{}
	zvar := func(t, b int) int {
		if v, ok := z[[2]int{t, b}]; ok {
			return v
		}
		v := m.AddVar(fmt.Sprintf("z_%d_%d", t, b), 0, 1, 0, true)
		z[[2]int{t, b}] = v
		m.AddRow(fmt.Sprintf("link_%d_%d", t, b), []int{x[t][b], v}, []float64{1, -m.Vars[x[t][b]].Upper}, math.Inf(-1), 0)
		return v
	}
	for t := range T {
		for u := t + 1; u < T; u++ {
			if !in.Conflict(t, u) {
				continue
			}
			for b := range B {
				if x[t][b] >= 0 && x[u][b] >= 0 {
					m.AddRow(fmt.Sprintf("conf_%d_%d_%d", t, u, b), []int{zvar(t, b), zvar(u, b)}, []float64{1, 1}, math.Inf(-1), 1)
				}
			}
		}
	}
	sol, err := lp.Solve(ctx, m, lp.Options{})
	if err != nil {
		return nil, false, err
	}
	full := func(v float64) bool { return v > float64(total)-0.5 }
	switch {
	case sol.Status == lp.Optimal && !full(sol.Objective):
		return p, false, nil
	case sol.Status == lp.Feasible && !full(sol.Objective) && !full(sol.Bound):
		// The best bound proves that not every item fits.
		return p, false, nil
	case (sol.Status == lp.Optimal || sol.Status == lp.Feasible) && full(sol.Objective):
	default:
		if ctx.Err() != nil {
			return nil, false, ctx.Err()
		}
		return nil, false, fmt.Errorf("%w (%s)", errUndecided, sol.Status)
	}
	for t := range T {
		for b := range B {
			if x[t][b] >= 0 {
				if k := int(math.Round(sol.X[x[t][b]])); k > 0 {
					p.Place(t, b, k)
				}
			}
		}
	}
	if err := p.Verify(); err != nil {
		return nil, false, fmt.Errorf("xselect: MIP solution fails verification: %w", err)
	}
	if p.Unplaced() != 0 {
		return nil, false, fmt.Errorf("xselect: MIP solution leaves %d items unplaced", p.Unplaced())
	}
	return p, true, nil
}
