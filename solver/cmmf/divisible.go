package cmmf

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/xflex/xflex/flow"
)

// Divisible CMMF by parametric max-flow.
//
// Progressive filling raises a common level λ; user i wants
// c_i(λ) = min(demand_i, w_i·λ). The network is source → class (users with
// the same allowed types) with capacity Σ c_i(λ) → type (unbounded) → sink
// with the type's machine count. λ is feasible iff the max flow saturates
// every source arc. The largest feasible λ of a round is found by Newton's
// method from above (Dinkelbach on min cuts): at an infeasible λ the source
// side X of a minimum cut is a set of classes whose wants exceed the
// machines they can reach, R; the next λ solves Σ_{i∈X} c_i(λ) = R exactly
// (a piecewise-linear equation). Each step lowers λ and the first feasible
// λ is the round's level, because every cut found stays a valid upper bound.
//
// At the level, the saturation test is residual reachability: a class that
// cannot reach the sink in the residual network cannot grow without another
// class shrinking (its reachable types are full and every user of them is
// in the same situation), so its users freeze; every class that can reach
// the sink can grow, and all of them can grow together (the paper's
// convex-combination argument). Frozen classes keep exactly the types they
// reach, and nobody else uses those types, so both are removed and the next
// round runs on a smaller network. Each round freezes at least one class.

// maxNewton bounds Newton steps per round; each step strictly lowers λ
// and there are at most 2^classes cuts, but in practice 2–6 steps suffice.
const maxNewton = 200

func solveDivisibleFlow(ctx context.Context, in *Instance) (*Allocation, error) {
	d := newDivFlow(ctx, in)
	for last := false; !last; {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		act, inNet := d.play()
		if len(inNet) == 0 {
			break
		}
		net := d.network(inNet)
		lam, lastCut, err := d.level(net, act)
		if err != nil {
			return nil, err
		}
		frozen, err := d.frozen(net, act, lam, lastCut)
		if err != nil {
			return nil, err
		}
		last = d.freeze(net, act, frozen, lam)
		d.rp.report()
	}
	d.a.finishRounds()
	d.a.Slack = flowSlack(in, len(d.cs))
	return d.a, nil
}

// divFlow is the divisible flow method's state across rounds.
type divFlow struct {
	*rounds
	a  *Allocation
	rp *roundProgress
}

// newDivFlow starts the rounds. Classes whose users all want nothing are
// fixed from the start (users with no usable machines freeze at level 0 in
// the first round).
func newDivFlow(ctx context.Context, in *Instance) *divFlow {
	d := &divFlow{rounds: newRounds(in), a: newAllocation(in), rp: newRoundProgress(ctx, len(in.Users))}
	for c := range d.cs {
		if d.wantsNothing(c) {
			d.state[c] = classFixed
		}
	}
	return d
}

func (d *divFlow) wantsNothing(c int) bool {
	for _, i := range d.cs[c].members {
		if d.in.Users[i].Demand > 0 {
			return false
		}
	}
	return true
}

// network builds the round's network with unbounded middle arcs.
// Saturation is decided on amounts of one type at a time, so the zero
// tolerance scales with the largest type, not with the (possibly much
// larger) wants on the source arcs.
func (d *divFlow) network(inNet []int) *classNet[float64] {
	net := newClassNet(d.rounds, inNet, math.Inf(1))
	maxType := 1.0
	for _, t := range net.typesUsed {
		maxType = math.Max(maxType, float64(d.in.Types[t].Cap))
	}
	net.g.SetEps(flow.DefaultRelTol * maxType)
	return net
}

// reach is the machines class c can reach among the alive types.
func (d *divFlow) reach(c int) float64 {
	r := 0.0
	for _, t := range d.cs[c].types {
		if d.alive[t] {
			r += float64(d.in.Types[t].Cap)
		}
	}
	return r
}

// want is class c's total at level lam: its demands when fixed, else
// Σ min(demand_i, w_i·lam).
func (d *divFlow) want(c int, lam float64) float64 {
	w := 0.0
	for _, i := range d.cs[c].members {
		u := d.in.Users[i]
		if d.state[c] == classFixed {
			w += u.Demand
		} else {
			w += math.Min(u.Demand, u.Weight*lam)
		}
	}
	return w
}

