package cmmf

import (
	"container/heap"
	"context"
	"math"
	"math/rand/v2"
	"sort"
)

// Choosy is the paper's online scheduler (§6) run on an empty cluster:
// machines are freed one at a time in an order drawn from seed, and each
// goes to the user with the lowest weighted share (total/weight, compared
// exactly) that can use it and is below its demand; equal shares go to the
// lower user index. It returns whole-machine totals, or ctx's error when
// ctx ends first (the simulation costs time linear in the machine count).
func Choosy(ctx context.Context, in *Instance, seed int64) ([]float64, error) {
	a, err := choosyAlloc(ctx, in, seed)
	if err != nil {
		return nil, err
	}
	return a.Total, nil
}

// choosyCheckEvery is how many machines Choosy hands out between checks
// of its context: about a millisecond of work on 20,000 users.
const choosyCheckEvery = 1 << 12

// choosyAlloc runs Choosy and returns its allocation per type.
func choosyAlloc(ctx context.Context, in *Instance, seed int64) (*Allocation, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	order := choosyOrder(in, seed)
	ch := newChoosy(in)
	a := newAllocation(in)
	for n, t := range order {
		if n%choosyCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if c := ch.pick(t); c >= 0 {
			ch.give(a, c, int(t))
		} // else nobody can use it
	}
	for i, u := range in.Users {
		a.Total[i] = float64(ch.x[i])
		a.Level[i] = a.Total[i] / u.Weight
	}
	return a, nil
}

// choosyOrder is the order in which machines free up: every machine's type,
// shuffled by the seed.
func choosyOrder(in *Instance, seed int64) []int32 {
	var order []int32
	for t, ty := range in.Types {
		for k := int64(0); k < ty.Cap; k++ {
			order = append(order, int32(t))
		}
	}
	r := rand.New(rand.NewPCG(uint64(seed), 0x63686f6f7379)) // "choosy"
	r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	return order
}

// choosy is Choosy's state. Users with the same allowed types compete for
// the same machines, so each class keeps a heap of its members by share,
// and top caches each class's best candidate. A freed machine of type t
// goes to the least best candidate of t's ~300 classes (at 10x scale);
// comparing their cached tops field by field cost 300 M mostly tied
// comparisons (unit weights give integer shares) over 1,000,000 machines.
// So each class's best candidate is also one uint64 key, and the pick is
// a scan for the least key over a compact array (30 KB at 3,829 classes).
type choosy struct {
	in     *Instance
	x      []int64 // machines per user
	heaps  []*shareHeap
	top    []choosyTop
	key    []uint64  // class → its best candidate's key; MaxUint64 when none
	byType [][]int32 // type → the classes that can use it
	// scale[i] is L/weight for a common multiple L of the weights, so
	// that x·scale orders shares exactly and a key is x·scale, user; nil
	// when the weights have no such L (then keys are float shares, and
	// equal ones are settled exactly).
	scale []uint64
}

// choosyTop is a class's best candidate; user -1 when it has none.
type choosyTop struct {
	user  int
	x     int64
	w     float64
	share float64
}

func newChoosy(in *Instance) *choosy {
	cs := buildClasses(in)
	ch := &choosy{in: in, x: make([]int64, len(in.Users)), heaps: make([]*shareHeap, len(cs)),
		top: make([]choosyTop, len(cs)), key: make([]uint64, len(cs)),
		byType: make([][]int32, len(in.Types)), scale: choosyScale(in)}
	for c, cl := range cs {
		for _, t := range cl.types {
			ch.byType[t] = append(ch.byType[t], int32(c))
		}
		h := &shareHeap{in: in, x: ch.x}
		for _, i := range cl.members {
			if in.Users[i].Demand >= 1 {
				h.users = append(h.users, i)
			}
		}
		heap.Init(h)
		ch.heaps[c] = h
		ch.refresh(c)
	}
	return ch
}

