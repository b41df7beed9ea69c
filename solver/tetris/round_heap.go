package tetris

import (
	"math"
	"math/bits"
)

// hnode is a candidate's place in a fill's max-heap: a snapshot of entry
// e's score and alignment, taken after step placements of the fill, and of
// its member (a group's representative may move on). Scores only fall
// during a fill and a representative only moves to a later member, so a
// snapshot ranks its entry at least as high as a fresh evaluation would:
// a node at the top whose snapshot is current is the best entry in the
// heap.
//
// The pick order (higher score, then lower group, then lower member) is
// kept as one 128-bit unsigned key, (scoreKey(score), ^tieKey), larger
// first, so a comparison is a subtraction with borrow and sift-down picks
// a child without a branch (the heap's child choice is a coin flip to a
// branch predictor; see BenchmarkAssign10kIdle in benchmarks/tetris).
type hnode struct {
	k  uint64 // scoreKey of the score
	nt uint64 // ^tieKey(group, member)
	e  int32  // index into candidateSet.entries
	at int32  // candidateSet.step when taken
}

// tieKey orders candidates of equal score: lower group, then lower member
// (-1 for an anonymous group's task).
func tieKey(gi, mi int) int64 { return int64(gi)<<32 | int64(mi+1) }

// mkNode is the node of entry e with score sc and tie key tie, taken at
// step at.
func mkNode(sc float64, tie int64, e, at int32) hnode {
	return hnode{k: scoreKey(sc), nt: ^uint64(tie), e: e, at: at}
}

// score is the node's score (scoreKey inverted).
func (x *hnode) score() float64 { return keyScore(x.k) }

// tie is the node's tie key.
func (x *hnode) tie() int64 { return int64(^x.nt) }

// scoreKey maps a score to an unsigned key in the same order: x < y as
// floats exactly when scoreKey(x) < scoreKey(y), and -0 and +0 share +0's
// key (they compare equal as floats, so the tie key decides, as before).
// NaN, which neither problem's validated input can produce (demands,
// capacities and ε·work are finite), gets key 0, below every number, so
// the order stays total.
func scoreKey(sc float64) uint64 {
	if sc != sc {
		return 0
	}
	b := math.Float64bits(sc + 0) // -0 + 0 = +0
	// Flip every bit of a negative number, only the sign bit of a
	// non-negative one.
	return b ^ (uint64(int64(b)>>63) | 1<<63)
}

// keyScore inverts scoreKey (for keys of numbers).
func keyScore(k uint64) float64 {
	if k>>63 == 1 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}

// before is the pick order: x's (k, nt) above y's, as a 128-bit compare.
// It returns 1 or 0 so callers can use it without a branch.
func before(x, y *hnode) uint {
	_, b := bits.Sub64(y.nt, x.nt, 0)
	_, b = bits.Sub64(y.k, x.k, b)
	return uint(b)
}

// nheap is a binary max-heap of hnodes in pick order.
type nheap []hnode

func (h nheap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if before(&h[i], &h[p]) == 0 {
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
		if r := c + 1; r < n {
			c += before(&h[r], &h[c])
		}
		if before(&h[c], &x) == 0 {
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
