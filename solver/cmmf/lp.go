package cmmf

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/xflex/xflex/lp"
)

// Divisible CMMF by iterative linear programming: the paper's Algorithm 1,
// extended with weights and demand caps, and solved by lp.Solve (CLP).
//
// Variables. The paper's x_{i,j} (user i's amount of machine j) with its
// "coalescing identical machines" optimisation (§5.1) becomes one column
// per (class, type): users with the same allowed types form a class, and
// y_i, user i's total, splits the class's amount. So the LP has classes ×
// types + users columns instead of users × machines.
//
// Round r maximises M subject to: Σ_classes x_{c,t} ≤ machines of t;
// Σ_{i∈c} y_i = Σ_t x_{c,t}; frozen users keep y_i ≥ their frozen amount;
// active users have w_i·M ≤ y_i ≤ demand_i, with M ≤ min demand_i/w_i.
// Users whose demand is reached at M freeze (capped).
//
// SATURATED. The paper solves one LP per active user ("can u rise while
// everyone else keeps its level?"). That is exact but costs one LP per
// user per round. xflex asks the same question of all undecided users at
// once: maximise Σ s_u with y_u ≥ w_u·M + s_u, 0 ≤ s_u ≤ 1, everyone else
// at ≥ its level. Users with s_u > 0 in the optimum can rise; if some
// undecided user could rise alone by ε > 0 the optimum is ≥ min(ε, 1) > 0,
// so an optimum with every s_u = 0 proves all of them saturated. Repeat
// on the users still undecided; every repetition decides at least one.

// lpBackoff is the relative amount by which the bounds read off earlier
// LPs (w·M for users at a level, frozen amounts) are lowered when an LP
// with them exact is infeasible. M is a double read off a vertex: w·M can
// lie a few ulps above what the machines support, and once amounts reach
// ~1e8 machines an ulp (1.2e-7 near 1e9) exceeds CLP's absolute
// tolerance, so those bounds made the next LP infeasible (issue 15: every
// count 1e9, method lp, 500 "LP ended infeasible"). 1e-13 is ~450 ulps.
// Exact bounds are tried first so that every instance they solve keeps
// its exact amounts.
const lpBackoff = 1e-13

// lpSlack bounds, in machines, what the backed-off bounds free together
// when backed off (Σ w·M ≤ the machines, so at most lpBackoff of them),
// with a factor 10
// of margin: a user whose rise stays within lpTol plus this is saturated.
// Below lpTol on clusters of up to 1e5 machines, so exactness there is
// unchanged.
func lpSlack(in *Instance) float64 {
	return 10 * lpBackoff * machineCount(in)
}

type lpModel struct {
	m   *lp.Model
	x   map[[2]int]int // (class, type) → column
	y   []int          // user → column
	mv  int            // M's column, or -1
	s   map[int]int    // undecided user → rise column
	cls []class
}

func solveDivisibleLP(ctx context.Context, in *Instance) (*Allocation, error) {
	d := newDivLP(ctx, in)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		active := d.active()
		if len(active) == 0 {
			break
		}
		M, err := d.level()
		if err != nil {
			return nil, err
		}
		capped, undecided := d.freezeCapped(active, M)
		saturated, err := d.saturate(M, undecided)
		if err != nil {
			return nil, err
		}
		if !capped && !saturated {
			return nil, fmt.Errorf("cmmf: LP round at level %v froze nobody", M)
		}
		d.rp.report()
	}
	if err := d.allocate(); err != nil {
		return nil, err
	}
	d.a.finishRounds()
	// CLP's feasibility tolerance bounds how exact these amounts are.
	d.a.Tol = 10 * lpTol
	d.a.Slack = 10 * (lpTol + d.slack)
	return d.a, nil
}

// divLP is the divisible LP method's state across rounds.
type divLP struct {
	ctx    context.Context
	in     *Instance
	cs     []class
	a      *Allocation
	rp     *roundProgress
	frozen []bool
	amount []float64 // frozen users' totals
	slack  float64   // lpSlack(in)
}

// newDivLP starts the rounds with the users who want nothing or can use
// no machine frozen at level 0.
func newDivLP(ctx context.Context, in *Instance) *divLP {
	n := len(in.Users)
	d := &divLP{ctx: ctx, in: in, cs: buildClasses(in), a: newAllocation(in), rp: newRoundProgress(ctx, n),
		frozen: make([]bool, n), amount: make([]float64, n), slack: lpSlack(in)}
	for i, u := range in.Users {
		if u.Demand == 0 || reachOf(in, i) == 0 {
			d.frozen[i] = true
			d.a.Level[i] = 0
			d.a.Capped[i] = u.Demand == 0
			d.rp.freeze(d.a, i)
		}
	}
	return d
}

