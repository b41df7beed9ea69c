package cmmf

// residualGraph is the graph Certify searches: node c < nc is class c,
// node nc+t is type t. Class c points to each type it may use that has
// machines; type t points to each class holding some of it.
type residualGraph struct {
	in      *Instance
	cs      []class
	holders [][]int
}

func (g *residualGraph) nodes() int { return len(g.cs) + len(g.in.Types) }

// succ is node v's k-th successor, -1 when that edge does not exist (a
// type without machines), and false when v has no k-th edge.
func (g *residualGraph) succ(v, k int) (int, bool) {
	nc := len(g.cs)
	if v < nc {
		if k >= len(g.cs[v].types) {
			return 0, false
		}
		t := g.cs[v].types[k]
		if g.in.Types[t].Cap == 0 {
			return -1, true
		}
		return nc + t, true
	}
	hs := g.holders[v-nc]
	if k >= len(hs) {
		return 0, false
	}
	return hs[k], true
}

// condense calls done once per strongly connected component of g, with the
// component's nodes, after it has been called for every component the
// component reaches (Tarjan's algorithm, iterative). comp[v] is set to the
// component's index before done is called, so done can look up what each
// successor's component has gathered.
//
// Certify needs, for every class, a summary of everything it reaches; one
// search per class costs classes × edges (seconds at 50,000 users and
// 1,000 types), summaries over the components cost edges once. The graph
// has millions of edges held as slices; gonum's topo.TarjanSCC would need
// them copied into its map-based graph first.
func condense(g *residualGraph, done func(members []int, comp []int)) []int {
	n := g.nodes()
	const unseen = -1
	index := make([]int, n)
	low := make([]int, n)
	comp := make([]int, n)
	for v := range index {
		index[v], comp[v] = unseen, unseen
	}
	var stack []int
	type frame struct{ v, k int }
	var call []frame
	next, ncomp := 0, 0
	for root := range n {
		if index[root] != unseen {
			continue
		}
		call = append(call, frame{root, 0})
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		for len(call) > 0 {
			f := &call[len(call)-1]
			w, ok := g.succ(f.v, f.k)
			if ok {
				f.k++
				switch {
				case w < 0:
				case index[w] == unseen:
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					call = append(call, frame{w, 0})
				case comp[w] == unseen: // on the stack
					low[f.v] = min(low[f.v], index[w])
				}
				continue
			}
			v := f.v
			call = call[:len(call)-1]
			if len(call) > 0 {
				p := call[len(call)-1].v
				low[p] = min(low[p], low[v])
			}
			if low[v] != index[v] {
				continue
			}
			k := len(stack) - 1
			for stack[k] != v {
				k--
			}
			members := stack[k:]
			for _, u := range members {
				comp[u] = ncomp
			}
			done(members, comp)
			ncomp++
			stack = stack[:k]
		}
	}
	return comp
}
