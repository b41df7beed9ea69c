package cmmf

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/xflex/xflex/lp"
)

// Whole-machine CMMF by linear programming: the greedy of integer.go with
// every feasibility question answered by an LP instead of a max flow.
//
// The constraint matrix (class totals and type capacities over class-type
// columns) is a network matrix, hence totally unimodular: with integer
// bounds every vertex is integral, so CLP's simplex answers integer
// questions exactly. Each round bisects on the number R of units (in the
// greedy's key order) the active users can all have at once, one
// feasibility LP per probe; the unit after the largest feasible R cannot
// be placed. Then a batched saturation LP (as in the divisible LP method)
// finds every class that cannot gain one more machine; those freeze. It
// shares only the unit order and its selection with the flow method.

func solveIntegerLP(ctx context.Context, in *Instance) (*Allocation, error) {
	a := newAllocation(in)
	rp := newRoundProgress(ctx, len(in.Users))
	s := newIntSolver(in)
	cs := buildClasses(in)
	frozen := make([]bool, len(cs))
	total := make([]int64, len(cs)) // frozen classes' totals
	x := make([]int64, len(in.Users))
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var members []int
		var act []int
		for c, cl := range cs {
			if !frozen[c] {
				act = append(act, c)
				members = append(members, cl.members...)
			}
		}
		if len(act) == 0 {
			break
		}
		var units int64
		for _, i := range members {
			units += s.lim[i]
		}
		want := func(K unitKey) []int64 {
			w := make([]int64, len(cs))
			for _, c := range act {
				for _, i := range cs[c].members {
					w[c] += s.count(i, K)
				}
			}
			return w
		}
		feasible := func(K unitKey) (bool, error) {
			w := want(K)
			for _, c := range act {
				total[c] = w[c]
			}
			m, _, _ := intLP(in, cs, total, nil)
			sol, err := lp.Solve(ctx, m, lp.Options{})
			a.Flows++
			if err != nil {
				return false, fmt.Errorf("cmmf: LP: %w", err)
			}
			if sol.Status == lp.Infeasible {
				return false, nil
			}
			if sol.Status != lp.Optimal {
				if err := ctx.Err(); err != nil {
					return false, err
				}
				if sol.Status == lp.TimeLimit {
					return false, errLPTimeLimit
				}
				return false, fmt.Errorf("cmmf: LP ended %v", sol.Status)
			}
			return true, nil
		}
		// Largest feasible R in [0, units]: everything below the (R+1)-th
		// unit (or all units when R = units).
		keyFor := func(R int64) unitKey {
			if R >= units {
				return unitKey{inf: true}
			}
			return s.selectKey(members, R+1)
		}
		lo, hi := int64(0), units
		if ok, err := feasible(keyFor(hi)); err != nil {
			return nil, err
		} else if ok {
			lo = hi
		}
		for lo < hi {
			mid := lo + (hi-lo+1)/2
			ok, err := feasible(keyFor(mid))
			if err != nil {
				return nil, err
			}
			if ok {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		K := keyFor(lo)
		w := want(K)
		for _, c := range act {
			total[c] = w[c]
			for _, i := range cs[c].members {
				x[i] = s.count(i, K)
			}
		}
		// Which classes cannot gain a machine? Batched: maximise Σ s_c,
		// s_c ∈ [0, 1]; repeat on the undecided until the optimum is 0.
		var undecided []int
		for _, c := range act {
			full := true
			for _, i := range cs[c].members {
				if x[i] < s.lim[i] {
					full = false
				}
			}
			if full {
				frozen[c] = true // every unit placed
			} else {
				undecided = append(undecided, c)
			}
		}
		var tight []int
		for len(undecided) > 0 {
			m, _, rise := intLP(in, cs, total, undecided)
			sol, err := lp.Solve(ctx, m, lp.Options{})
			a.Flows++
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
				return nil, fmt.Errorf("cmmf: saturation LP ended %v", sol.Status)
			}
			var still []int
			for k, c := range undecided {
				if sol.X[rise[k]] < 0.5 { // integral vertex: 0 or 1
					still = append(still, c)
				}
			}
			if len(still) == len(undecided) {
				tight = still
				break
			}
			undecided = still
		}
		if len(tight) == 0 && !K.inf {
			allFull := true
			for _, c := range act {
				if !frozen[c] {
					allFull = false
				}
			}
			if !allFull {
				return nil, fmt.Errorf("cmmf: integer LP round froze nobody")
			}
		}
		for _, c := range tight {
			frozen[c] = true
		}
		// Levels, as in the flow method.
		var next *unitKey
		for _, c := range tight {
			for _, i := range cs[c].members {
				if x[i] < s.lim[i] {
					k := unitKey{k: x[i], u: i}
					if next == nil || s.cmpKey(k, *next) < 0 {
						next = &k
					}
				}
			}
		}
		for _, c := range act {
			if !frozen[c] {
				continue
			}
			for _, i := range cs[c].members {
				u := in.Users[i]
				switch {
				case x[i] == s.lim[i]:
					a.Capped[i] = s.byDemand[i]
					a.Level[i] = float64(x[i]) / u.Weight
				case next != nil:
					a.Level[i] = float64(next.k) / in.Users[next.u].Weight
				default:
					a.Level[i] = float64(x[i]) / u.Weight
				}
				rp.freeze(a, i)
			}
		}
		rp.report()
	}
	// Final allocation: class totals fixed; the vertex is integral.
	m, cols, _ := intLP(in, cs, total, nil)
	sol, err := lp.Solve(ctx, m, lp.Options{})
	a.Flows++
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
		return nil, fmt.Errorf("cmmf: final LP ended %v", sol.Status)
	}
	for c, cl := range cs {
		need := make([]int64, len(cl.members))
		for k, i := range cl.members {
			need[k] = x[i]
		}
		k := 0
		for _, t := range cl.types {
			j, ok := cols[[2]int{c, t}]
			if !ok {
				continue
			}
			v := sol.X[j]
			f := int64(math.Round(v))
			if math.Abs(v-float64(f)) > intLPTol {
				return nil, fmt.Errorf("cmmf: LP vertex not integral (%v)", v)
			}
			for f > 0 && k < len(need) {
				take := min(f, need[k])
				if take > 0 {
					i := cl.members[k]
					a.Amount[i][sort.SearchInts(in.Users[i].Allowed, t)] += float64(take)
				}
				f -= take
				need[k] -= take
				if need[k] == 0 {
					k++
				}
			}
		}
	}
	a.finishRounds()
	return a, nil
}