func (d *divLP) active() []int {
	var active []int
	for i := range d.frozen {
		if !d.frozen[i] {
			active = append(active, i)
		}
	}
	return active
}

// solve solves the LP of the given kind (see solveBacked).
func (d *divLP) solve(kind lpKind, M float64, undecided []int) (*lpModel, *lp.Solution, error) {
	return solveBacked(d.ctx, d.a, func(backoff float64) *lpModel {
		return buildLP(d.in, d.cs, d.frozen, d.amount, kind, M, undecided, backoff)
	})
}

// level is the round LP's optimum: the largest level M every active user
// can have at once.
func (d *divLP) level() (float64, error) {
	lm, sol, err := d.solve(lpRound, math.NaN(), nil)
	if err != nil {
		return 0, err
	}
	return sol.X[lm.mv], nil
}

// freezeCapped freezes the active users whose demand is reached at level
// M (capped) and returns whether there were any, and the other users.
func (d *divLP) freezeCapped(active []int, M float64) (bool, []int) {
	capped := false
	var undecided []int
	for _, i := range active {
		u := d.in.Users[i]
		if u.Demand > u.Weight*M*(1+lpTol) {
			undecided = append(undecided, i)
			continue
		}
		d.frozen[i], d.a.Capped[i] = true, true
		d.amount[i] = u.Demand
		d.a.Level[i] = u.Demand / u.Weight
		d.rp.freeze(d.a, i)
		capped = true
	}
	return capped, undecided
}

// saturate is SATURATED, batched: it asks the saturation LP which
// undecided users can rise above M, until an optimum raises none of those
// left; they freeze at M. It reports whether any froze.
func (d *divLP) saturate(M float64, undecided []int) (bool, error) {
	for len(undecided) > 0 {
		if err := d.ctx.Err(); err != nil {
			return false, err
		}
		lm, sol, err := d.solve(lpSaturation, M, undecided)
		if err != nil {
			return false, err
		}
		var still []int
		for _, i := range undecided {
			if sol.X[lm.s[i]] <= lpTol+d.slack {
				still = append(still, i)
			}
		}
		if len(still) == len(undecided) {
			for _, i := range still {
				d.frozen[i] = true
				d.amount[i] = d.in.Users[i].Weight * M
				d.a.Level[i] = M
				d.rp.freeze(d.a, i)
			}
			return true, nil
		}
		undecided = still
	}
	return false, nil
}

// allocate solves the final LP, every user at its frozen amount, and
// splits each class's amount of a type among its members in proportion
// to their totals.
func (d *divLP) allocate() error {
	lm, sol, err := d.solve(lpFinal, math.NaN(), nil)
	if err != nil {
		return err
	}
	for c, cl := range d.cs {
		sum := 0.0
		for _, i := range cl.members {
			sum += d.amount[i]
		}
		for _, t := range cl.types {
			col, ok := lm.x[[2]int{c, t}]
			if !ok || sum <= 0 {
				continue
			}
			f := math.Max(0, sol.X[col])
			for _, i := range cl.members {
				k := sort.SearchInts(d.in.Users[i].Allowed, t)
				d.a.Amount[i][k] += f * d.amount[i] / sum
			}
		}
	}
	return nil
}

type lpKind int

const (
	lpRound      lpKind = iota // maximise M
	lpSaturation               // maximise the undecided users' rise at level M
	lpFinal                    // everyone at its frozen amount
)

