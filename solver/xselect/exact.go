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
	pm := newPackMIP(in)
	total, placeable := pm.countRows()
	if !placeable {
		return p, false, nil
	}
	pm.capRows()
	pm.conflictRows()
	sol, err := lp.Solve(ctx, pm.m, lp.Options{})
	if err != nil {
		return nil, false, err
	}
	if packs, err := packVerdict(ctx, sol, total); !packs || err != nil {
		if err != nil {
			return nil, false, err
		}
		return p, false, nil
	}
	return pm.packing(p, sol)
}

// packMIP is exactPack's model: x[t][b] is the column of type t's items on
// bin b (-1: none), z the conflict indicators made so far.
type packMIP struct {
	in *vecpack.Instance
	m  *lp.Model
	x  [][]int
	z  map[[2]int]int
}

// newPackMIP adds the x columns, bounded by the type's count, what fits
// the bin, and 1 for a self-conflicting type.
func newPackMIP(in *vecpack.Instance) *packMIP {
	pm := &packMIP{in: in, m: lp.NewModel(), x: make([][]int, len(in.Types)), z: map[[2]int]int{}}
	pm.m.Maximize = true
	for t, it := range in.Types {
		pm.x[t] = make([]int, len(in.Caps))
		for b := range pm.x[t] {
			pm.x[t][b] = -1
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
			pm.x[t][b] = pm.m.AddVar(fmt.Sprintf("x_%d_%d", t, b), 0, ub, 1, true)
		}
	}
	return pm
}

// countRows adds Σ_b x_tb ≤ count_t and returns Σ count_t; placeable is
// false when some type with items has no bin at all.
func (pm *packMIP) countRows() (total int, placeable bool) {
	for t, it := range pm.in.Types {
		var idx []int
		var coef []float64
		for _, j := range pm.x[t] {
			if j >= 0 {
				idx = append(idx, j)
				coef = append(coef, 1)
			}
		}
		if len(idx) == 0 && it.Count > 0 {
			return 0, false
		}
		total += it.Count
		if len(idx) > 0 {
			pm.m.AddRow(fmt.Sprintf("count_%d", t), idx, coef, 0, float64(it.Count))
		}
	}
	return total, true
}

// capRows adds Σ_t size_t·x_tb ≤ cap_b per bin and resource.
func (pm *packMIP) capRows() {
	in := pm.in
	for b := range in.Caps {
		for r := range in.Caps[b] {
			var idx []int
			var coef []float64
			for t, it := range in.Types {
				if pm.x[t][b] >= 0 && it.Size[r] > 0 {
					idx = append(idx, pm.x[t][b])
					coef = append(coef, it.Size[r])
				}
			}
			if len(idx) > 0 {
				pm.m.AddRow(fmt.Sprintf("cap_%d_%d", b, r), idx, coef, math.Inf(-1), in.Caps[b][r]*(1+vecpack.FitTol))
			}
		}
	}
}

// conflictRows adds z_tb + z_ub ≤ 1 for conflicting types t, u on a bin
// both may use.
func (pm *packMIP) conflictRows() {
	T := len(pm.in.Types)
	for t := range T {
		for u := t + 1; u < T; u++ {
			if !pm.in.Conflict(t, u) {
				continue
			}
			for b := range pm.in.Caps {
				if pm.x[t][b] >= 0 && pm.x[u][b] >= 0 {
					pm.m.AddRow(fmt.Sprintf("conf_%d_%d_%d", t, u, b), []int{pm.zvar(t, b), pm.zvar(u, b)}, []float64{1, 1}, math.Inf(-1), 1)
				}
			}
		}
	}
}

// zvar is the binary z_tb with x_tb ≤ U·z_tb, made on first use.
func (pm *packMIP) zvar(t, b int) int {
	if v, ok := pm.z[[2]int{t, b}]; ok {
		return v
	}
	m, x := pm.m, pm.x
	v := m.AddVar(fmt.Sprintf("z_%d_%d", t, b), 0, 1, 0, true)
	pm.z[[2]int{t, b}] = v
	m.AddRow(fmt.Sprintf("link_%d_%d", t, b), []int{x[t][b], v}, []float64{1, -m.Vars[x[t][b]].Upper}, math.Inf(-1), 0)
	return v
}

// packVerdict reads CBC's answer: whether every one of the total items
// packs, or an error when it stopped without deciding.
func packVerdict(ctx context.Context, sol *lp.Solution, total int) (bool, error) {
	full := func(v float64) bool { return v > float64(total)-0.5 }
	switch {
	case sol.Status == lp.Optimal && !full(sol.Objective):
		return false, nil
	case sol.Status == lp.Feasible && !full(sol.Objective) && !full(sol.Bound):
		// The best bound proves that not every item fits.
		return false, nil
	case (sol.Status == lp.Optimal || sol.Status == lp.Feasible) && full(sol.Objective):
		return true, nil
	}
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	return false, fmt.Errorf("%w (%s)", errUndecided, sol.Status)
}

// packing places the MIP's solution into p and verifies it.
func (pm *packMIP) packing(p *vecpack.Packing, sol *lp.Solution) (*vecpack.Packing, bool, error) {
	for t := range pm.x {
		for b, j := range pm.x[t] {
			if j >= 0 {
				if k := int(math.Round(sol.X[j])); k > 0 {
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
