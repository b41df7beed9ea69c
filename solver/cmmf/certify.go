package cmmf

import (
	"fmt"
	"math"
)

// Certify checks an allocation for leximin optimality
// by the exchange criterion, independently of how it was computed.
//
// The feasible totals form an integral polymatroid and the objective is
// separable convex (see integer.go), so an allocation is optimal iff
//
//   - no user below its demand can take an idle machine it can use, even
//     through a chain of reassignments (no residual path to a free
//     machine), and
//   - no single exchange improves it: whenever user i can gain a machine
//     at user j's expense (a residual path from i's class to j's class,
//     or i and j in the same class), i's next unit does not outrank j's
//     last unit, i.e. not x_i/w_i < (x_j−1)/w_j, and on equal shares not
//     w_i < w_j (that exchange would raise the lower share of the pair or,
//     on a tie, the higher one).
//
// Residual paths are found per class (users with the same allowed types)
// by breadth-first search: class → any allowed type; type → a class that
// holds some of it; type → "idle" if the type has free machines. It
// returns nil for an optimal allocation and a description otherwise.
//
// For divisible allocations the same structure applies with real amounts
// (see certifyDivisible).
func Certify(in *Instance, a *Allocation) error {
	cs := buildClasses(in)
	nc, nt := len(cs), len(in.Types)
	holders := make([][]int, nt) // classes holding some of each type
	used := make([]float64, nt)
	for c, cl := range cs {
		held := make([]float64, len(cl.types)) // members all allow cl.types
		for _, i := range cl.members {
			for k, x := range a.Amount[i] {
				held[k] += x
			}
		}
		for k, t := range cl.types {
			used[t] += held[k]
			if held[k] > holdTol(in, a, t) {
				holders[t] = append(holders[t], c)
			}
		}
	}
	if in.Divisible {
		return certifyDivisible(in, a, cs, holders, used)
	}
	s := &intSolver{in: in}
	// Best receiver (next unit) and worst giver (last unit) per class.
	next := make([]*unitKey, nc)
	last := make([]*unitKey, nc)
	for c, cl := range cs {
		for _, i := range cl.members {
			x := int64(a.Total[i] + 0.5)
			if float64(x+1) <= in.Users[i].Demand {
				k := unitKey{k: x, u: i}
				if next[c] == nil || s.cmpShareWeight(k, *next[c]) < 0 {
					next[c] = &k
				}
			}
			if x >= 1 {
				k := unitKey{k: x - 1, u: i}
				if last[c] == nil || s.cmpShareWeight(k, *last[c]) > 0 {
					last[c] = &k
				}
			}
		}
	}
	g := &residualGraph{in: in, cs: cs, holders: holders}
	if !exchangeFound(g, s, used, next, last) {
		return nil
	}
	return exchangeError(g, s, used, next, last)
}

// exchangeFound says whether some class's next unit can improve on the
// last unit of a class it reaches, or reaches an idle machine: one pass
// over the components of the residual graph, each summarised by the
// highest last unit and whether an idle machine is among what it reaches.
func exchangeFound(g *residualGraph, s *intSolver, used []float64, next, last []*unitKey) bool {
	type summary struct {
		idle bool
		last *unitKey
	}
	var sums []summary
	nc := len(g.cs)
	comp := condense(g, func(members, comp []int) {
		var m summary
		merge := func(o summary) {
			m.idle = m.idle || o.idle
			if o.last != nil && (m.last == nil || s.cmpShareWeight(*o.last, *m.last) > 0) {
				m.last = o.last
			}
		}
		for _, v := range members {
			if v < nc {
				merge(summary{last: last[v]})
			} else if t := v - nc; g.in.Types[t].Cap > 0 && used[t] < float64(g.in.Types[t].Cap) {
				m.idle = true
			}
			for k := 0; ; k++ {
				w, ok := g.succ(v, k)
				if !ok {
					break
				}
				if w >= 0 && comp[w] != len(sums) {
					merge(sums[comp[w]])
				}
			}
		}
		sums = append(sums, m)
	})
	for c := range nc {
		m := sums[comp[c]]
		if next[c] != nil && (m.idle || m.last != nil && s.cmpShareWeight(*next[c], *m.last) < 0) {
			return true
		}
	}
	return false
}

