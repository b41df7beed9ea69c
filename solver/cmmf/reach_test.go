package cmmf

import (
	"math/rand/v2"
	"testing"
)

// TestCondenseMatchesReachability checks condense against plain
// reachability on random class–type graphs: two nodes share a component
// iff each reaches the other, and every component is reported after the
// components it reaches.
func TestCondenseMatchesReachability(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 21))
	for it := 0; it < 300; it++ {
		g := randomResidualGraph(r)
		n := g.nodes()
		reach := make([][]bool, n)
		for v := range n {
			reach[v] = reachableFrom(g, v)
		}
		var order []int // component index of each call, in call order
		comp := condense(g, func(members, comp []int) {
			c := comp[members[0]]
			for _, v := range members {
				for w := range n {
					if reach[v][w] && comp[w] < 0 {
						t.Fatalf("graph %d: component %d reported before %d, which it reaches", it, c, w)
					}
				}
			}
			order = append(order, c)
		})
		for v := range n {
			for w := range n {
				if same := comp[v] == comp[w]; same != (reach[v][w] && reach[w][v]) {
					t.Fatalf("graph %d: nodes %d and %d in one component: %v, mutually reachable: %v", it, v, w, same, !same)
				}
			}
		}
		for k, c := range order {
			if c != k {
				t.Fatalf("graph %d: call %d reported component %d", it, k, c)
			}
		}
	}
}

// randomResidualGraph is a small random graph of classes and types, some
// types without machines.
func randomResidualGraph(r *rand.Rand) *residualGraph {
	nc, nt := 1+r.IntN(6), 1+r.IntN(6)
	in := &Instance{Types: make([]Type, nt)}
	for t := range in.Types {
		in.Types[t].Cap = int64(r.IntN(3))
	}
	g := &residualGraph{in: in, cs: make([]class, nc), holders: make([][]int, nt)}
	for c := range g.cs {
		for t := range nt {
			if r.IntN(3) == 0 {
				g.cs[c].types = append(g.cs[c].types, t)
				if r.IntN(2) == 0 {
					g.holders[t] = append(g.holders[t], c)
				}
			}
		}
	}
	return g
}

// reachableFrom marks the nodes v reaches (itself included) by a
// depth-first search over g.succ.
func reachableFrom(g *residualGraph, v int) []bool {
	seen := make([]bool, g.nodes())
	stack := []int{v}
	seen[v] = true
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for k := 0; ; k++ {
			w, ok := g.succ(u, k)
			if !ok {
				break
			}
			if w >= 0 && !seen[w] {
				seen[w] = true
				stack = append(stack, w)
			}
		}
	}
	return seen
}
