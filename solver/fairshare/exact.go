package fairshare

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/xflex/xflex/lp"
)

// The divisible problems (eq. 1 constraints with real x) are solved on
// coalesced server groups: column (n, g) is the number of n's tasks on the
// copies of group g, whose pooled capacity is count_g·c_g. Any feasible
// pooled allocation splits evenly into a feasible per-copy one with the
// same criteria, so group solutions are exact.

// col is one LP column: framework n on group g.
type col struct {
	n, g int
}

// model is the shared LP skeleton of the divisible problems.
type model struct {
	in   *instance
	cols []col
	// byFw[n] lists n's column indices.
	byFw [][]int
	// coef[k] is the criterion coefficient of column k: U_n = Σ coef·x.
	coef []float64
	// vcoef[k] is coef without 1/φ (the argument of g_α in eq. 8).
	vcoef []float64
	// inert[n]: n can get nothing (no usable server or a zero cap).
	inert []bool
	// active[k]: column k is in the restricted LP. Columns enter by
	// pricing (column generation), so a framework allowed on 50 server
	// types usually needs only a few of its 50 columns in the LP.
	active []bool
}

// initialColumns is how many of its best columns (by criterion gained per
// server copy) each framework starts with; pricing adds the rest as needed.
const initialColumns = 10

func newModel(in *instance, crit string) *model {
	return newModelCtx(context.Background(), in, crit)
}

// modelCheckEvery is how many frameworks newModelCtx builds between
// deadline checks (100,000 frameworks × 50 server groups took 1 s).
const modelCheckEvery = 1024

// newModelCtx is newModel that gives up (nil) once ctx is done: the
// columns alone are |frameworks| × |server groups|, too many to build on
// a budget already spent. A budget spent before the call is checked
// before reserve, whose count and allocation of 5,000,000 columns took
// 27 ms of mmf's 50 ms budget at 100,000 × 100,000 (issue 28).
func newModelCtx(ctx context.Context, in *instance, crit string) *model {
	if ctx.Err() != nil {
		return nil
	}
	m := &model{in: in, byFw: make([][]int, len(in.fws)), inert: make([]bool, len(in.fws))}
	m.reserve()
	psdsf := make([]float64, len(in.fws))
	if crit == CriterionPSDSF || crit == CriterionDRF {
		for n := range in.fws {
			psdsf[n] = in.criterionCoef(crit, n, 0)
		}
	}
	for n := range in.fws {
		if n%modelCheckEvery == 0 && ctx.Err() != nil {
			return nil
		}
		f := &in.fws[n]
		if f.cap <= 0 {
			m.inert[n] = true
			continue
		}
		var score []float64
		for g, gr := range in.groups {
			j := gr.members[0]
			if !in.usable(n, j) {
				continue
			}
			c := psdsf[n]
			if crit != CriterionPSDSF && crit != CriterionDRF {
				c = in.criterionCoef(crit, n, j)
			}
			m.byFw[n] = append(m.byFw[n], len(m.cols))
			m.cols = append(m.cols, col{n, g})
			m.coef = append(m.coef, c)
			m.vcoef = append(m.vcoef, c*f.phi)
			m.active = append(m.active, false)
			perCopy := math.Inf(1)
			for r, d := range f.d {
				if d > 0 {
					perCopy = math.Min(perCopy, gr.cap[r]/d)
				}
			}
			score = append(score, c*perCopy)
		}
		if len(m.byFw[n]) == 0 {
			m.inert[n] = true
			continue
		}
		// Activate the initialColumns best (ties: lower group index).
		order := make([]int, len(score))
		for k := range order {
			order[k] = k
		}
		sortBy(order, func(a, b int) bool { return score[a] > score[b] })
		for _, k := range order[:min(initialColumns, len(order))] {
			m.active[m.byFw[n][k]] = true
		}
	}
	return m
}

// reserve sizes the column slices for every usable (framework, group)
// pair, so building them does not copy them as they grow (half of
// newModel's time on 5,000,000 columns).
func (m *model) reserve() {
	in := m.in
	k := 0
	for n := range in.fws {
		if in.fws[n].cap <= 0 {
			continue
		}
		for _, gr := range in.groups {
			if in.usable(n, gr.members[0]) {
				k++
			}
		}
	}
	m.cols = make([]col, 0, k)
	m.coef = make([]float64, 0, k)
	m.vcoef = make([]float64, 0, k)
	m.active = make([]bool, 0, k)
}

// activateAll puts every column in the LP (tests compare it with pricing).
func (m *model) activateAll() {
	for k := range m.active {
		m.active[k] = true
	}
}

