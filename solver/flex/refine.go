package flex

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/xflex/xflex/lp"
)

// This file is the LP/MILP refinement: keep a completion order σ and
// re-optimise the slot allocation of every interval. With Δ_k the length of
// interval k (which ends when σ(k) completes) and y_jk the work job j does
// in it, the malleable problem for a fixed completion order is linear:
//
//	m_j Δ_k ≤ y_jk ≤ M_j Δ_k,  Σ_j y_jk ≤ S Δ_k,  Σ_{k≤pos(j)} y_jk = W_j,
//	C_j = T0 + Σ_{k≤pos(j)} Δ_k.
//
// Weighted response time, stretch, makespan and lateness are linear in C,
// tardiness adds τ_j ≥ w(C_j − d_j), τ_j ≥ 0, and the minimax aggregate
// adds z ≥ f_j(C_j). Tardy jobs and SLA steps need a binary u per step
// (C_j ≤ d + BigM·u), making it a MILP. The horizon H = T0 + Σ_j W_j bounds
// every completion of some optimal schedule (an interval whose rates sum
// below 1 can be shortened without breaking a bound), which makes BigM
// = H − d valid.
//
// The LP gives fractional rates; each interval is turned into integer slot
// counts by McNaughton's wrap-around rule, which keeps every job between
// ⌊x⌋ and ⌈x⌉ (so within its minimum and maximum) and its work per
// interval unchanged. For a fixed completion order the refinement is
// therefore exact for the integer-slot malleable problem.

// rateSnap treats LP rates within this distance of an integer as that
// integer: CLP's primal feasibility tolerance is 1e-7 on y, so rates are
// exact to about 1e-7/Δ; 1e-6 absorbs that for intervals longer than 0.1.
const rateSnap = 1e-6

// maxCoefRange bounds max|a|/min|a| over the refinement model's nonzero
// constraint coefficients. CLP's tolerances are 1e-7 absolute, so a wider
// range leaves nothing of the small coefficients; on works of 1e15 with
// deadlines of 3 the tardy rows' BigM of 4e15 next to coefficients of 1
// made CLP fail an internal assertion and abort the process. Ordinary
// instances stay below 1e9 (slots against unit coefficients), so 1e12
// keeps every refinement that can succeed; wider models are skipped with a
// note and the MPS schedule stands.
const maxCoefRange = 1e12

// errOrderInfeasible: no schedule completes the jobs in the given order
// (a job's minimum forces it to finish before a job ordered earlier).
var errOrderInfeasible = errors.New("no schedule has this completion order")

// refineResult is an LP/MILP refinement outcome.
type refineResult struct {
	comp    []float64
	ivs     []Interval
	obj     float64
	proven  bool // the LP/MILP was solved to optimality
	lpObj   float64
	backend string
}

// refine solves the fixed-completion-order LP/MILP for order.
func (in *Instance) refine(ctx context.Context, order []int, backend string) (*refineResult, error) {
	rm := newRefineModel(in, order)
	for j := range in.Jobs {
		rm.addPenalty(j)
	}
	if lo, hi := lp.CoefRange(rm.m); hi > maxCoefRange*lo {
		return nil, fmt.Errorf("its constraint coefficients span %.3g to %.3g, more than the %g range the LP backend solves reliably", lo, hi, maxCoefRange)
	}
	sol, err := solveRefinement(ctx, rm.m, backend)
	if err != nil {
		return nil, err
	}
	res := &refineResult{proven: sol.Status == lp.Optimal, lpObj: sol.Objective, backend: sol.Backend}
	res.ivs = rm.intervals(sol)
	res.comp = completionsOf(in, res.ivs)
	res.obj = in.Objective(res.comp)
	return res, nil
}

// refineModel is the refinement LP/MILP of one completion order: Δ_k
// (delta[k]) and y_jk (y[j][k], k ≤ pos[j]) with the rows that do not
// depend on the metric, and z, the minimax variable (−1 for the sum).
type refineModel struct {
	in    *Instance
	m     *lp.Model
	n     int
	pos   []int // pos[j] is job j's place in the order
	delta []int
	z     int
	y     [][]int
	H     float64 // the horizon T0 + Σ_j W_j
}

