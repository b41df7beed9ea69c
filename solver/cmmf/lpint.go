package cmmf

import (
	"context"
	"errors"
	"fmt"
	"math"

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
	r := newIntLP(ctx, in)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		act, members := r.active()
		if len(act) == 0 {
			break
		}
		K, err := r.level(act, members)
		if err != nil {
			return nil, err
		}
		r.place(act, K)
		tight, err := r.tight(act)
		if err != nil {
			return nil, err
		}
		if len(tight) == 0 && !K.inf && !r.allFrozen(act) {
			return nil, fmt.Errorf("cmmf: integer LP round froze nobody")
		}
		r.freeze(act, tight)
		r.rp.report()
	}
	if err := r.allocate(); err != nil {
		return nil, err
	}
	r.a.finishRounds()
	return r.a, nil
}

// intLPRounds is the whole-machine LP method's state across rounds.
type intLPRounds struct {
	ctx    context.Context
	in     *Instance
	cs     []class
	s      *intSolver
	a      *Allocation
	rp     *roundProgress
	frozen []bool
	total  []int64 // class totals: fixed for frozen classes, the round's for active ones
	x      []int64 // user amounts
}

func newIntLP(ctx context.Context, in *Instance) *intLPRounds {
	cs := buildClasses(in)
	return &intLPRounds{ctx: ctx, in: in, cs: cs, s: newIntSolver(in), a: newAllocation(in),
		rp: newRoundProgress(ctx, len(in.Users)), frozen: make([]bool, len(cs)),
		total: make([]int64, len(cs)), x: make([]int64, len(in.Users))}
}

// active returns the classes not frozen and their members.
func (r *intLPRounds) active() (act, members []int) {
	for c, cl := range r.cs {
		if !r.frozen[c] {
			act = append(act, c)
			members = append(members, cl.members...)
		}
	}
	return act, members
}

// level bisects on the number R of the members' units, in key order, that
// they can all have at once, and returns the key below which they are:
// everything below the (R+1)-th unit, or all units.
func (r *intLPRounds) level(act, members []int) (unitKey, error) {
	var units int64
	for _, i := range members {
		units += r.s.lim[i]
	}
	keyFor := func(R int64) unitKey {
		if R >= units {
			return unitKey{inf: true}
		}
		return r.s.selectKey(members, R+1)
	}
	lo, hi := int64(0), units
	if ok, err := r.feasible(act, keyFor(hi)); err != nil {
		return unitKey{}, err
	} else if ok {
		lo = hi
	}
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		ok, err := r.feasible(act, keyFor(mid))
		if err != nil {
			return unitKey{}, err
		}
		if ok {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return keyFor(lo), nil
}

// feasible reports whether the active classes can have their units below
// K at once, the frozen ones keeping their totals: one feasibility LP.
func (r *intLPRounds) feasible(act []int, K unitKey) (bool, error) {
	r.setTotals(act, K)
	m, _, _ := intLP(r.in, r.cs, r.total, nil)
	_, err := solveLP(r.ctx, m)
	r.a.Flows++
	if errors.Is(err, errLPInfeasible) {
		return false, nil
	}
	return err == nil, err
}

// setTotals sets each active class's total to its units below K.
func (r *intLPRounds) setTotals(act []int, K unitKey) {
	for _, c := range act {
		var w int64
		for _, i := range r.cs[c].members {
			w += r.s.count(i, K)
		}
		r.total[c] = w
	}
}

// place gives the active classes' members their units below the round's
// key K.
func (r *intLPRounds) place(act []int, K unitKey) {
	r.setTotals(act, K)
	for _, c := range act {
		for _, i := range r.cs[c].members {
			r.x[i] = r.s.count(i, K)
		}
	}
}

// tight freezes the active classes whose members have every unit, and
// returns the others that cannot gain a machine. Batched: maximise Σ s_c,
// s_c ∈ [0, 1], over the undecided classes; those with s_c = 0 stay
// undecided; repeat until an optimum raises none of them, which proves
// them all tight.
func (r *intLPRounds) tight(act []int) ([]int, error) {
	var undecided []int
	for _, c := range act {
		if r.hasAll(c) {
			r.frozen[c] = true
		} else {
			undecided = append(undecided, c)
		}
	}
	for len(undecided) > 0 {
		m, _, rise := intLP(r.in, r.cs, r.total, undecided)
		sol, err := solveLP(r.ctx, m)
		r.a.Flows++
		if err != nil {
			return nil, err
		}
		var still []int
		for k, c := range undecided {
			if sol.X[rise[k]] < 0.5 { // integral vertex: 0 or 1
				still = append(still, c)
			}
		}
		if len(still) == len(undecided) {
			return still, nil
		}
		undecided = still
	}
	return nil, nil
}

// hasAll reports whether every member of class c has every unit it could
// want.
func (r *intLPRounds) hasAll(c int) bool {
	for _, i := range r.cs[c].members {
		if r.x[i] < r.s.lim[i] {
			return false
		}
	}
	return true
}

func (r *intLPRounds) allFrozen(act []int) bool {
	for _, c := range act {
		if !r.frozen[c] {
			return false
		}
	}
	return true
}

// freeze freezes the tight classes and records the levels of every class
// frozen this round, as in the flow method.
func (r *intLPRounds) freeze(act, tight []int) {
	for _, c := range tight {
		r.frozen[c] = true
	}
	next := r.s.nextUnit(r.cs, tight, r.x)
	for _, c := range act {
		if !r.frozen[c] {
			continue
		}
		for _, i := range r.cs[c].members {
			r.s.setLevel(r.a, i, r.x[i], next)
			r.rp.freeze(r.a, i)
		}
	}
}

// allocate solves the final LP, class totals fixed, and splits each
// class's machines among its members; the vertex is integral.
func (r *intLPRounds) allocate() error {
	m, cols, _ := intLP(r.in, r.cs, r.total, nil)
	sol, err := solveLP(r.ctx, m)
	r.a.Flows++
	if err != nil {
		return err
	}
	for c, cl := range r.cs {
		w := newWholeSplit(cl.members, r.x)
		for _, t := range cl.types {
			j, ok := cols[[2]int{c, t}]
			if !ok {
				continue
			}
			v := sol.X[j]
			f := int64(math.Round(v))
			if math.Abs(v-float64(f)) > intLPTol {
				return fmt.Errorf("cmmf: LP vertex not integral (%v)", v)
			}
			w.give(r.in, r.a, t, f)
		}
	}
	return nil
}

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
