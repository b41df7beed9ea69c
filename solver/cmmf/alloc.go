package cmmf

import (
	"cmp"
	"math"
	"slices"
	"sort"
)

// Allocation is what an algorithm returns for an Instance.
type Allocation struct {
	// Amount[i][k] is user i's amount of type Users[i].Allowed[k].
	Amount [][]float64
	// Total[i] is user i's total.
	Total []float64
	// Level[i] is the progressive-filling level at which user i froze
	// (total/weight for divisible allocations; see Round).
	Level []float64
	// Capped[i] reports that user i stopped at its demand.
	Capped []bool
	// Rounds orders the freezing events by level.
	Rounds []Round
	// Flows counts max-flow (or LP) solves, for benchmarks and notes.
	Flows int
	// Tol is the relative accuracy of divisible amounts (0: certTol);
	// the certificate allows this much slack.
	Tol float64
	// Slack is the absolute accuracy of divisible amounts in machines on
	// top of Tol: what float64 and the method's own tolerances can
	// resolve on this instance's scale (a share differs by Slack/weight).
	Slack float64
}

// Round is one level of progressive filling: the users that froze there.
type Round struct {
	Level  float64
	Users  []int
	Capped []int
}

func newAllocation(in *Instance) *Allocation {
	n := len(in.Users)
	a := &Allocation{
		Amount: make([][]float64, n),
		Total:  make([]float64, n),
		Level:  make([]float64, n),
		Capped: make([]bool, n),
	}
	for i, u := range in.Users {
		a.Amount[i] = make([]float64, len(u.Allowed))
	}
	return a
}

// set records user i's amount of type t.
func (a *Allocation) set(in *Instance, i, t int, v float64) {
	k := sort.SearchInts(in.Users[i].Allowed, t)
	a.Amount[i][k] = v
}

// finishRounds groups users by their freezing level (equal floats only;
// levels of one round are computed by one expression so they compare
// equal) and fills Total from Amount.
func (a *Allocation) finishRounds() {
	n := len(a.Total)
	for i := range a.Total {
		s := 0.0
		for _, v := range a.Amount[i] {
			s += v
		}
		a.Total[i] = s
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(a.Level[x], a.Level[y]) })
	a.Rounds = nil
	for _, i := range order {
		if len(a.Rounds) == 0 || a.Rounds[len(a.Rounds)-1].Level != a.Level[i] {
			a.Rounds = append(a.Rounds, Round{Level: a.Level[i]})
		}
		r := &a.Rounds[len(a.Rounds)-1]
		r.Users = append(r.Users, i)
		if a.Capped[i] {
			r.Capped = append(r.Capped, i)
		}
	}
}

// class groups users with the same allowed types: they share a node in the
// flow network, since any flow to the group can be split among its members
// in any proportion.
type class struct {
	types   []int
	members []int
}

// buildClasses groups users by their allowed type set, in order of first
// member. Users whose lists are one shared slice (Build gives every user of
// a predicate list the same one) are grouped by that slice; other sets are
// looked up by a hash of their types and compared in full, so no key is
// built per user (a user may allow thousands of types).
func buildClasses(in *Instance) []class {
	type sliceID struct {
		first *int
		n     int
	}
	bySlice := map[sliceID]int{} // shared slice → its class
	byHash := map[uint64][]int{} // hash → classes with that hash
	var cs []class
	for i, u := range in.Users {
		var id sliceID
		if len(u.Allowed) > 0 {
			id = sliceID{&u.Allowed[0], len(u.Allowed)}
		}
		c, ok := bySlice[id]
		if !ok || id.first == nil {
			h := hashInts(u.Allowed)
			c = slices.IndexFunc(byHash[h], func(c int) bool { return slices.Equal(cs[c].types, u.Allowed) })
			if c >= 0 {
				c = byHash[h][c]
			} else {
				c = len(cs)
				byHash[h] = append(byHash[h], c)
				cs = append(cs, class{types: u.Allowed})
			}
			if id.first != nil {
				bySlice[id] = c
			}
		}
		cs[c].members = append(cs[c].members, i)
	}
	return cs
}

// hashInts is the FNV-1a hash of a list of ints.
func hashInts(a []int) uint64 {
	h := uint64(14695981039346656037)
	for _, v := range a {
		h = (h ^ uint64(v)) * 1099511628211
	}
	return h
}

// Shares returns total/weight per user.
func (a *Allocation) Shares(in *Instance) []float64 {
	s := make([]float64, len(a.Total))
	for i, u := range in.Users {
		s[i] = a.Total[i] / u.Weight
	}
	return s
}

// Leximin returns the weighted shares sorted ascending.
func (a *Allocation) Leximin(in *Instance) []float64 {
	s := a.Shares(in)
	sort.Float64s(s)
	return s
}

func roundNames(in *Instance, users []int) []string {
	out := make([]string, len(users))
	for k, i := range users {
		out[k] = in.Users[i].Name
	}
	return out
}

// clean removes float noise from reported amounts: values within
// reportTol of an integer are snapped to it and negatives to zero.
func clean(v float64) float64 {
	if r := math.Round(v); math.Abs(v-r) <= reportTol*math.Max(1, math.Abs(v)) {
		v = r
	}
	if v <= 0 {
		return 0
	}
	return v
}
