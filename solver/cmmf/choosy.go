package cmmf

import (
	"container/heap"
	"context"
	"math"
	"math/rand/v2"
)

// Choosy is the paper's online scheduler (§6) run on an empty cluster:
// machines are freed one at a time in an order drawn from seed, and each
// goes to the user with the lowest weighted share (total/weight, compared
// exactly) that can use it and is below its demand; equal shares go to the
// lower user index. It returns whole-machine totals, or ctx's error when
// ctx ends first (the simulation costs time linear in the machine count).
func Choosy(ctx context.Context, in *Instance, seed int64) ([]float64, error) {
	x, err := runChoosy(ctx, in, seed, nil)
	if err != nil {
		return nil, err
	}
	tot := make([]float64, len(x))
	for i, v := range x {
		tot[i] = float64(v)
	}
	return tot, nil
}

// choosyCheckEvery is how many machines Choosy hands out between checks
// of its context: a few milliseconds of work at 10x scale.
const choosyCheckEvery = 1 << 12

// runChoosy runs Choosy and returns each user's machine count. given, when
// not nil, learns each machine given: to user i, of its k-th allowed type
// (Choosy itself needs only the counts, and keeping the amounts per type
// cost a 31 MB table at 10x scale).
func runChoosy(ctx context.Context, in *Instance, seed int64, given func(i, k int)) ([]int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	order := choosyOrder(in, seed)
	ch := newChoosy(in)
	for n, t := range order {
		if n%choosyCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if c, k := ch.pick(t); c >= 0 {
			i := ch.give(c)
			if given != nil {
				given(i, k)
			}
		} // else nobody can use it
	}
	return ch.x, nil
}