// buildLP builds one LP of the method; backoff (0 or lpBackoff) lowers
// the bounds taken from earlier LPs.
func buildLP(in *Instance, cs []class, frozen []bool, amount []float64, kind lpKind, M float64, undecided []int, backoff float64) *lpModel {
	m := lp.NewModel()
	m.Maximize = true
	lm := &lpModel{m: m, x: map[[2]int]int{}, y: make([]int, len(in.Users)), mv: -1, s: map[int]int{}, cls: cs}
	byType := make([][]int, len(in.Types))
	for c, cl := range cs {
		var cols []int
		for _, t := range cl.types {
			if in.Types[t].Cap == 0 {
				continue
			}
			j := m.AddVar("", 0, float64(in.Types[t].Cap), 0, false)
			lm.x[[2]int{c, t}] = j
			cols = append(cols, j)
			byType[t] = append(byType[t], j)
		}
		coef := make([]float64, 0, len(cols)+len(cl.members))
		for range cols {
			coef = append(coef, 1)
		}
		for _, i := range cl.members {
			u := in.Users[i]
			lo, hi, cost := 0.0, u.Demand, 0.0
			if frozen[i] {
				// Backed off, the final LP pushes every total up to its
				// frozen amount as far as the machines allow.
				lo = amount[i] * (1 - backoff)
				if kind == lpFinal {
					hi, cost = amount[i], 1
				}
			}
			lm.y[i] = m.AddVar(u.Name, lo, math.Max(lo, hi), cost, false)
			cols = append(cols, lm.y[i])
			coef = append(coef, -1)
		}
		m.AddRow("", cols, coef, 0, 0) // the class's types = its users' totals
	}
	for t, cols := range byType {
		if len(cols) > 0 {
			m.AddRow(in.Types[t].Name, cols, ones(len(cols)), math.Inf(-1), float64(in.Types[t].Cap))
		}
	}
	switch kind {
	case lpRound:
		hi := math.Inf(1)
		for i, u := range in.Users {
			if !frozen[i] {
				hi = math.Min(hi, u.Demand/u.Weight)
			}
		}
		lm.mv = m.AddVar("M", 0, hi, 1, false)
		for i, u := range in.Users {
			if !frozen[i] {
				m.AddRow("", []int{lm.y[i], lm.mv}, []float64{1, -u.Weight}, 0, math.Inf(1))
			}
		}
	case lpSaturation:
		isUndecided := map[int]bool{}
		for _, i := range undecided {
			isUndecided[i] = true
			lm.s[i] = m.AddVar("", 0, riseCap(in), 1, false)
			m.AddRow("", []int{lm.y[i], lm.s[i]}, []float64{1, -1}, in.Users[i].Weight*M*(1-backoff), math.Inf(1))
		}
		for i, u := range in.Users {
			if !frozen[i] && !isUndecided[i] {
				m.AddRow("", []int{lm.y[i]}, []float64{1}, u.Weight*M*(1-backoff), math.Inf(1))
			}
		}
	}
	return lm
}

// riseCap bounds the saturation LP's rise columns: 1 machine, or more
// when lpSlack (the threshold a rise must beat) approaches it on clusters
// of ~1e12 machines.
func riseCap(in *Instance) float64 {
	return max(1, 10*(lpTol+lpSlack(in)))
}

func ones(n int) []float64 {
	o := make([]float64, n)
	for k := range o {
		o[k] = 1
	}
	return o
}

// errLPTimeLimit: the LP backend stopped at the time limit it derives from
// the context's deadline. It can fire a moment before the context itself
// reports the deadline, so it wraps context.DeadlineExceeded for Solve to
// treat as the budget running out (it was reported as an internal error).
var errLPTimeLimit = fmt.Errorf("cmmf: LP stopped at the budget's time limit: %w", context.DeadlineExceeded)

// errLPInfeasible: CLP found an LP of the method infeasible.
var errLPInfeasible = errors.New("cmmf: LP ended infeasible")

// solveBacked solves the LP build(0) and, when it is infeasible, build(
// lpBackoff) (see lpBackoff), counting each solve in a.Flows.
func solveBacked(ctx context.Context, a *Allocation, build func(backoff float64) *lpModel) (*lpModel, *lp.Solution, error) {
	lm := build(0)
	sol, err := solveLP(ctx, lm.m)
	a.Flows++
	if errors.Is(err, errLPInfeasible) {
		lm = build(lpBackoff)
		sol, err = solveLP(ctx, lm.m)
		a.Flows++
	}
	return lm, sol, err
}

func solveLP(ctx context.Context, m *lp.Model) (*lp.Solution, error) {
	sol, err := lp.Solve(ctx, m, lp.Options{})
	if err != nil {
		return nil, fmt.Errorf("cmmf: LP: %w", err)
	}
	if sol.Status != lp.Optimal {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if sol.Status == lp.TimeLimit {
			return nil, errLPTimeLimit
		}
		if sol.Status == lp.Infeasible {
			return nil, errLPInfeasible
		}
		return nil, fmt.Errorf("cmmf: LP ended %v", sol.Status)
	}
	return sol, nil
}

// reachOf is the number of machines user i can use at all.
func reachOf(in *Instance, i int) int64 {
	var r int64
	for _, t := range in.Users[i].Allowed {
		r += in.Types[t].Cap
	}
	return r
}