// choosyScale returns L/weight per user for the least common multiple L
// of the weights when they are all integers and every x·L/weight fits 31
// bits (x is at most the machine count), else nil.
func choosyScale(in *Instance) []uint64 {
	var machines int64
	for _, ty := range in.Types {
		machines += ty.Cap
		if machines >= 1<<31 {
			return nil
		}
	}
	if len(in.Users) >= 1<<31 {
		return nil
	}
	l := int64(1)
	for _, u := range in.Users {
		w := u.Weight
		if w != math.Trunc(w) || w >= 1<<31 {
			return nil
		}
		l = l / gcd(l, int64(w)) * int64(w)
		if l*max(machines, 1) >= 1<<31 {
			return nil
		}
	}
	scale := make([]uint64, len(in.Users))
	for i, u := range in.Users {
		scale[i] = uint64(l / int64(u.Weight))
	}
	return scale
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// refresh caches class c's best candidate and its key.
func (ch *choosy) refresh(c int) {
	h := ch.heaps[c]
	if h.Len() == 0 {
		ch.top[c] = choosyTop{user: -1}
		ch.key[c] = math.MaxUint64
		return
	}
	i := h.users[0]
	w := ch.in.Users[i].Weight
	ch.top[c] = choosyTop{user: i, x: ch.x[i], w: w, share: float64(ch.x[i]) / w}
	if ch.scale != nil {
		ch.key[c] = uint64(ch.x[i])*ch.scale[i]<<32 | uint64(i)
	} else {
		ch.key[c] = math.Float64bits(ch.top[c].share) // shares are ≥ 0: bits order as values
	}
}

// pick returns the class whose best candidate gets a freed machine of type
// t (lowest share, exactly; ties to the lower user), or -1.
func (ch *choosy) pick(t int32) int {
	cls, key := ch.byType[t], ch.key
	best, least := -1, uint64(math.MaxUint64)
	for k, c := range cls {
		if key[c] < least {
			best, least = k, key[c]
		}
	}
	if best < 0 {
		return -1
	}
	c := int(cls[best])
	if ch.scale == nil { // equal float shares: settle them exactly
		for _, d := range cls[best+1:] {
			if key[d] == least && lessTop(&ch.top[d], &ch.top[c]) {
				c = int(d)
			}
		}
	}
	return c
}

// give hands a machine of type t to class c's best candidate, who leaves
// the heap once one more machine would pass its demand.
func (ch *choosy) give(a *Allocation, c, t int) {
	i := ch.top[c].user
	ch.x[i]++
	a.Amount[i][sort.SearchInts(ch.in.Users[i].Allowed, t)]++
	h := ch.heaps[c]
	if float64(ch.x[i]+1) > ch.in.Users[i].Demand {
		heap.Pop(h)
	} else {
		heap.Fix(h, 0)
	}
	ch.refresh(c)
}

// lessTop orders best candidates by exact share, then user index. Users
// are unique, so it is a strict total order.
func lessTop(a, b *choosyTop) bool {
	// Correctly rounded division is monotone, so different float shares
	// order the exact shares; equal float shares are settled exactly.
	if a.share != b.share {
		return a.share < b.share
	}
	var cmp int
	if a.w == b.w {
		cmp = cmpInt(a.x, b.x)
	} else {
		cmp = cmpFrac(a.x, a.w, b.x, b.w)
	}
	if cmp != 0 {
		return cmp < 0
	}
	return a.user < b.user
}

type shareHeap struct {
	in    *Instance
	x     []int64
	users []int
}

func (h *shareHeap) less(i, j int) bool {
	// Correctly rounded division is monotone, so different float shares
	// order the exact shares; equal float shares are settled exactly.
	wi, wj := h.in.Users[i].Weight, h.in.Users[j].Weight
	if si, sj := float64(h.x[i])/wi, float64(h.x[j])/wj; si != sj {
		return si < sj
	}
	if c := cmpFrac(h.x[i], wi, h.x[j], wj); c != 0 {
		return c < 0
	}
	return i < j
}
func (h *shareHeap) Len() int           { return len(h.users) }
func (h *shareHeap) Less(a, b int) bool { return h.less(h.users[a], h.users[b]) }
func (h *shareHeap) Swap(a, b int)      { h.users[a], h.users[b] = h.users[b], h.users[a] }
func (h *shareHeap) Push(v any)         { h.users = append(h.users, v.(int)) }
func (h *shareHeap) Pop() any {
	v := h.users[len(h.users)-1]
	h.users = h.users[:len(h.users)-1]
	return v
}
