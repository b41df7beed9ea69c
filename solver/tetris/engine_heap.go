package tetris

// hnode is a candidate's place in a fill's max-heap: a snapshot of entry
// e's score and alignment, taken after step placements of the fill, and of
// its member (a group's representative may move on). Scores only fall
// during a fill and a representative only moves to a later member, so a
// snapshot ranks its entry at least as high as a fresh evaluation would:
// a node at the top whose snapshot is current is the best entry in the
// heap.
type hnode struct {
	sc  float64
	tie int64 // tieKey(group, member)
	e   int32 // index into fillState.ents
	at  int32 // fillState.step when taken
}

// tieKey orders candidates of equal score: lower group, then lower member
// (-1 for an anonymous group's task).
func tieKey(gi, mi int) int64 { return int64(gi)<<32 | int64(mi+1) }

// before is the pick order: higher score, then lower group, then lower
// member (cand.better on snapshots).
func (x *hnode) before(y *hnode) bool {
	return x.sc > y.sc || (x.sc == y.sc && x.tie < y.tie)
}

// nheap is a binary max-heap of hnodes in pick order.
type nheap []hnode

func (h nheap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].before(&h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (h nheap) down(i int) {
	// Unsigned indices let the compiler drop the bounds checks on children.
	n := uint(len(h))
	u := uint(i)
	x := h[u]
	for {
		c := 2*u + 1
		if c >= n || c <= u {
			break
		}
		if r := c + 1; r < n && h[r].before(&h[c]) {
			c = r
		}
		if !h[c].before(&x) {
			break
		}
		h[u] = h[c]
		u = c
	}
	h[u] = x
}

// heapify restores the heap order over arbitrary contents.
func (h nheap) heapify() {
	if len(h) < 2 {
		return
	}
	for i := (len(h) - 2) / 2; i >= 0; i-- {
		h.down(i)
	}
}

func (h *nheap) push(x hnode) {
	*h = append(*h, x)
	h.up(len(*h) - 1)
}

// pop removes and returns the top node.
func (h *nheap) pop() hnode {
	s := *h
	t := s[0]
	n := len(s) - 1
	s[0] = s[n]
	*h = s[:n]
	if n > 0 {
		h.down(0)
	}
	return t
}
