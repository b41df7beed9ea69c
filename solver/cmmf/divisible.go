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
	a := newAllocation(in)
	rp := newRoundProgress(ctx, len(in.Users))
	cs := buildClasses(in)
	alive := make([]bool, len(in.Types))
	for t := range alive {
		alive[t] = true
	}
	const (
		active = iota
		fixed  // every member at its demand: constant want, still in the network
		done   // frozen and removed with its types
	)
	state := make([]int, len(cs))
	// Classes whose users all want nothing are fixed from the start (users
	// with no usable machines freeze at level 0 in the first round).
	for c := range cs {
		allZero := true
		for _, i := range cs[c].members {
			if in.Users[i].Demand > 0 {
				allZero = false
			}
		}
		if allZero {
			state[c] = fixed
		}
	}

	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var act, inNet []int
		for c := range cs {
			switch state[c] {
			case active:
				act = append(act, c)
				inNet = append(inNet, c)
			case fixed:
				inNet = append(inNet, c)
			}
		}
		if len(inNet) == 0 {
			break
		}
		// Network over alive types and the classes still in play.
		typeNode := make(map[int]int)
		var typesUsed []int
		g := flow.NewNetwork[float64](2)
		const s, t = 0, 1
		classNode := make(map[int]int, len(inNet))
		srcEdge := make(map[int]int, len(inNet))
		for _, c := range inNet {
			classNode[c] = g.AddNode()
			srcEdge[c] = g.AddEdge(s, classNode[c], 0)
		}
		type mid struct{ c, t, e int }
		var mids []mid
		for _, c := range inNet {
			for _, tt := range cs[c].types {
				if !alive[tt] || in.Types[tt].Cap == 0 {
					continue
				}
				v, ok := typeNode[tt]
				if !ok {
					v = g.AddNode()
					typeNode[tt] = v
					typesUsed = append(typesUsed, tt)
				}
				mids = append(mids, mid{c, tt, g.AddEdge(classNode[c], v, math.Inf(1))})
			}
		}
		maxType := 1.0
		for _, tt := range typesUsed {
			g.AddEdge(typeNode[tt], t, float64(in.Types[tt].Cap))
			maxType = math.Max(maxType, float64(in.Types[tt].Cap))
		}
		// Saturation is decided on amounts of one type at a time, so the
		// tolerance scales with the largest type, not with the (possibly
		// much larger) wants on the source arcs.
		g.SetEps(flow.DefaultRelTol * maxType)
		reach := func(c int) float64 { // machines class c can reach
			r := 0.0
			for _, tt := range cs[c].types {
				if alive[tt] {
					r += float64(in.Types[tt].Cap)
				}
			}
			return r
		}
		want := func(c int, lam float64) float64 {
			w := 0.0
			for _, i := range cs[c].members {
				u := in.Users[i]
				if state[c] == fixed {
					w += u.Demand
				} else {
					w += math.Min(u.Demand, u.Weight*lam)
				}
			}
			return w
		}

		// Starting level: the smallest single-class bound, or, when every
		// class fits alone, the level at which everyone is capped.
		// lastCut is the set of classes whose bound lam is: the class with
		// the smallest single-class bound to start with. When round-off
		// hides their saturation from the residual test they freeze.
		lam := math.Inf(1)
		var lastCut []int
		for _, c := range act {
			if l := solveLevel(in, cs[c].members, reach(c)); l < lam {
				lam, lastCut = l, []int{c}
			}
		}
		if math.IsInf(lam, 1) {
			lam = 0
			for _, c := range act {
				for _, i := range cs[c].members {
					lam = math.Max(lam, in.Users[i].Demand/in.Users[i].Weight)
				}
			}
		}
		for step := 0; ; step++ {
			total := 0.0
			for _, c := range inNet {
				w := want(c, lam)
				g.SetCap(srcEdge[c], w)
				total += w
			}
			g.ClearFlow()
			f := g.MaxFlow(s, t)
			a.Flows++
			if f >= total-float64(len(inNet)+1)*g.Eps {
				break
			}
			if step >= maxNewton {
				return nil, fmt.Errorf("cmmf: divisible Newton search did not converge in %d steps", maxNewton)
			}
			side := g.ReachableFrom(s)
			var xAct []int
			fixedWant, capR := 0.0, 0.0
			for _, c := range inNet {
				if !side[classNode[c]] {
					continue
				}
				if state[c] == fixed {
					fixedWant += want(c, lam)
				} else {
					xAct = append(xAct, c)
				}
			}
			for _, tt := range typesUsed {
				if side[typeNode[tt]] {
					capR += float64(in.Types[tt].Cap)
				}
			}
			var members []int
			for _, c := range xAct {
				members = append(members, cs[c].members...)
			}
			next := solveLevel(in, members, capR-fixedWant)
			if len(xAct) == 0 || !(next < lam) {
				// Round-off: the cut is violated by less than the
				// tolerance can see; lam is the level.
				break
			}
			lam = math.Max(0, next)
			lastCut = xAct
		}

		reachSink := g.CanReach(t)
		var frozen []int
		for _, c := range inNet {
			if !reachSink[classNode[c]] {
				frozen = append(frozen, c)
			}
		}
		allCapped := func(c int) bool {
			for _, i := range cs[c].members {
				if in.Users[i].Demand > in.Users[i].Weight*lam {
					return false
				}
			}
			return true
		}
		progress := len(frozen) > 0
		for _, c := range act {
			if allCapped(c) {
				progress = true
			}
		}
		if !progress && len(act) > 0 {
			if len(lastCut) == 0 {
				return nil, fmt.Errorf("cmmf: divisible flow made no progress at level %v", lam)
			}
			frozen = lastCut
		}
		last := len(act) == 0
		for _, c := range act {
			if allCapped(c) {
				state[c] = fixed
			}
		}
		isFrozen := map[int]bool{}
		for _, c := range frozen {
			isFrozen[c] = true
		}
		if !last {
			stillActive := false
			for _, c := range act {
				if state[c] == active && !isFrozen[c] {
					stillActive = true
				}
			}
			last = !stillActive
		}
		// Record levels and allocations of the classes leaving now (and of
		// every class on the last round).
		for _, c := range inNet {
			if !isFrozen[c] && !last {
				continue
			}
			for _, i := range cs[c].members {
				u := in.Users[i]
				if state[c] == fixed || u.Demand <= u.Weight*lam {
					a.Capped[i] = true
					a.Level[i] = u.Demand / u.Weight
				} else {
					a.Level[i] = lam
				}
				rp.freeze(a, i)
			}
		}
		for _, m := range mids {
			if isFrozen[m.c] || last {
				splitClassFlow(in, a, cs[m.c].members, m.t, g.Flow(m.e), lam)
			}
		}
		for _, c := range frozen {
			state[c] = done
			for _, tt := range cs[c].types {
				alive[tt] = false
			}
		}
		rp.report()
		if last {
			break
		}
	}
	a.finishRounds()
	a.Slack = flowSlack(in, len(cs))
	return a, nil
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

// splitClassFlow divides a class's flow on type t among its members in
// proportion to their totals at level lam (each member gets the same mix
// of types).
func splitClassFlow(in *Instance, a *Allocation, members []int, t int, f, lam float64) {
	if f <= 0 {
		return
	}
	sum := 0.0
	for _, i := range members {
		u := in.Users[i]
		sum += math.Min(u.Demand, u.Weight*lam)
	}
	if sum <= 0 {
		return
	}
	for _, i := range members {
		u := in.Users[i]
		x := math.Min(u.Demand, u.Weight*lam)
		if x > 0 {
			k := sort.SearchInts(u.Allowed, t)
			a.Amount[i][k] += f * x / sum
		}
	}
}