// exchangeError searches from each class in turn for the first improving
// exchange or reachable idle machine and describes it.
func exchangeError(g *residualGraph, s *intSolver, used []float64, next, last []*unitKey) error {
	in, cs := g.in, g.cs
	seenC := make([]int, len(cs))
	seenT := make([]int, len(in.Types))
	stamp := 0
	for c := range cs {
		if next[c] == nil {
			continue // nobody in the class can take more
		}
		stamp++
		queue := []int{c}
		seenC[c] = stamp
		for h := 0; h < len(queue); h++ {
			d := queue[h]
			if last[d] != nil && s.cmpShareWeight(*next[c], *last[d]) < 0 {
				return fmt.Errorf("user %q can gain a machine from user %q and the exchange improves the leximin vector",
					in.Users[next[c].u].Name, in.Users[last[d].u].Name)
			}
			for _, t := range cs[d].types {
				if seenT[t] == stamp || in.Types[t].Cap == 0 {
					continue
				}
				seenT[t] = stamp
				if used[t] < float64(in.Types[t].Cap) {
					return fmt.Errorf("user %q is below its demand and can reach an idle machine of type %q", in.Users[next[c].u].Name, in.Types[t].Name)
				}
				for _, e := range g.holders[t] {
					if seenC[e] != stamp {
						seenC[e] = stamp
						queue = append(queue, e)
					}
				}
			}
		}
	}
	return nil
}

// cmpShareWeight orders units by share, then weight, ignoring the user
// index: the order in which an exchange counts as an improvement.
func (s *intSolver) cmpShareWeight(a, b unitKey) int {
	wa, wb := s.in.Users[a.u].Weight, s.in.Users[b.u].Weight
	if c := cmpFrac(a.k, wa, b.k, wb); c != 0 {
		return c
	}
	switch {
	case wa < wb:
		return -1
	case wa > wb:
		return 1
	}
	return 0
}

// holdTol is the smallest amount that counts as holding a type: zero for
// whole machines, float noise for divisible ones.
func holdTol(in *Instance, a *Allocation, t int) float64 {
	if !in.Divisible {
		return 0
	}
	return max(certTol, a.Tol)*max(1, float64(in.Types[t].Cap)) + a.Slack
}

// improves reports that moving amount from user j to user i raises the
// lower of their shares by more than the allocation's accuracy: i's share
// plus its amount slack stays below j's share minus its own, by more than
// rel of j's share.
func improves(in *Instance, a *Allocation, rel float64, i, j int) bool {
	return takeLevel(in, a, i) < giveLevel(in, a, rel, j)
}

// takeLevel is the share above which user i, as a receiver, gains nothing.
func takeLevel(in *Instance, a *Allocation, i int) float64 {
	wi := in.Users[i].Weight
	return a.Total[i]/wi + a.Slack/wi
}

// giveLevel is the share a receiver must stay below to gain from user j.
func giveLevel(in *Instance, a *Allocation, rel float64, j int) float64 {
	wj := in.Users[j].Weight
	sj := a.Total[j] / wj
	return sj - a.Slack/wj - rel*max(1, sj)
}