// newRefineModel builds the variables Δ and y and the min, max, work,
// capacity and horizon rows, and z for the minimax aggregate.
func newRefineModel(in *Instance, order []int) *refineModel {
	n := len(in.Jobs)
	rm := &refineModel{in: in, m: lp.NewModel(), n: n, pos: make([]int, n), delta: make([]int, n), y: make([][]int, n)}
	for k, j := range order {
		rm.pos[j] = k
	}
	totalW := 0.0
	for _, jb := range in.Jobs {
		totalW += jb.Work
	}
	rm.H = in.T0 + totalW
	m := rm.m
	for k := 0; k < n; k++ {
		rm.delta[k] = m.AddVar(fmt.Sprintf("d%d", k), 0, lp.Inf, 0, false)
	}
	for j := 0; j < n; j++ {
		rm.addWork(j)
	}
	for k := 0; k < n; k++ {
		rm.addCapacity(k)
	}
	m.AddRow("horizon", rm.delta, ones(n), -lp.Inf, rm.H-in.T0)
	rm.z = -1
	if in.Agg == Max {
		rm.z = m.AddVar("z", -lp.Inf, lp.Inf, 1, false)
	}
	return rm
}

// addWork adds job j's y variables, its rate bounds m_j Δ_k ≤ y_jk ≤ M_j Δ_k
// and its work row Σ_k y_jk = W_j.
func (rm *refineModel) addWork(j int) {
	m, jb, pj := rm.m, rm.in.Jobs[j], rm.pos[j]
	rm.y[j] = make([]int, pj+1)
	idx := make([]int, 0, pj+1)
	coef := make([]float64, 0, pj+1)
	for k := 0; k <= pj; k++ {
		rm.y[j][k] = m.AddVar(fmt.Sprintf("y%d_%d", j, k), 0, lp.Inf, 0, false)
		idx = append(idx, rm.y[j][k])
		coef = append(coef, 1)
		if jb.Min > 0 {
			m.AddRow("min", []int{rm.y[j][k], rm.delta[k]}, []float64{1, -float64(jb.Min)}, 0, lp.Inf)
		}
		m.AddRow("max", []int{rm.y[j][k], rm.delta[k]}, []float64{1, -float64(jb.Max)}, -lp.Inf, 0)
	}
	m.AddRow("work", idx, coef, jb.Work, jb.Work)
}

// addCapacity adds interval k's row Σ_j y_jk ≤ S Δ_k.
func (rm *refineModel) addCapacity(k int) {
	idx := []int{rm.delta[k]}
	coef := []float64{-float64(rm.in.S)}
	for j := 0; j < rm.n; j++ {
		if rm.pos[j] >= k {
			idx = append(idx, rm.y[j][k])
			coef = append(coef, 1)
		}
	}
	rm.m.AddRow("cap", idx, coef, -lp.Inf, 0)
}

// completionRow returns the Δ indices of C_j − T0 with coefficient scale,
// and extra appended with coefficient c.
func (rm *refineModel) completionRow(j int, scale float64, extra int, c float64) ([]int, []float64) {
	idx := make([]int, 0, rm.pos[j]+2)
	coef := make([]float64, 0, rm.pos[j]+2)
	for k := 0; k <= rm.pos[j]; k++ {
		idx = append(idx, rm.delta[k])
		coef = append(coef, scale)
	}
	return append(idx, extra), append(coef, c)
}

// addPenalty adds job j's penalty to the objective (sum) or below z
// (minimax).
func (rm *refineModel) addPenalty(j int) {
	in, m, z := rm.in, rm.m, rm.z
	if a, b, ok := in.linear(j); ok {
		// f_j(C) = a·C + b with C = T0 + Σ Δ.
		if in.Agg == Sum {
			for k := 0; k <= rm.pos[j]; k++ {
				m.Vars[rm.delta[k]].Cost += a
			}
			m.ObjOffset += a*in.T0 + b
		} else {
			idx, coef := rm.completionRow(j, -a, z, 1)
			m.AddRow("zlin", idx, coef, a*in.T0+b, lp.Inf)
		}
		return
	}
	switch in.Jobs[j].Metric {
	case Tardiness:
		rm.addTardiness(j)
	case Tardy, SLA:
		rm.addSteps(j)
	}
}

// addTardiness adds τ_j ≥ w(C_j − d_j), τ_j ≥ 0 (for the minimax, on z).
func (rm *refineModel) addTardiness(j int) {
	in, m, jb := rm.in, rm.m, rm.in.Jobs[j]
	w := jb.Weight
	if in.Agg == Sum {
		tv := m.AddVar(fmt.Sprintf("tau%d", j), 0, lp.Inf, 1, false)
		idx, coef := rm.completionRow(j, -w, tv, 1)
		m.AddRow("tard", idx, coef, w*(in.T0-jb.Deadline), lp.Inf)
		return
	}
	z := rm.z
	idx, coef := rm.completionRow(j, -w, z, 1)
	m.AddRow("ztard", idx, coef, w*(in.T0-jb.Deadline), lp.Inf)
	m.AddRow("zpos", []int{z}, []float64{1}, 0, lp.Inf)
}