// lpb is one restricted LP built from the model plus what pricing needs.
type lpb struct {
	lm      *lp.Model
	xVar    []int // per column: LP variable, -1 when inactive
	capRows []capRow
	capRow  []int // per g*R+r: LP row, -1 when absent
	taskRow []int // per framework: LP row of its cap, -1 when none
	fwRow   []int // per framework: the caller's own row over its columns
	// fwCoef(k) is column k's coefficient in fwRow[n]; cost(k) its
	// objective coefficient.
	fwCoef func(k int) float64
	cost   func(k int) float64
}

// build creates the restricted LP: active x columns (objective cost(k)),
// capacity rows (per group and resource some active column uses), cap rows,
// and, when fwCoef is set, an empty slot per framework for the caller's
// row (see addFwRow). maximize is set.
func (m *model) build(cost, fwCoef func(k int) float64) *lpb {
	return m.buildRows(cost, fwCoef, false)
}

// buildRows is build; with allRows it also creates, empty, every capacity
// row that a column of a live framework could use, so that columns priced
// in later can be added to the same LP (lp.Incremental) without new rows.
func (m *model) buildRows(cost, fwCoef func(k int) float64, allRows bool) *lpb {
	in := m.in
	R := len(in.resources)
	b := &lpb{lm: lp.NewModel(), xVar: make([]int, len(m.cols)), capRow: make([]int, len(in.groups)*R),
		taskRow: make([]int, len(in.fws)), fwRow: make([]int, len(in.fws)), fwCoef: fwCoef, cost: cost}
	b.lm.Maximize = true
	for k := range m.cols {
		b.xVar[k] = -1
		if m.active[k] {
			b.xVar[k] = b.lm.AddVar("", 0, lp.Inf, b.costOf(k), false)
		}
	}
	used := make([]bool, len(in.groups)*R)
	idx := make([][]int, len(in.groups)*R)
	val := make([][]float64, len(in.groups)*R)
	for k, c := range m.cols {
		if m.inert[c.n] {
			continue
		}
		for r, d := range in.fws[c.n].d {
			if d > 0 {
				q := c.g*R + r
				used[q] = used[q] || allRows
				if m.active[k] {
					used[q] = true
					idx[q] = append(idx[q], b.xVar[k])
					val[q] = append(val[q], d)
				}
			}
		}
	}
	for q := range idx {
		b.capRow[q] = -1
		if !used[q] {
			continue
		}
		g, r := q/R, q%R
		C := float64(in.groups[g].count) * in.groups[g].cap[r]
		row := b.lm.AddRow("", idx[q], val[q], -lp.Inf, C)
		b.capRow[q] = row
		b.capRows = append(b.capRows, capRow{row: row, g: g, r: r, C: C})
	}
	for n := range in.fws {
		b.taskRow[n], b.fwRow[n] = -1, -1
		f := &in.fws[n]
		if m.inert[n] || math.IsInf(f.cap, 1) {
			continue
		}
		var ix []int
		var ones []float64
		for _, k := range m.byFw[n] {
			if m.active[k] {
				ix = append(ix, b.xVar[k])
				ones = append(ones, 1)
			}
		}
		b.taskRow[n] = b.lm.AddRow("", ix, ones, -lp.Inf, f.cap)
	}
	return b
}

// costOf is column k's objective coefficient (0 without a cost function).
func (b *lpb) costOf(k int) float64 {
	if b.cost == nil {
		return 0
	}
	return b.cost(k)
}

// addPriced appends to inc every column that pricing activated since the
// LP was built, with its capacity, cap and framework-row entries (the rows
// must exist: buildRows with allRows).
func (m *model) addPriced(inc *lp.Incremental, b *lpb) {
	in := m.in
	R := len(in.resources)
	var rows []int
	var coef []float64
	for k, c := range m.cols {
		if !m.active[k] || b.xVar[k] >= 0 {
			continue
		}
		rows, coef = rows[:0], coef[:0]
		for r, d := range in.fws[c.n].d {
			if d > 0 {
				rows = append(rows, b.capRow[c.g*R+r])
				coef = append(coef, d)
			}
		}
		if t := b.taskRow[c.n]; t >= 0 {
			rows = append(rows, t)
			coef = append(coef, 1)
		}
		if f := b.fwRow[c.n]; f >= 0 && b.fwCoef != nil {
			rows = append(rows, f)
			coef = append(coef, b.fwCoef(k))
		}
		b.xVar[k] = inc.AddCol("", 0, lp.Inf, b.costOf(k), rows, coef)
	}
}

