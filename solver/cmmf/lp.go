package cmmf

import (
	"context"
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

// lpTol: CLP's primal feasibility tolerance is 1e-7; a user counts as
// able to rise only when its rise beats that, so solver noise never keeps
// a user active, and a demand within lpTol (relative) of the level counts
// as reached.
const lpTol = 1e-7

type lpModel struct {
	m   *lp.Model
	x   map[[2]int]int // (class, type) → column
	y   []int          // user → column
	mv  int            // M's column, or -1
	s   map[int]int    // undecided user → rise column
	cls []class
}

func solveDivisibleLP(ctx context.Context, in *Instance) (*Allocation, error) {
	a := newAllocation(in)
	rp := newRoundProgress(ctx, len(in.Users))
	n := len(in.Users)
	cs := buildClasses(in)
	frozen := make([]bool, n)
	amount := make([]float64, n) // frozen users' totals
	for i, u := range in.Users {
		if u.Demand == 0 || reachOf(in, i) == 0 {
			frozen[i] = true
			a.Level[i] = 0
			a.Capped[i] = u.Demand == 0
			rp.freeze(a, i)
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var active []int
		for i := range frozen {
			if !frozen[i] {
				active = append(active, i)
			}
		}
		if len(active) == 0 {
			break
		}
		// Round LP: maximise M.
		lm := buildLP(in, cs, frozen, amount, lpRound, math.NaN(), nil)
		sol, err := solveLP(ctx, lm.m)
		a.Flows++
		if err != nil {
			return nil, err
		}
		M := sol.X[lm.mv]
		progress := false
		var undecided []int
		for _, i := range active {
			u := in.Users[i]
			if u.Demand <= u.Weight*M*(1+lpTol) {
				frozen[i], a.Capped[i] = true, true
				amount[i] = u.Demand
				a.Level[i] = u.Demand / u.Weight
				rp.freeze(a, i)
				progress = true
				continue
			}
			undecided = append(undecided, i)
		}
		// SATURATED, batched.
		for len(undecided) > 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			lm := buildLP(in, cs, frozen, amount, lpSaturation, M, undecided)
			sol, err := solveLP(ctx, lm.m)
			a.Flows++
			if err != nil {
				return nil, err
			}
			var still []int
			for _, i := range undecided {
				if sol.X[lm.s[i]] <= lpTol {
					still = append(still, i)
				}
			}
			if len(still) == len(undecided) {
				for _, i := range still {
					frozen[i] = true
					amount[i] = in.Users[i].Weight * M
					a.Level[i] = M
					rp.freeze(a, i)
					progress = true
				}
				break
			}
			undecided = still
		}
		if !progress {
			return nil, fmt.Errorf("cmmf: LP round at level %v froze nobody", M)
		}
		rp.report()
	}
	// Final allocation: every user at its frozen amount.
	lm := buildLP(in, cs, frozen, amount, lpFinal, math.NaN(), nil)
	sol, err := solveLP(ctx, lm.m)
	a.Flows++
	if err != nil {
		return nil, err
	}
	for c, cl := range cs {
		sum := 0.0
		for _, i := range cl.members {
			sum += amount[i]
		}
		for _, t := range cl.types {
			col, ok := lm.x[[2]int{c, t}]
			if !ok || sum <= 0 {
				continue
			}
			f := math.Max(0, sol.X[col])
			for _, i := range cl.members {
				k := sort.SearchInts(in.Users[i].Allowed, t)
				a.Amount[i][k] += f * amount[i] / sum
			}
		}
	}
	a.finishRounds()
	// CLP's feasibility tolerance bounds how exact these amounts are.
	a.Tol = 10 * lpTol
	return a, nil
}

type lpKind int

const (
	lpRound      lpKind = iota // maximise M
	lpSaturation               // maximise the undecided users' rise at level M
	lpFinal                    // everyone at its frozen amount
)

func buildLP(in *Instance, cs []class, frozen []bool, amount []float64, kind lpKind, M float64, undecided []int) *lpModel {
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
			lo, hi := 0.0, u.Demand
			if frozen[i] {
				lo = amount[i]
				if kind == lpFinal {
					hi = amount[i]
				}
			}
			lm.y[i] = m.AddVar(u.Name, lo, math.Max(lo, hi), 0, false)
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
			lm.s[i] = m.AddVar("", 0, 1, 1, false)
			m.AddRow("", []int{lm.y[i], lm.s[i]}, []float64{1, -1}, in.Users[i].Weight*M, math.Inf(1))
		}
		for i, u := range in.Users {
			if !frozen[i] && !isUndecided[i] {
				m.AddRow("", []int{lm.y[i]}, []float64{1}, u.Weight*M, math.Inf(1))
			}
		}
	}
	return lm
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