// addSteps adds a binary u per step of a tardy or SLA job, C_j ≤ d + BigM·u
// with BigM = H − d, whose penalty increment is paid when u is 1.
func (rm *refineModel) addSteps(j int) {
	in, m, jb := rm.in, rm.m, rm.in.Jobs[j]
	steps := jb.Steps
	if jb.Metric == Tardy {
		steps = []Step{{Deadline: jb.Deadline, Penalty: jb.Weight}}
	}
	prev := 0.0
	var zi []int
	var zc []float64
	for _, s := range steps {
		d := s.Penalty - prev
		prev = s.Penalty
		if s.Deadline >= rm.H {
			continue // never missed by a schedule within the horizon
		}
		u := m.AddVar(fmt.Sprintf("u%d", j), 0, 1, 0, true)
		idx, coef := rm.completionRow(j, 1, u, -(rm.H - s.Deadline))
		m.AddRow("step", idx, coef, -lp.Inf, s.Deadline-in.T0)
		if in.Agg == Sum {
			m.Vars[u].Cost = d
		} else {
			zi = append(zi, u)
			zc = append(zc, -d)
		}
	}
	if in.Agg == Max {
		m.AddRow("zstep", append(zi, rm.z), append(zc, 1), 0, lp.Inf)
	}
}

// solveRefinement solves m with backend, retrying with the native backend
// when another returns a solution without values, and returns a solution
// with every value or the error.
func solveRefinement(ctx context.Context, m *lp.Model, backend string) (*lp.Solution, error) {
	sol, err := lp.Solve(ctx, m, lp.Options{Backend: backend})
	if err != nil {
		return nil, fmt.Errorf("flex refinement: %w", err)
	}
	if sol.Status == lp.Infeasible {
		return nil, errOrderInfeasible
	}
	if sol.Status != lp.Optimal && sol.Status != lp.Feasible {
		return nil, fmt.Errorf("flex refinement: LP status %s", sol.Status)
	}
	if len(sol.X) != len(m.Vars) && backend != lp.BackendNative {
		// Seen with coin/cbc on tiny MIPs (status optimal, no values);
		// the native backend is an independent second method.
		lp.CountNativeRetry()
		if alt, err := lp.Solve(ctx, m, lp.Options{Backend: lp.BackendNative}); err == nil {
			sol = alt
		}
	}
	if sol.Status == lp.Infeasible {
		return nil, errOrderInfeasible
	}
	if len(sol.X) != len(m.Vars) {
		return nil, fmt.Errorf("flex refinement: %s returned status %s with %d of %d values", sol.Backend, sol.Status, len(sol.X), len(m.Vars))
	}
	return sol, nil
}

// intervals turns the solution's Δ and y into integer-slot intervals: the
// rates y/Δ, clamped to each job's bounds and snapped to integers within
// rateSnap, by McNaughton's wrap-around rule; intervals of negligible
// length are dropped.
func (rm *refineModel) intervals(sol *lp.Solution) []Interval {
	in, n := rm.in, rm.n
	var ivs []Interval
	t := in.T0
	yv := make([]float64, n)
	for k := 0; k < n; k++ {
		d := math.Max(0, sol.X[rm.delta[k]])
		end := t + d
		var jobs []int
		for j := 0; j < n; j++ {
			if rm.pos[j] >= k {
				jobs = append(jobs, j)
				yv[len(jobs)-1] = math.Max(0, sol.X[rm.y[j][k]])
			}
		}
		if d > TimeTol*math.Max(1, math.Abs(end)) {
			x := make([]float64, len(jobs))
			for i, j := range jobs {
				r := yv[i] / d
				r = math.Max(float64(in.Jobs[j].Min), math.Min(float64(in.Jobs[j].Max), r))
				if rr := math.Round(r); math.Abs(r-rr) <= rateSnap {
					r = rr
				}
				x[i] = r
			}
			ivs = append(ivs, mcnaughton(t, end, jobs, x, in.S)...)
		}
		t = end
	}
	return ivs
}

func ones(n int) []float64 {
	o := make([]float64, n)
	for i := range o {
		o[i] = 1
	}
	return o
}

// linear returns a, b with f_j(C) = a·C + b when job j's penalty is linear.
func (in *Instance) linear(j int) (a, b float64, ok bool) {
	jb := in.Jobs[j]
	switch jb.Metric {
	case WeightedResponseTime:
		return jb.Weight, -jb.Weight * jb.Arrival, true
	case Stretch:
		a := float64(jb.Max) / jb.Work
		return a, -a * jb.Arrival, true
	case Makespan:
		return 1, -in.T0, true
	case Lateness:
		return jb.Weight, -jb.Weight * jb.Deadline, true
	}
	return 0, 0, false
}