// addFwRow adds framework n's own row lo ≤ Σ fwCoef(k)·x_k + Σ extra ≤ hi
// over its active columns.
func (m *model) addFwRow(b *lpb, n int, extraIdx []int, extraVal []float64, lo, hi float64) int {
	var ix []int
	var v []float64
	for _, k := range m.byFw[n] {
		if m.active[k] {
			ix = append(ix, b.xVar[k])
			v = append(v, b.fwCoef(k))
		}
	}
	ix = append(ix, extraIdx...)
	v = append(v, extraVal...)
	b.fwRow[n] = b.lm.AddRow("", ix, v, lo, hi)
	return b.fwRow[n]
}

// price activates every inactive column with a positive reduced cost
// c_k − Σ_i y_i a_{ik} (y_i = d objective / d bound_i, the lp package's
// convention, so the formula holds for every row sense) and returns how
// many entered. When none does, the restricted LP's optimum and duals are
// optimal for the full LP.
func (m *model) price(b *lpb, sol *lp.Solution) int {
	in := m.in
	R := len(in.resources)
	y := func(row int) float64 {
		if row < 0 {
			return 0
		}
		return sol.RowDuals[row]
	}
	added := 0
	for k, c := range m.cols {
		if m.active[k] || m.inert[c.n] {
			continue
		}
		rc, mag := 0.0, 0.0
		if b.cost != nil {
			rc = b.cost(k)
			mag = math.Abs(rc)
		}
		for r, d := range in.fws[c.n].d {
			if d > 0 {
				t := y(b.capRow[c.g*R+r]) * d
				rc -= t
				mag += math.Abs(t)
			}
		}
		t := y(b.taskRow[c.n])
		rc -= t
		mag += math.Abs(t)
		if b.fwCoef != nil {
			t = y(b.fwRow[c.n]) * b.fwCoef(k)
			rc -= t
			mag += math.Abs(t)
		}
		if rc > rcTol*math.Max(mag, rcMagFloor) {
			m.active[k] = true
			added++
		}
	}
	return added
}

// xOf maps an LP solution back to all columns.
func (m *model) xOf(b *lpb, sol *lp.Solution) []float64 {
	x := make([]float64, len(m.cols))
	for k, v := range b.xVar {
		if v >= 0 {
			x[k] = sol.X[v]
		}
	}
	return x
}

// repair scales each group's columns down so every capacity and cap row
// holds exactly: LP solutions are feasible only to the backend's tolerance
// (≈1e-9 relative), and results must be feasible as reported.
func (m *model) repair(x []float64) {
	in := m.in
	R := len(in.resources)
	use := make([]float64, len(in.groups)*R)
	for k, c := range m.cols {
		if x[k] < 0 {
			x[k] = 0
		}
		for r, d := range in.fws[c.n].d {
			use[c.g*R+r] += d * x[k]
		}
	}
	scale := make([]float64, len(in.groups))
	for g := range in.groups {
		scale[g] = 1
		for r := 0; r < R; r++ {
			C := float64(in.groups[g].count) * in.groups[g].cap[r]
			if u := use[g*R+r]; u > C {
				scale[g] = math.Min(scale[g], C/u)
			}
		}
	}
	for k, c := range m.cols {
		x[k] *= scale[c.g]
	}
	for n, ks := range m.byFw {
		t := 0.0
		for _, k := range ks {
			t += x[k]
		}
		if cp := in.fws[n].cap; t > cp {
			for _, k := range ks {
				x[k] *= cp / t
			}
		}
	}
}

// shares returns U_n for every framework under column values x.
func (m *model) shares(x []float64) []float64 {
	u := make([]float64, len(m.in.fws))
	for k, c := range m.cols {
		u[c.n] += m.coef[k] * x[k]
	}
	return u
}

// checkLP maps an LP outcome on a model that is feasible by construction:
// optimal passes, a limit means the budget ran out, and anything else
// (infeasible, unbounded, failed) is the backend losing the instance's
// numbers, errNumeric: the solver sweep met it with demands 1e-300 against
// capacities 1e-300 (unbounded) and a demand of 3e10 against capacities of
// 4 to 14 (failed), both inside the ranges build admits.
func checkLP(sol *lp.Solution, err error) (*lp.Solution, error) {
	if err != nil {
		return nil, fmt.Errorf("fairshare: lp: %w", err)
	}
	switch sol.Status {
	case lp.Optimal:
		return sol, nil
	case lp.TimeLimit, lp.Feasible:
		return nil, errBudget
	default:
		return nil, fmt.Errorf("%w (it returned %s on a model that is feasible by construction)", errNumeric, sol.Status)
	}
}