// allCapped reports whether every member of class c reaches its demand at
// level lam.
func (d *divFlow) allCapped(c int, lam float64) bool {
	for _, i := range d.cs[c].members {
		if d.in.Users[i].Demand > d.in.Users[i].Weight*lam {
			return false
		}
	}
	return true
}

// level finds the round's level by Newton's method from above: the largest
// λ at which every class in the network gets its want. It also returns the
// classes of the last cut that bounded λ (the class with the smallest
// single-class bound to start with): when round-off hides their saturation
// from the residual test they freeze.
func (d *divFlow) level(net *classNet[float64], act []int) (float64, []int, error) {
	lam, lastCut := d.startLevel(act)
	for step := 0; ; step++ {
		f, total := net.maxFlow(func(c int) float64 { return d.want(c, lam) })
		d.a.Flows++
		if f >= total-float64(len(net.inNet)+1)*net.g.Eps {
			return lam, lastCut, nil
		}
		if step >= maxNewton {
			return 0, nil, fmt.Errorf("cmmf: divisible Newton search did not converge in %d steps", maxNewton)
		}
		next, xAct := d.cutLevel(net, lam)
		if len(xAct) == 0 || !(next < lam) {
			// Round-off: the cut is violated by less than the
			// tolerance can see; lam is the level.
			return lam, lastCut, nil
		}
		lam, lastCut = math.Max(0, next), xAct
	}
}

// startLevel is Newton's starting level: the smallest single-class bound,
// or, when every class fits alone, the level at which everyone is capped.
func (d *divFlow) startLevel(act []int) (float64, []int) {
	lam := math.Inf(1)
	var lastCut []int
	for _, c := range act {
		if l := solveLevel(d.in, d.cs[c].members, d.reach(c)); l < lam {
			lam, lastCut = l, []int{c}
		}
	}
	if !math.IsInf(lam, 1) {
		return lam, lastCut
	}
	lam = 0
	for _, c := range act {
		for _, i := range d.cs[c].members {
			lam = math.Max(lam, d.in.Users[i].Demand/d.in.Users[i].Weight)
		}
	}
	return lam, lastCut
}

// cutLevel reads the min cut of a max flow short of the wants at lam: the
// active classes X on its source side, and the level at which their wants
// equal the machines X reaches less the fixed classes' wants on that side.
func (d *divFlow) cutLevel(net *classNet[float64], lam float64) (float64, []int) {
	side, capR := net.cut(d.in)
	var xAct, members []int
	fixedWant := 0.0
	for _, c := range side {
		if d.state[c] == classFixed {
			fixedWant += d.want(c, lam)
		} else {
			xAct = append(xAct, c)
			members = append(members, d.cs[c].members...)
		}
	}
	return solveLevel(d.in, members, capR-fixedWant), xAct
}

// frozen returns the classes that freeze at level lam: those that cannot
// reach the sink in the residual network. When there are none and no
// active class is capped either, round-off has hidden the saturation and
// the last cut's classes freeze.
func (d *divFlow) frozen(net *classNet[float64], act []int, lam float64, lastCut []int) ([]int, error) {
	frozen := net.stuck()
	if len(frozen) > 0 || len(act) == 0 {
		return frozen, nil
	}
	for _, c := range act {
		if d.allCapped(c, lam) {
			return frozen, nil
		}
	}
	if len(lastCut) == 0 {
		return nil, fmt.Errorf("cmmf: divisible flow made no progress at level %v", lam)
	}
	return lastCut, nil
}

