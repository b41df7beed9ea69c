package ptas

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// Instance is an X-Size instance in normalized units (each coordinate
// divided by the cluster total of its resource), with identical requests
// already aggregated.
type Instance struct {
	// U holds the distinct requests; every coordinate is finite and ≥ 0.
	U [][]float64
	// W holds their positive weights.
	W []float64
	// Caps are the normalized node-type capacities; empty means shapes are
	// not constrained by node types. Every request fits at least one.
	Caps [][]float64
	// K ≥ 1 is the number of shapes allowed.
	K int
}

// Dim is the number of resources.
func (in *Instance) Dim() int {
	if len(in.U) == 0 {
		return 0
	}
	return len(in.U[0])
}

// Validate checks the instance's invariants (the solver front end reports
// bad input with pointers before it builds an Instance; this guards the
// algorithms against misuse).
func (in *Instance) Validate() error {
	if len(in.U) == 0 {
		return fmt.Errorf("ptas: no requests")
	}
	if len(in.W) != len(in.U) {
		return fmt.Errorf("ptas: %d requests but %d weights", len(in.U), len(in.W))
	}
	if in.K < 1 {
		return fmt.Errorf("ptas: K = %d < 1", in.K)
	}
	d := len(in.U[0])
	if d < 1 {
		return fmt.Errorf("ptas: requests have no coordinates")
	}
	for j, u := range in.U {
		if len(u) != d {
			return fmt.Errorf("ptas: request %d has %d coordinates, want %d", j, len(u), d)
		}
		for _, x := range u {
			if !(x >= 0) || math.IsInf(x, 0) {
				return fmt.Errorf("ptas: request %d has a negative or non-finite coordinate", j)
			}
		}
		if !(in.W[j] > 0) || math.IsInf(in.W[j], 0) {
			return fmt.Errorf("ptas: request %d has weight %v, want positive", j, in.W[j])
		}
	}
	for n, c := range in.Caps {
		if len(c) != d {
			return fmt.Errorf("ptas: node type %d has %d coordinates, want %d", n, len(c), d)
		}
	}
	for j, u := range in.U {
		if len(in.Caps) > 0 && len(fittingNodes(u, in.Caps)) == 0 {
			return fmt.Errorf("ptas: request %d fits no node type", j)
		}
	}
	return nil
}

// Cost is Σ s_i, the normalized size of a shape (fit "sum").
func Cost(s []float64) float64 {
	c := 0.0
	for _, x := range s {
		c += x
	}
	return c
}

// Fits reports u ≤ s componentwise, exactly (no tolerance: shapes are
// built as joins of the requests they serve, so exact comparison is what
// the caller can verify).
func Fits(u, s []float64) bool {
	for i, x := range u {
		if x > s[i] {
			return false
		}
	}
	return true
}

func fittingNodes(u []float64, caps [][]float64) []int {
	var out []int
	for n, c := range caps {
		if Fits(u, c) {
			out = append(out, n)
		}
	}
	return out
}

// Join is the componentwise maximum of the given requests.
func Join(us [][]float64, idx []int) []float64 {
	if len(idx) == 0 {
		return nil
	}
	s := append([]float64(nil), us[idx[0]]...)
	for _, j := range idx[1:] {
		for i, x := range us[j] {
			if x > s[i] {
				s[i] = x
			}
		}
	}
	return s
}

// Aggregate merges identical size vectors, summing their weights. It
// returns the distinct sizes in lexicographic order, their weights, and for
// each input the index of its distinct size. Each distinct size is the
// first input holding it, and its weight sums its inputs in input order.
//
// Equal vectors are found by hashing their bits (−0 counts as 0, as in a
// comparison) and only the distinct ones are sorted: sorting all inputs
// took 1 s of CPU on 800,000 requests with 100,000 distinct sizes.
func Aggregate(sizes [][]float64, w []float64) (distinct [][]float64, dw []float64, index []int) {
	ids := make(map[string]int)
	var first []int // input holding each distinct size first
	of := make([]int, len(sizes))
	var key []byte
	for i, s := range sizes {
		key = key[:0]
		for _, x := range s {
			key = binary.LittleEndian.AppendUint64(key, math.Float64bits(x+0))
		}
		d, ok := ids[string(key)]
		if !ok {
			d = len(first)
			ids[string(key)] = d
			first = append(first, i)
		}
		of[i] = d
	}
	perm := make([]int, len(first))
	for d := range perm {
		perm[d] = d
	}
	slices.SortFunc(perm, func(a, b int) int { return lexCmp(sizes[first[a]], sizes[first[b]]) })
	pos := make([]int, len(first))
	distinct = make([][]float64, len(first))
	for k, d := range perm {
		pos[d] = k
		distinct[k] = sizes[first[d]]
	}
	dw = make([]float64, len(first))
	index = make([]int, len(sizes))
	for i, d := range of {
		index[i] = pos[d]
		dw[pos[d]] += w[i]
	}
	return distinct, dw, index
}

// lexCmp compares size vectors lexicographically (-1, 0, +1).
func lexCmp(a, b []float64) int {
	for i := range a {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// Assign returns, for each request, the index of the cheapest shape that
// dominates it (ties to the lowest index; -1 when none does), and the total
// weighted cost Σ w_j·cost(shape). cost is Cost for fit "sum" or MaxCost
// for fit "max".
func Assign(in *Instance, shapes [][]float64, cost func([]float64) float64) ([]int, float64) {
	cs := make([]float64, len(shapes))
	for s, sh := range shapes {
		cs[s] = cost(sh)
	}
	asg := make([]int, len(in.U))
	total := 0.0
	for j, u := range in.U {
		best := -1
		for s, sh := range shapes {
			if Fits(u, sh) && (best < 0 || cs[s] < cs[best]) {
				best = s
			}
		}
		asg[j] = best
		if best < 0 {
			total = math.Inf(1)
			continue
		}
		total += in.W[j] * cs[best]
	}
	return asg, total
}

// Tighten shrinks every shape to the join of the requests assigned to it,
// drops shapes that serve nobody and reassigns, until nothing changes. It
// never increases the cost: each request keeps a shape at most as large as
// before, and the join still fits any node that held the shape.
func Tighten(in *Instance, shapes [][]float64, cost func([]float64) float64) ([][]float64, []int, float64) {
	asg, total := Assign(in, shapes, cost)
	for iter := 0; iter < 4*len(in.U)+4; iter++ {
		groups := make([][]int, len(shapes))
		for j, s := range asg {
			if s >= 0 {
				groups[s] = append(groups[s], j)
			}
		}
		var next [][]float64
		for _, g := range groups {
			if len(g) > 0 {
				next = append(next, Join(in.U, g))
			}
		}
		na, nt := Assign(in, next, cost)
		changed := len(next) != len(shapes)
		for s := range next {
			if !changed && !equalVec(next[s], shapes[s]) {
				changed = true
			}
		}
		if nt > total {
			break
		}
		shapes, asg, total = next, na, nt
		if !changed {
			break
		}
	}
	return shapes, asg, total
}

func equalVec(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TrivialBound is Σ w_j·cost(u_j): no request can be served by a shape
// cheaper than itself.
func TrivialBound(in *Instance, cost func([]float64) float64) float64 {
	b := 0.0
	for j, u := range in.U {
		b += in.W[j] * cost(u)
	}
	return b
}

// MaxCost is max_i s_i, the normalized size of a shape under fit "max".
func MaxCost(s []float64) float64 {
	m := 0.0
	for _, x := range s {
		m = math.Max(m, x)
	}
	return m
}