// errNumeric reports an LP the backend could not solve on this instance's
// numbers. As the requested policy it is a 422 asking to rescale; as a
// compare entry the entry is left out with a note.
var errNumeric = errors.New("the LP backend could not solve this instance's numbers")

// errBudget reports that the budget ran out inside an LP.
var errBudget = errors.New("fairshare: budget exhausted")

// exactResult is a divisible optimum on groups.
type exactResult struct {
	x         []float64 // per column
	objective float64
	bound     float64
	lps       int
	steps     int  // interior-point steps
	certified bool // PF: the gap target is certified (in scaled units, see pfUnits)
	levels    int
	backend   string
	timeout   bool
}

// levelSlack relaxes a frozen framework's level row by this relative
// amount, so that round-off in the level (≈1e-9 from the LP tolerance) can
// never make the next LP infeasible.
const levelSlack = 1e-9

// solveMMF computes the U-max-min fair allocation (Definition 1) by
// water-filling: maximise the common level λ of the unfrozen frameworks
// subject to the frozen ones keeping their levels; every unfrozen framework
// whose level row has a positive dual is saturated (it cannot exceed λ in
// any solution that keeps the others at λ) and is frozen at λ. Each round
// freezes at least one framework (the level duals sum to 1), so at most N
// LPs are solved; frameworks whose duals vanish by degeneracy while they
// are in fact saturated are frozen in a later round at the same λ.
func solveMMF(ctx context.Context, m *model, backend string) (*exactResult, error) {
	N := len(m.in.fws)
	level := make([]float64, N)
	frozen := make([]bool, N)
	active := 0
	for n := range frozen {
		if m.inert[n] {
			frozen[n] = true
		} else {
			active++
		}
	}
	// Scale the criterion so levels are O(1) for the LP's absolute
	// tolerances: S is the geometric mean of each framework's best level
	// when alone, divided by the number of frameworks sharing the cluster
	// (the first level is about that: with the geometric mean alone, 1,000
	// frameworks had levels near 1e-3 and duals below the tolerances).
	S := m.scale() / float64(max(active, 1))
	res := &exactResult{x: make([]float64, len(m.cols))}
	var lastLevel, firstLevel float64
	fwCoef := func(k int) float64 { return m.coef[k] / S }
	for active > 0 {
		var b *lpb
		var sol *lp.Solution
		var lam int
		// One LP per level, grown by the columns pricing activates and
		// re-solved warm (lp.Incremental): the LP after pricing differs
		// from the previous one only by columns.
		b = m.buildRows(nil, fwCoef, true)
		lam = b.lm.AddVar("lambda", 0, lp.Inf, 1, false)
		for n := range frozen {
			switch {
			case m.inert[n]:
			case frozen[n]:
				m.addFwRow(b, n, nil, nil, level[n]/S*(1-levelSlack), lp.Inf)
			default:
				m.addFwRow(b, n, []int{lam}, []float64{-1}, 0, lp.Inf)
			}
		}
		inc, err := lp.NewIncremental(b.lm, lp.Options{Backend: backend})
		if err != nil {
			return nil, fmt.Errorf("fairshare: lp: %w", err)
		}
		for {
			sol, err = solveIncremental(ctx, inc)
			res.lps++
			if err != nil {
				if errors.Is(err, errBudget) {
					res.timeout = true
					sol = nil
					break
				}
				inc.Close()
				return nil, err
			}
			if m.price(b, sol) == 0 {
				break
			}
			m.addPriced(inc, b)
		}
		inc.Close()
		if sol == nil {
			break
		}
		res.backend = sol.Backend
		res.x = m.xOf(b, sol)
		L := sol.X[lam] * S
		if res.levels == 0 {
			firstLevel = L
		}
		if res.levels == 0 || !tied(L, lastLevel) {
			res.levels++
		}
		lastLevel = L
		active -= freezeLevel(sol, b, frozen, level, L)
	}
	m.repair(res.x)
	m.mmfObjective(res, firstLevel)
	return res, nil
}

// freezeLevel freezes at level L every unfrozen framework whose row's
// dual is above dualTol (its level cannot rise further), or the one with
// the largest dual when numerically every dual vanished; it returns how
// many it froze.
func freezeLevel(sol *lp.Solution, b *lpb, frozen []bool, level []float64, L float64) int {
	best, bestDual := -1, 0.0
	froze := 0
	for n := range frozen {
		if frozen[n] {
			continue
		}
		y := math.Abs(sol.RowDuals[b.fwRow[n]])
		if y > bestDual {
			best, bestDual = n, y
		}
		if y > dualTol {
			frozen[n], level[n] = true, L
			froze++
		}
	}
	if froze > 0 {
		return froze
	}
	if best < 0 {
		best = slices.Index(frozen, false)
	}
	frozen[best], level[best] = true, L
	return 1
}