// gainFound says whether some class's receiver reaches an idle type or a
// giver it improves on (see certifyDivisible): one pass over the
// components of the residual graph, each summarised by whether it reaches
// an idle type and by the two reachable givers, from different classes,
// with the highest give levels (a receiver may be its own class's giver).
func gainFound(g *residualGraph, a *Allocation, rel float64, idle func(t int) bool, recv, give []int) bool {
	type summary struct {
		idle bool
		top  [2]int // users, -1 for none; top[0] has the higher level
	}
	in, nc := g.in, len(g.cs)
	level := func(j int) float64 { return giveLevel(in, a, rel, j) }
	var sums []summary
	comp := condense(g, func(members, comp []int) {
		m := summary{top: [2]int{-1, -1}}
		add := func(j int) {
			switch {
			case j < 0 || j == m.top[0] || j == m.top[1]:
			case m.top[0] < 0 || level(j) > level(m.top[0]):
				m.top = [2]int{j, m.top[0]}
			case m.top[1] < 0 || level(j) > level(m.top[1]):
				m.top[1] = j
			}
		}
		for _, v := range members {
			if v < nc {
				add(give[v])
			} else if t := v - nc; in.Types[t].Cap > 0 && idle(t) {
				m.idle = true
			}
			for k := 0; ; k++ {
				w, ok := g.succ(v, k)
				if !ok {
					break
				}
				if w >= 0 && comp[w] != len(sums) {
					o := sums[comp[w]]
					m.idle = m.idle || o.idle
					add(o.top[0])
					add(o.top[1])
				}
			}
		}
		sums = append(sums, m)
	})
	for c := range nc {
		i, m := recv[c], sums[comp[c]]
		if i < 0 {
			continue
		}
		j := m.top[0]
		if j == i {
			j = m.top[1]
		}
		if m.idle || j >= 0 && improves(in, a, rel, i, j) {
			return true
		}
	}
	return false
}

// certifyDivisible is the continuous exchange criterion: an allocation is
// leximin-optimal iff no user below its demand reaches an idle machine,
// and no user i reaches (by a residual path) a user j holding some amount
// with x_i/w_i < x_j/w_j: moving a small amount along the path would raise
// the lower share.
func certifyDivisible(in *Instance, a *Allocation, cs []class, holders [][]int, used []float64) error {
	nc, nt := len(cs), len(in.Types)
	rel := certTol
	if a.Tol > rel {
		rel = a.Tol
	}
	tol := func(v float64) float64 { return rel*max(1, v) + a.Slack } // on amounts
	recv := make([]int, nc)                                           // lowest-share member below demand, or -1
	give := make([]int, nc)                                           // highest-share member holding some, or -1
	share := func(i int) float64 { return a.Total[i] / in.Users[i].Weight }
	for c, cl := range cs {
		recv[c], give[c] = -1, -1
		for _, i := range cl.members {
			d := in.Users[i].Demand
			below := math.IsInf(d, 1) || a.Total[i] < d-tol(d)
			if below && (recv[c] < 0 || share(i) < share(recv[c])) {
				recv[c] = i
			}
			if a.Total[i] > tol(0) && (give[c] < 0 || share(i) > share(give[c])) {
				give[c] = i
			}
		}
	}
	g := &residualGraph{in: in, cs: cs, holders: holders}
	idle := func(t int) bool {
		return used[t] < float64(in.Types[t].Cap)-tol(float64(in.Types[t].Cap))
	}
	if !gainFound(g, a, rel, idle, recv, give) {
		return nil
	}
	seenC := make([]int, nc)
	seenT := make([]int, nt)
	stamp := 0
	for c := range cs {
		i := recv[c]
		if i < 0 {
			continue
		}
		stamp++
		seenC[c] = stamp
		queue := []int{c}
		for h := 0; h < len(queue); h++ {
			d := queue[h]
			if j := give[d]; j >= 0 && j != i && improves(in, a, rel, i, j) {
				return fmt.Errorf("user %q (share %g) can gain from user %q (share %g)", in.Users[i].Name, share(i), in.Users[j].Name, share(j))
			}
			for _, t := range cs[d].types {
				if seenT[t] == stamp || in.Types[t].Cap == 0 {
					continue
				}
				seenT[t] = stamp
				if idle(t) {
					return fmt.Errorf("user %q is below its demand and can reach idle capacity of type %q", in.Users[i].Name, in.Types[t].Name)
				}
				for _, e := range holders[t] {
					if seenC[e] != stamp {
						seenC[e] = stamp
						queue = append(queue, e)
					}
				}
			}
		}
	}
	return nil
}