// freeze ends the round at level lam: active classes capped at lam become
// fixed, the classes leaving (every class, on the last round) get their
// levels and amounts, and the frozen classes retire with their types. It
// reports whether this was the last round (no class left active).
func (d *divFlow) freeze(net *classNet[float64], act, frozen []int, lam float64) bool {
	for _, c := range act {
		if d.allCapped(c, lam) {
			d.state[c] = classFixed
		}
	}
	isFrozen := classSet(frozen)
	last := true
	for _, c := range act {
		if d.state[c] == classActive && !isFrozen[c] {
			last = false
		}
	}
	for _, c := range net.inNet {
		if isFrozen[c] || last {
			d.record(c, lam)
		}
	}
	splits := map[int]*classSplit{}
	for _, m := range net.mids {
		if isFrozen[m.c] || last {
			if splits[m.c] == nil {
				splits[m.c] = newClassSplit(d.in, d.cs[m.c], lam)
			}
			splits[m.c].give(d.a, m.t, net.g.Flow(m.e))
		}
	}
	for _, c := range frozen {
		d.retire(c)
	}
	return last
}

// record sets the levels of class c's members at the round's level lam:
// a member at its demand is capped at demand/weight.
func (d *divFlow) record(c int, lam float64) {
	for _, i := range d.cs[c].members {
		u := d.in.Users[i]
		if d.state[c] == classFixed || u.Demand <= u.Weight*lam {
			d.a.Capped[i] = true
			d.a.Level[i] = u.Demand / u.Weight
		} else {
			d.a.Level[i] = lam
		}
		d.rp.freeze(d.a, i)
	}
}

// flowSlack is the absolute accuracy in machines of the divisible flow's
// amounts: each round accepts a flow within one zero tolerance per class
// (flow.DefaultRelTol of the largest type), and amounts below it are not
// seen at all. On clusters of up to ~1e2 machines per type it is below
// certTol; it matters when weights as far apart as 1e-6 and 1e6 meet
// counts near 1e9, where a light user's fair amount can be a hundredth of
// a machine.
func flowSlack(in *Instance, classes int) float64 {
	maxType := 1.0
	for _, t := range in.Types {
		maxType = math.Max(maxType, float64(t.Cap))
	}
	return flow.DefaultRelTol * maxType * float64(classes+1)
}

// solveLevel returns the smallest λ ≥ 0 with Σ_{i∈members} min(d_i, w_i·λ)
// = r, or +Inf when even every demand together stays below r.
func solveLevel(in *Instance, members []int, r float64) float64 {
	if r <= 0 {
		return 0
	}
	type bp struct{ at, d, w float64 }
	bps := make([]bp, 0, len(members))
	for _, i := range members {
		u := in.Users[i]
		bps = append(bps, bp{u.Demand / u.Weight, u.Demand, u.Weight})
	}
	sort.Slice(bps, func(x, y int) bool { return bps[x].at < bps[y].at })
	// W[k] is the weight of the users not yet capped before breakpoint k,
	// summed from the end: subtracting capped weights from a running total
	// cancels (1e6 + 0.001 − 1e6 is 0.0010000000475), which put the level
	// of a 0.001-weight user 14 machines short on a 1e9-machine type.
	W := make([]float64, len(bps)+1)
	for k := len(bps) - 1; k >= 0; k-- {
		W[k] = W[k+1] + bps[k].w
	}
	C := 0.0
	for k, b := range bps {
		if C+W[k]*b.at >= r {
			return (r - C) / W[k]
		}
		C += b.d
	}
	return math.Inf(1)
}

// classSplit divides a class's flow on each of its types among its
// members in proportion to their totals at the round's level (each member
// gets the same mix of types).
type classSplit struct {
	cl  class
	x   []float64 // each member's total at the level
	sum float64
}

func newClassSplit(in *Instance, cl class, lam float64) *classSplit {
	s := &classSplit{cl: cl, x: make([]float64, len(cl.members))}
	for j, i := range cl.members {
		u := in.Users[i]
		s.x[j] = math.Min(u.Demand, u.Weight*lam)
		s.sum += s.x[j]
	}
	return s
}

// give hands out the class's flow f on type t. Every member allows the
// class's types, so t sits at the same position in each member's list.
func (s *classSplit) give(a *Allocation, t int, f float64) {
	if f <= 0 || s.sum <= 0 {
		return
	}
	k := sort.SearchInts(s.cl.types, t)
	for j, i := range s.cl.members {
		if x := s.x[j]; x > 0 {
			a.Amount[i][k] += f * x / s.sum
		}
	}
}