// mmfObjective sets res's objective (the smallest value of a non-inert
// framework in res.x) and bound: the objective itself when the levels all
// finished; out of budget, the first level LP's optimum (the max-min
// value) or, before it, the smallest value any framework gets alone.
func (m *model) mmfObjective(res *exactResult, firstLevel float64) {
	u := m.shares(res.x)
	res.objective = math.Inf(1)
	for n := range u {
		if !m.inert[n] {
			res.objective = math.Min(res.objective, u[n])
		}
	}
	if math.IsInf(res.objective, 1) {
		res.objective = 0
	}
	res.bound = res.objective
	if !res.timeout {
		return
	}
	res.bound = firstLevel
	if res.levels == 0 {
		res.bound = math.Inf(1)
		for n := range u {
			if !m.inert[n] {
				res.bound = math.Min(res.bound, m.alone(n))
			}
		}
	}
	res.bound = math.Max(res.bound, res.objective)
}

// alone is framework n's best criterion value when alone (capacity only):
// every server group's tasks of n fit its capacity, so no allocation gives
// n more, which makes the smallest alone value a bound on max-min.
func (m *model) alone(n int) float64 {
	in := m.in
	best := 0.0
	for _, j := range m.byFw[n] {
		g := &in.groups[m.cols[j].g]
		t := math.Inf(1)
		for r, d := range in.fws[n].d {
			if d > 0 {
				t = math.Min(t, float64(g.count)*g.cap[r]/d)
			}
		}
		best += m.coef[j] * t
	}
	return best
}

// scale is the geometric mean of the frameworks' best criterion value when
// alone (capacity only), a unit that keeps LP levels near 1.
func (m *model) scale() float64 {
	s, k := 0.0, 0
	for n := range m.byFw {
		best := m.alone(n)
		if best > 0 && !math.IsInf(best, 0) {
			s += math.Log(best)
			k++
		}
	}
	if k == 0 {
		return 1
	}
	return math.Exp(s / float64(k))
}

// solveEfficiency maximises eq. 10, Σ_n φ_n x_n.
func solveEfficiency(ctx context.Context, m *model, backend string) (*exactResult, error) {
	cost := func(k int) float64 { return m.in.fws[m.cols[k].n].phi }
	res := &exactResult{x: make([]float64, len(m.cols))}
	// One LP grown by priced columns and re-solved warm, as in solveMMF.
	b := m.buildRows(cost, nil, true)
	inc, err := lp.NewIncremental(b.lm, lp.Options{Backend: backend})
	if err != nil {
		return nil, fmt.Errorf("fairshare: lp: %w", err)
	}
	defer inc.Close()
	for {
		sol, err := solveIncremental(ctx, inc)
		res.lps++
		if err != nil {
			if errors.Is(err, errBudget) {
				res.timeout = true
				break
			}
			return nil, err
		}
		res.backend = sol.Backend
		res.x = m.xOf(b, sol)
		res.bound = sol.Objective
		if m.price(b, sol) == 0 {
			break
		}
		m.addPriced(inc, b)
	}
	m.repair(res.x)
	res.objective = 0
	for k, c := range m.cols {
		res.objective += m.in.fws[c.n].phi * res.x[k]
	}
	if res.timeout {
		res.bound = math.Inf(1)
	}
	res.bound = math.Max(res.bound, res.objective)
	return res, nil
}

// capRow is one capacity row: group g, resource r, pooled capacity C.
type capRow struct {
	row  int
	g, r int
	C    float64
}

// criterionCoef returns u_{n,g}/φ_n for the criterion (eq. 2): tasks 1,
// drf max_r d/Σc (eq. 3), psdsf Σ_i max_r d/c_i (eq. 4 summed over the
// servers n may use), generic the request's utility.
func (in *instance) criterionCoef(crit string, n, j int) float64 {
	f := &in.fws[n]
	switch crit {
	case CriterionDRF:
		return in.dominantPerTask(n) / f.phi
	case CriterionPSDSF:
		s := 0.0
		for k, sv := range in.servers {
			if !in.usable(n, k) {
				continue
			}
			m := 0.0
			for r, d := range f.d {
				if d > 0 {
					m = math.Max(m, d/sv.cap[r])
				}
			}
			s += float64(sv.count) * m
		}
		return s / f.phi
	case CriterionGeneric:
		return f.utility(j) / f.phi
	default:
		return 1 / f.phi
	}
}