// mcnaughton turns fractional rates x (with Σx ≤ S, integer bounds around
// each x) over [start, end) into integer slot counts on sub-intervals:
// job i gets ⌊x_i⌋ throughout plus one slot for a total time
// (x_i − ⌊x_i⌋)·(end − start), laid out by McNaughton's wrap-around on the
// S − Σ⌊x⌋ spare slots so no job holds two spare slots at once.
func mcnaughton(start, end float64, jobs []int, x []float64, S int) []Interval {
	dur := end - start
	fl := make([]int, len(x))
	fr := make([]float64, len(x))
	used, frac := 0, 0.0
	for i, v := range x {
		f := math.Floor(v)
		fl[i] = int(f)
		fr[i] = v - f
		if fr[i] < rateSnap {
			fr[i] = 0
		}
		used += fl[i]
		frac += fr[i]
	}
	spare := float64(S - used)
	if frac > spare && frac > 0 {
		for i := range fr {
			fr[i] *= spare / frac
		}
	}
	type piece struct {
		i    int
		a, b float64
	}
	var pieces []piece
	p := 0.0
	for i := range fr {
		if fr[i] == 0 {
			continue
		}
		L := math.Min(fr[i]*dur, dur)
		if p+L <= dur {
			pieces = append(pieces, piece{i, p, p + L})
			p += L
		} else {
			pieces = append(pieces, piece{i, p, dur}, piece{i, 0, p + L - dur})
			p = p + L - dur
		}
		if p >= dur {
			p = 0
		}
	}
	cuts := []float64{0, dur}
	for _, pc := range pieces {
		cuts = append(cuts, pc.a, pc.b)
	}
	sort.Float64s(cuts)
	minLen := TimeTol * math.Max(1, math.Abs(end))
	var out []Interval
	a := 0.0
	for _, c := range cuts[1:] {
		if c-a <= minLen {
			continue
		}
		mid := (a + c) / 2
		iv := Interval{Start: start + a, End: start + c}
		if c == dur {
			iv.End = end
		}
		for i, j := range jobs {
			s := fl[i]
			for _, pc := range pieces {
				if pc.i == i && pc.a <= mid && mid < pc.b {
					s++
				}
			}
			if s > 0 {
				iv.Jobs = append(iv.Jobs, j)
				iv.Slots = append(iv.Slots, s)
			}
		}
		out = append(out, iv)
		a = c
	}
	if len(out) > 0 {
		out[len(out)-1].End = end
	}
	return out
}

// completionsOf reads each job's completion off a schedule: the end of the
// last interval in which it holds slots.
func completionsOf(in *Instance, ivs []Interval) []float64 {
	c := make([]float64, len(in.Jobs))
	for i := range c {
		c[i] = math.Inf(1)
	}
	for _, iv := range ivs {
		for _, j := range iv.Jobs {
			c[j] = iv.End
		}
	}
	return c
}

// verify checks that ivs is a valid schedule with completions comp: the
// intervals tile time from T0 without overlap, every interval uses at most
// S slots, each job holds between its minimum (unless ignoreMin, the FIFO
// baseline) and its maximum from T0 until it completes and nothing after,
// and each job receives its work.
func (in *Instance) verify(ivs []Interval, comp []float64, ignoreMin bool) error {
	n := len(in.Jobs)
	done := make([]float64, n)
	t := in.T0
	for k, iv := range ivs {
		tol := TimeTol * math.Max(1, math.Abs(iv.End))
		if math.Abs(iv.Start-t) > tol || iv.End < iv.Start {
			return fmt.Errorf("interval %d [%g,%g) does not follow %g", k, iv.Start, iv.End, t)
		}
		t = iv.End
		total := 0
		held := map[int]int{}
		for i, j := range iv.Jobs {
			s := iv.Slots[i]
			held[j] = s
			total += s
			if s > in.Jobs[j].Max {
				return fmt.Errorf("interval %d: job %s holds %d slots above its max %d", k, in.Jobs[j].ID, s, in.Jobs[j].Max)
			}
			if iv.Start >= comp[j]-tol {
				return fmt.Errorf("interval %d: job %s holds slots after completing at %g", k, in.Jobs[j].ID, comp[j])
			}
			done[j] += float64(s) * (iv.End - iv.Start)
		}
		if total > in.S {
			return fmt.Errorf("interval %d uses %d slots of %d", k, total, in.S)
		}
		if !ignoreMin {
			for j := 0; j < n; j++ {
				if iv.End <= comp[j]+tol && held[j] < in.Jobs[j].Min {
					return fmt.Errorf("interval %d: job %s holds %d slots below its min %d", k, in.Jobs[j].ID, held[j], in.Jobs[j].Min)
				}
			}
		}
	}
	for j := 0; j < n; j++ {
		if math.Abs(done[j]-in.Jobs[j].Work) > WorkTol*in.Jobs[j].Work {
			return fmt.Errorf("job %s receives work %g, wants %g", in.Jobs[j].ID, done[j], in.Jobs[j].Work)
		}
	}
	return nil
}
