package flow_test

import (
	"fmt"

	"github.com/xflex/xflex/flow"
)

// Two users share five machines: u1 can use m1 and m2, u2 can use m2 to
// m5. Both want two; the max flow saturates both wants, and residual
// reachability then shows who could still grow: u2 (m5 is idle), not u1
// (both of its machines are taken, by itself).
func ExampleNetwork() {
	const s, t, u1, u2 = 0, 1, 2, 3
	m := []int{-1, 4, 5, 6, 7, 8} // m[1..5]
	g := flow.NewNetwork[int64](9)
	g.AddEdge(s, u1, 2)
	g.AddEdge(s, u2, 2)
	for _, k := range []int{1, 2} {
		g.AddEdge(u1, m[k], 1)
	}
	for _, k := range []int{2, 3, 4, 5} {
		g.AddEdge(u2, m[k], 1)
	}
	for k := 1; k <= 5; k++ {
		g.AddEdge(m[k], t, 1)
	}
	fmt.Println("flow:", g.MaxFlow(s, t))
	reach := g.CanReach(t)
	fmt.Println("u1 can grow:", reach[u1], "u2 can grow:", reach[u2])
	// Output:
	// flow: 4
	// u1 can grow: false u2 can grow: true
}

// A replan: one machine type with two machines, currently both held by
// u1; the new allocation gives each user one. Keeping a machine costs 0,
// moving one costs 1, so the cheapest flow moves exactly one machine.
func ExampleMinCost() {
	const s, t, u1, u2, typ = 0, 1, 2, 3, 4
	m := flow.NewMinCost(5)
	m.AddEdge(s, u1, 1, 0)
	m.AddEdge(s, u2, 1, 0)
	m.AddEdge(u1, typ, 2, 0) // u1 keeps what it holds
	m.AddEdge(u1, typ, 2, 1)
	m.AddEdge(u2, typ, 2, 1) // u2 holds nothing now
	m.AddEdge(typ, t, 2, 0)
	sent, cost, _ := m.Run(s, t, 2)
	fmt.Println("sent", sent, "machines moved", cost)
	// Output:
	// sent 2 machines moved 1
}
