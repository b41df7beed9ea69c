package cmmf

import (
	"context"
	"fmt"
	"math"

	"github.com/xflex/xflex/lp"
)

// Divisible CMMF by iterative linear programming: the paper's Algorithm 1
// over machine types (the "coalescing identical machines" optimisation of
// §5.1), extended with weights and demand caps.
//
// Round r maximises M subject to: every type's users together get at most
// its machines; each frozen user keeps its frozen amount; each active user
// gets at least w_i·M and at most its demand, with M ≤ min demand_i/w_i
// over active users. Users whose demand is reached freeze (capped); then
// SATURATED runs one LP per remaining active user u, maximising u's total
// while everyone else keeps its level, and freezes u when it cannot rise.
// One shortcut, in the spirit of the paper's "identify frozen users
// faster": a user with an unused machine of an allowed type in the round's
// solution can clearly rise, so its LP is skipped.

// lpTol: CLP's primal feasibility tolerance is 1e-7; a user counts as able
// to rise only when its LP optimum beats its level by more than that
// (relative to the level), so solver noise never keeps a user active.
const lpTol = 1e-7

func solveDivisibleLP(ctx context.Context, in *Instance) (*Allocation, error) {
	a := newAllocation(in)
	n := len(in.Users)
	frozen := make([]bool, n)
	amount := make([]float64, n) // frozen users' totals
	for i, u := range in.Users {
		if u.Demand == 0 || len(u.Allowed) == 0 || reachOf(in, i) == 0 {
			frozen[i] = true
			a.Level[i] = 0
			a.Capped[i] = u.Demand == 0
		}
	}
	var lastX [][]float64
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		active := 0
		for i := range frozen {
			if !frozen[i] {
				active++
			}
		}
		if active == 0 {
			break
		}
		// Round LP: maximise M.
		m, xv, mv := buildLP(in, frozen, amount, -1, math.NaN())
		sol, err := solveLP(ctx, m)
		a.Flows++
		if err != nil {
			return nil, err
		}
		M := sol.X[mv]
		lastX = extractX(in, sol.X, xv)
		used := make([]float64, len(in.Types))
		for i, row := range lastX {
			for k, t := range in.Users[i].Allowed {
				used[t] += row[k]
			}
		}
		progress := false
		var rising []int
		for i, u := range in.Users {
			if frozen[i] {
				continue
			}
			if u.Demand <= u.Weight*M*(1+lpTol) {
				frozen[i], a.Capped[i] = true, true
				amount[i] = u.Demand
				a.Level[i] = u.Demand / u.Weight
				progress = true
				continue
			}
			slack := false
			for _, t := range u.Allowed {
				if used[t] < float64(in.Types[t].Cap)*(1-lpTol)-lpTol {
					slack = true
				}
			}
			if !slack {
				rising = append(rising, i)
			}
		}
		// SATURATED: one LP per user without visible slack.
		var sat []int
		for _, u := range rising {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			m, xv, _ := buildLP(in, frozen, amount, u, M)
			sol, err := solveLP(ctx, m)
			a.Flows++
			if err != nil {
				return nil, err
			}
			tot := 0.0
			for _, j := range xv[u] {
				tot += sol.X[j]
			}
			w := in.Users[u].Weight
			if tot <= w*M*(1+lpTol)+lpTol {
				sat = append(sat, u)
			}
		}
		for _, u := range sat {
			frozen[u] = true
			amount[u] = in.Users[u].Weight * M
			a.Level[u] = M
			progress = true
		}
		if !progress {
			return nil, fmt.Errorf("cmmf: LP round at level %v froze nobody", M)
		}
	}
	if lastX == nil {
		// Everyone froze before any LP (no demand or no machines).
		a.finishRounds()
		return a, nil
	}
	// The last round's LP respects every frozen amount; re-solve once with
	// all users frozen so the allocation matches the final levels.
	m, xv, _ := buildLP(in, frozen, amount, -2, math.NaN())
	sol, err := solveLP(ctx, m)
	a.Flows++
	if err != nil {
		return nil, err
	}
	a.Amount = extractX(in, sol.X, xv)
	a.finishRounds()
	return a, nil
}

func reachOf(in *Instance, i int) int64 {
	var r int64
	for _, t := range in.Users[i].Allowed {
		r += in.Types[t].Cap
	}
	return r
}

// buildLP builds a round LP. focus = -1: maximise M over active users.
// focus = u ≥ 0: the saturation LP for u (others active at level M,
// maximise u's total). focus = -2: a feasibility LP with everyone at
// their frozen amount (objective: nothing). xv[i][k] is the column of
// user i's k-th allowed type; mv the column of M (or -1).
func buildLP(in *Instance, frozen []bool, amount []float64, focus int, M float64) (*lp.Model, [][]int, int) {
	m := lp.NewModel()
	m.Maximize = true
	xv := make([][]int, len(in.Users))
	for i, u := range in.Users {
		xv[i] = make([]int, len(u.Allowed))
		for k, t := range u.Allowed {
			cost := 0.0
			if i == focus {
				cost = 1
			}
			xv[i][k] = m.AddVar("", 0, float64(in.Types[t].Cap), cost, false)
		}
	}
	mv := -1
	if focus == -1 {
		hi := math.Inf(1)
		for i, u := range in.Users {
			if !frozen[i] {
				hi = math.Min(hi, u.Demand/u.Weight)
			}
		}
		mv = m.AddVar("M", 0, hi, 1, false)
	}
	byType := make([][]int, len(in.Types))
	for i, u := range in.Users {
		for k, t := range u.Allowed {
			byType[t] = append(byType[t], xv[i][k])
		}
	}
	for t, cols := range byType {
		if len(cols) == 0 {
			continue
		}
		m.AddRow(in.Types[t].Name, cols, ones(len(cols)), math.Inf(-1), float64(in.Types[t].Cap))
	}
	for i, u := range in.Users {
		cols := append([]int(nil), xv[i]...)
		coef := ones(len(cols))
		switch {
		case frozen[i] && focus == -2:
			m.AddRow(u.Name, cols, coef, amount[i], amount[i])
		case frozen[i]:
			m.AddRow(u.Name, cols, coef, amount[i], math.Max(amount[i], u.Demand))
		case focus == -1:
			cols = append(cols, mv)
			coef = append(coef, -u.Weight)
			m.AddRow(u.Name, cols, coef, 0, math.Inf(1))
			m.AddRow(u.Name+"/demand", xv[i], ones(len(xv[i])), math.Inf(-1), u.Demand)
		default: // the focus user and the other active users

			m.AddRow(u.Name, cols, coef, u.Weight*M, u.Demand)
		}
	}
	return m, xv, mv
}

func ones(n int) []float64 {
	o := make([]float64, n)
	for k := range o {
		o[k] = 1
	}
	return o
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
		return nil, fmt.Errorf("cmmf: LP ended %v", sol.Status)
	}
	return sol, nil
}

func extractX(in *Instance, x []float64, xv [][]int) [][]float64 {
	out := make([][]float64, len(in.Users))
	for i := range in.Users {
		out[i] = make([]float64, len(xv[i]))
		for k, j := range xv[i] {
			out[i][k] = math.Max(0, x[j])
		}
	}
	return out
}