// intLPTol: vertices of a totally unimodular system with integer data
// are integral; CLP reports them to ~1e-9, so anything further than 1e-6
// from an integer means something is wrong.
const intLPTol = 1e-6

// intLP builds the whole-machine LP: columns per (class, type) with a
// type's machines as bound; each class's columns sum to total[c] (plus
// one rise column for classes in rise, maximised).
func intLP(in *Instance, cs []class, total []int64, rise []int) (*lp.Model, map[[2]int]int, []int) {
	m := lp.NewModel()
	m.Maximize = true
	cols := map[[2]int]int{}
	byType := make([][]int, len(in.Types))
	riseOf := map[int]int{}
	for k, c := range rise {
		riseOf[c] = k
	}
	riseCols := make([]int, len(rise))
	for c, cl := range cs {
		var row []int
		for _, t := range cl.types {
			if in.Types[t].Cap == 0 {
				continue
			}
			j := m.AddVar("", 0, float64(in.Types[t].Cap), 0, false)
			cols[[2]int{c, t}] = j
			row = append(row, j)
			byType[t] = append(byType[t], j)
		}
		coef := ones(len(row))
		if k, ok := riseOf[c]; ok {
			riseCols[k] = m.AddVar("", 0, 1, 1, false)
			row = append(row, riseCols[k])
			coef = append(coef, -1)
		}
		m.AddRow("", row, coef, float64(total[c]), float64(total[c]))
	}
	for t, js := range byType {
		if len(js) > 0 {
			m.AddRow("", js, ones(len(js)), math.Inf(-1), float64(in.Types[t].Cap))
		}
	}
	return m, cols, riseCols
}