// choosyOrder is the order in which machines free up: every machine's type,
// shuffled by the seed.
func choosyOrder(in *Instance, seed int64) []int32 {
	order := make([]int32, 0, int(min(machineCount(in), ChoosyMaxMachines)))
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
// the same machines, so each class keeps a heap of its members by share
// and a key for its best candidate. A freed machine of type t goes to the
// least best candidate of t's ~300 classes (at 10x scale); comparing
// cached tops field by field cost 300 M mostly tied comparisons (unit
// weights give integer shares) over 1,000,000 machines. One uint64 key a
// class makes the pick a scan for the least key over a compact array
// (30 KB at 3,829 classes).
//
// When the weights are integers with a small common multiple L, a key is
// x·L/weight in the high half and the user in the low half: it orders
// exactly as the shares and then the users, members' keys too, and
// keyed holds each class's heap of member keys. Otherwise a key is the
// float share, which may tie where the exact shares differ, so equal keys
// are settled exactly, and shared holds each class's heap of members.
type choosy struct {
	in     *Instance
	x      []int64   // machines per user
	limit  []int64   // user → the most machines its demand allows
	key    []uint64  // class → its best candidate's key; MaxUint64 when none
	byType [][]int32 // type → the classes that can use it
	// typeAt[t][s] is type t's index in class byType[t][s]'s allowed
	// types (apart from byType, which the pick scans, to halve its reads).
	typeAt [][]int32
	keyed  [][]uint64   // class → min-heap of its members' keys; nil without L
	scale  []uint64     // user → L/weight; nil without L
	shared []*shareHeap // class → its members by exact share; nil with L
}

func newChoosy(in *Instance) *choosy {
	cs := buildClasses(in)
	ch := &choosy{in: in, x: make([]int64, len(in.Users)), key: make([]uint64, len(cs)),
		byType: make([][]int32, len(in.Types)), typeAt: make([][]int32, len(in.Types)), scale: choosyScale(in),
		limit: make([]int64, len(in.Users))}
	for i, u := range in.Users {
		// A count n is at most the demand exactly when n ≤ ⌊demand⌋.
		ch.limit[i] = math.MaxInt64
		if u.Demand < math.MaxInt64 {
			ch.limit[i] = int64(math.Floor(u.Demand))
		}
	}
	if ch.scale != nil {
		ch.keyed = make([][]uint64, len(cs))
	} else {
		ch.shared = make([]*shareHeap, len(cs))
	}
	for c, cl := range cs {
		for k, t := range cl.types {
			ch.byType[t] = append(ch.byType[t], int32(c))
			ch.typeAt[t] = append(ch.typeAt[t], int32(k))
		}
		var members []int
		for _, i := range cl.members {
			if ch.limit[i] >= 1 {
				members = append(members, i)
			}
		}
		if ch.scale != nil {
			h := make([]uint64, len(members))
			for k, i := range members {
				h[k] = uint64(i) // x = 0; members ascend, so h is a heap
			}
			ch.keyed[c] = h
		} else {
			h := &shareHeap{in: in, x: ch.x, users: members}
			heap.Init(h)
			ch.shared[c] = h
		}
		ch.setKey(c)
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

// setKey sets class c's key from its heap's top.
func (ch *choosy) setKey(c int) {
	ch.key[c] = math.MaxUint64
	if ch.keyed != nil {
		if h := ch.keyed[c]; len(h) > 0 {
			ch.key[c] = h[0]
		}
	} else if h := ch.shared[c]; h.Len() > 0 {
		i := h.users[0]
		ch.key[c] = math.Float64bits(float64(ch.x[i]) / ch.in.Users[i].Weight) // ≥ 0: bits order as values
	}
}

// best returns class c's best candidate; c must have one.
func (ch *choosy) best(c int) int {
	if ch.keyed != nil {
		return int(uint32(ch.key[c]))
	}
	return ch.shared[c].users[0]
}

// pick returns the class whose best candidate gets a freed machine of type
// t (lowest share, exactly; ties to the lower user) and the type's index
// in its allowed types, or -1.
func (ch *choosy) pick(t int32) (class, k int) {
	classes, key := ch.byType[t], ch.key
	best := leastKey(classes, key)
	if best < 0 {
		return -1, -1
	}
	least := key[classes[best]]
	if ch.shared != nil { // equal float shares: settle them exactly
		for s := best + 1; s < len(classes); s++ {
			if key[classes[s]] == least && lessShare(ch.in, ch.x, ch.best(int(classes[s])), ch.best(int(classes[best]))) {
				best = s
			}
		}
	}
	return int(classes[best]), int(ch.typeAt[t][best])
}

// leastKey returns the first position in classes of the least key below
// MaxUint64, or -1. It takes four keys at a time, whose min compiles to
// conditional moves, because this scan is most of Choosy's time.
func leastKey(classes []int32, key []uint64) int {
	best, least := -1, uint64(math.MaxUint64)
	s := 0
	for ; s+4 <= len(classes); s += 4 {
		c := classes[s : s+4 : s+4]
		k0, k1, k2, k3 := key[c[0]], key[c[1]], key[c[2]], key[c[3]]
		m := min(k0, k1, k2, k3)
		if m >= least {
			continue
		}
		least = m
		switch m {
		case k0:
			best = s
		case k1:
			best = s + 1
		case k2:
			best = s + 2
		default:
			best = s + 3
		}
	}
	for ; s < len(classes); s++ {
		if k := key[classes[s]]; k < least {
			best, least = s, k
		}
	}
	return best
}

// give hands a machine to class c's best candidate and returns that user,
// who leaves the heap once one more machine would pass its demand.
func (ch *choosy) give(c int) int {
	i := ch.best(c)
	ch.x[i]++
	full := ch.x[i]+1 > ch.limit[i]
	if ch.keyed != nil {
		h := ch.keyed[c]
		if full {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
			ch.keyed[c] = h
		} else {
			h[0] += ch.scale[i] << 32
		}
		siftDownKeys(h)
	} else if full {
		heap.Pop(ch.shared[c])
	} else {
		heap.Fix(ch.shared[c], 0)
	}
	ch.setKey(c)
	return i
}

// siftDownKeys restores the min-heap order of h after its root grew.
func siftDownKeys(h []uint64) {
	for k := 0; ; {
		m := 2*k + 1
		if m >= len(h) {
			return
		}
		if r := m + 1; r < len(h) && h[r] < h[m] {
			m = r
		}
		if h[k] <= h[m] {
			return
		}
		h[k], h[m] = h[m], h[k]
		k = m
	}
}

// lessShare orders users i and j by exact share x/weight, then index.
func lessShare(in *Instance, x []int64, i, j int) bool {
	// Correctly rounded division is monotone, so different float shares
	// order the exact shares; equal float shares are settled exactly.
	wi, wj := in.Users[i].Weight, in.Users[j].Weight
	if si, sj := float64(x[i])/wi, float64(x[j])/wj; si != sj {
		return si < sj
	}
	if c := cmpFrac(x[i], wi, x[j], wj); c != 0 {
		return c < 0
	}
	return i < j
}

// shareHeap is a class's members below demand, least share first.
type shareHeap struct {
	in    *Instance
	x     []int64
	users []int
}

func (h *shareHeap) Len() int           { return len(h.users) }
func (h *shareHeap) Less(a, b int) bool { return lessShare(h.in, h.x, h.users[a], h.users[b]) }
func (h *shareHeap) Swap(a, b int)      { h.users[a], h.users[b] = h.users[b], h.users[a] }
func (h *shareHeap) Push(v any)         { h.users = append(h.users, v.(int)) }
func (h *shareHeap) Pop() any {
	v := h.users[len(h.users)-1]
	h.users = h.users[:len(h.users)-1]
	return v
}
