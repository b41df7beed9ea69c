package cmmf

import "github.com/xflex/xflex/flow"

// The round driver of the max-flow methods (divisible.go, integer.go). Both
// run the same rounds: build the network of the classes still in play and
// the types still alive, find the round's level by Newton's method from
// above on min cuts, freeze the classes that cannot reach the sink in the
// residual network, and retire them with their types. What differs is the
// number type (float64 amounts, int64 whole machines) and what a level is
// (a share λ, a unit key); those stay in each method's file.

// classState is where a class stands between rounds.
type classState uint8

const (
	classActive classState = iota // its members' wants still rise with the level
	classFixed                    // every member at its limit: constant want, still in the network
	classDone                     // frozen and removed with its types
)

// rounds is what a flow method carries from one round to the next: the
// classes, where each stands, and which types are still alive.
type rounds struct {
	in    *Instance
	cs    []class
	state []classState
	alive []bool
}

func newRounds(in *Instance) *rounds {
	r := &rounds{in: in, cs: buildClasses(in), alive: make([]bool, len(in.Types))}
	r.state = make([]classState, len(r.cs))
	for t := range r.alive {
		r.alive[t] = true
	}
	return r
}

// play returns the active classes and the classes still in the network
// (active or fixed), both in class order.
func (r *rounds) play() (act, inNet []int) {
	for c, st := range r.state {
		switch st {
		case classActive:
			act = append(act, c)
			inNet = append(inNet, c)
		case classFixed:
			inNet = append(inNet, c)
		}
	}
	return act, inNet
}

// retire marks class c done and removes its types from later rounds:
// nobody else uses them (they are the types a frozen class reaches).
func (r *rounds) retire(c int) {
	r.state[c] = classDone
	for _, t := range r.cs[c].types {
		r.alive[t] = false
	}
}

// Node numbers of the source and the sink in every round's network.
const netSrc, netSink = 0, 1

// midArc is the arc from class c to type t, edge e of the network.
type midArc struct{ c, t, e int }

// classNet is one round's network: source → class (capacity: the class's
// want) → type (capacity midCap) → sink (the type's machines), over the
// classes in the network and the alive types with machines.
type classNet[T flow.Number] struct {
	g         *flow.Network[T]
	inNet     []int    // the classes, in class order
	classNode []int32  // class → node (indexed by class; 0 when not in the network)
	srcEdge   []int32  // class → its source arc
	typeNode  []int32  // type → node (0 when not in the network)
	typesUsed []int    // the types, in order of first use
	mids      []midArc // class → type arcs, class by class
}

// newClassNet builds the round's network. midCap must be at least every
// type's machines, so that min cuts are of the form (classes X, the types
// X reaches). Nodes and arcs are added in a fixed order (classes, then each
// class's types) so that the max flow, and the answer, is deterministic.
func newClassNet[T flow.Number](r *rounds, inNet []int, midCap T) *classNet[T] {
	n := &classNet[T]{
		g:         flow.NewNetwork[T](2),
		inNet:     inNet,
		classNode: make([]int32, len(r.cs)),
		srcEdge:   make([]int32, len(r.cs)),
		typeNode:  make([]int32, len(r.in.Types)),
	}
	mids := 0
	for _, c := range inNet {
		for _, t := range r.cs[c].types {
			if r.alive[t] && r.in.Types[t].Cap > 0 {
				mids++
			}
		}
	}
	n.mids = make([]midArc, 0, mids)
	n.g.Grow(len(inNet) + mids + len(r.in.Types))
	for _, c := range inNet {
		v := n.g.AddNode()
		n.classNode[c] = int32(v)
		n.srcEdge[c] = int32(n.g.AddEdge(netSrc, v, 0))
	}
	for _, c := range inNet {
		for _, t := range r.cs[c].types {
			if r.alive[t] && r.in.Types[t].Cap > 0 {
				n.mids = append(n.mids, midArc{c, t, n.g.AddEdge(int(n.classNode[c]), n.typeOf(t), midCap)})
			}
		}
	}
	for _, t := range n.typesUsed {
		n.g.AddEdge(int(n.typeNode[t]), netSink, T(r.in.Types[t].Cap))
	}
	return n
}

// typeOf returns type t's node, adding it on first use.
func (n *classNet[T]) typeOf(t int) int {
	if v := n.typeNode[t]; v != 0 {
		return int(v)
	}
	v := n.g.AddNode()
	n.typeNode[t] = int32(v)
	n.typesUsed = append(n.typesUsed, t)
	return v
}

// maxFlow sets each class's source arc to want(c) and returns the max flow
// and the total want.
func (n *classNet[T]) maxFlow(want func(c int) T) (f, total T) {
	for _, c := range n.inNet {
		w := want(c)
		n.g.SetCap(int(n.srcEdge[c]), w)
		total += w
	}
	n.g.ClearFlow()
	return n.g.MaxFlow(netSrc, netSink), total
}

// cut returns the source side of the minimum cut the last max flow left:
// its classes (in class order) and the machines of its types.
func (n *classNet[T]) cut(in *Instance) (classes []int, machines T) {
	side := n.g.ReachableFrom(netSrc)
	for _, t := range n.typesUsed {
		if side[n.typeNode[t]] {
			machines += T(in.Types[t].Cap)
		}
	}
	for _, c := range n.inNet {
		if side[n.classNode[c]] {
			classes = append(classes, c)
		}
	}
	return classes, machines
}

// stuck returns the classes that cannot reach the sink in the residual
// network of the last max flow: none of them can grow without another
// class shrinking.
func (n *classNet[T]) stuck() []int {
	reach := n.g.CanReach(netSink)
	var out []int
	for _, c := range n.inNet {
		if !reach[n.classNode[c]] {
			out = append(out, c)
		}
	}
	return out
}

// classSet is the set of the given classes.
func classSet(classes []int) map[int]bool {
	set := make(map[int]bool, len(classes))
	for _, c := range classes {
		set[c] = true
	}
	return set
}
