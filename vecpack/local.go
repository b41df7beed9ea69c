package vecpack

import (
	"context"
	"math/rand/v2"
	"slices"
)

// ImproveOptions tune the local search.
type ImproveOptions struct {
	// Rules are tried by the bin re-pack move; nil means Rules().
	Rules []Rule
	// Rand drives the random choice of bins to re-pack; nil means a
	// generator seeded with 0 (callers pass one seeded from opts.Seed).
	Rand *rand.Rand
	// MaxRounds caps the rounds of (insert, eject/swap, re-pack) passes;
	// 0 means DefaultMaxRounds.
	MaxRounds int
	// PairsPerRound is the number of two-bin re-packs tried per round; 0
	// means DefaultPairsPerRound.
	PairsPerRound int
}

// Defaults of ImproveOptions. A round costs O(unplaced types × bins) for
// the insert and eject passes plus PairsPerRound small re-packs; 40 rounds
// of 32 re-packs bound one search, and the stall rule (stallSlack) usually
// ends a hopeless one after about ten rounds.
const (
	DefaultMaxRounds     = 40
	DefaultPairsPerRound = 32
)

// stallSlack is how much faster than in its last round the search is
// assumed able to progress when deciding whether finishing is plausible;
// progress per round typically grows as re-packs concentrate free space.
// With 4, on a 10,000-bin instance the searches that could not finish
// stopped after 10–11 rounds instead of 40, while one that needed 33 rounds
// still finished.
const stallSlack = 4

// ImproveStats counts the accepted moves.
type ImproveStats struct {
	Rounds  int `json:"rounds"`
	Inserts int `json:"inserts"`
	Ejects  int `json:"ejects"`
	Swaps   int `json:"swaps"`
	Repacks int `json:"repacks"`
}

// Improve is the iterative-improvement local search. Its objective is the
// unplaced weight Σ Left[t]·Weight(t), which every accepted move decreases;
// re-packs that keep it equal but concentrate free capacity (Σ‖free‖² over
// the two bins, normalised) are accepted too, so the search can open room
// for large items. Because that potential strictly increases on those
// moves, the search cannot cycle. Moves:
//
//   - insert: put an unplaced item on any bin where it fits;
//   - eject (a move of a placed item): take one placed item v off a bin b
//     so an unplaced item u fits there, and move v to another bin;
//   - swap: exchange a placed item for a heavier unplaced one when v has
//     no other home (unplaced weight still drops);
//   - evict: move several items off b to other bins, either every item u
//     conflicts with (exlocation, Garbo) or the lightest items until u
//     fits (consolidating small items into other bins' gaps);
//   - re-pack: empty two bins (one of the emptiest and one at random) and
//     refill them from their items plus all unplaced ones with each rule.
//
// It stops when nothing is unplaced (then the packing is feasible), when a
// round makes no progress or so little that finishing within MaxRounds is
// implausible (see stallSlack), after MaxRounds, or when ctx expires (returning
// ctx.Err() with the best packing so far in p).
func (p *Packing) Improve(ctx context.Context, opts ImproveOptions) (ImproveStats, error) {
	var st ImproveStats
	if opts.Rules == nil {
		opts.Rules = Rules()
	}
	if opts.Rand == nil {
		opts.Rand = rand.New(rand.NewPCG(0, 0))
	}
	if opts.MaxRounds <= 0 {
		opts.MaxRounds = DefaultMaxRounds
	}
	if opts.PairsPerRound <= 0 {
		opts.PairsPerRound = DefaultPairsPerRound
	}
	if len(p.Bins) == 0 {
		return st, nil
	}
	for st.Rounds < opts.MaxRounds && p.Unplaced() > 0 {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		st.Rounds++
		w0 := p.UnplacedWeight()
		st.Inserts += p.insertPass()
		if p.Unplaced() == 0 {
			break
		}
		e, s := p.ejectPass(ctx)
		st.Ejects += e
		st.Swaps += s
		if p.Unplaced() == 0 {
			break
		}
		r, plateau := p.repackPass(ctx, opts)
		st.Repacks += r
		w := p.UnplacedWeight()
		if w >= w0-improveEps && !plateau {
			break
		}
		// Give up when the progress rate cannot clear what is left in
		// the rounds that remain (with a factor stallSlack of optimism):
		// the caller then tries a smaller λ instead of burning the budget.
		if left := opts.MaxRounds - st.Rounds; (w0-w)*float64(left)*stallSlack < w {
			break
		}
	}
	return st, ctx.Err()
}

// insertPass places unplaced items wherever they fit, heaviest types first.
func (p *Packing) insertPass() int {
	in := p.In
	n := 0
	for _, t := range in.order {
		if p.Left[t] == 0 {
			continue
		}
		self := in.Conflict(t, t)
		for b := range p.Bins {
			if p.Left[t] == 0 {
				break
			}
			if !p.CanPlace(t, b) {
				continue
			}
			k := 1
			if !self {
				k = max(1, min(p.Left[t], p.maxFit(t, b)))
			}
			p.Place(t, b, k)
			n += k
		}
	}
	return n
}

// ejectPass tries, for each unplaced item, the eject and swap moves.
func (p *Packing) ejectPass(ctx context.Context) (ejects, swaps int) {
	in := p.In
	home := make([]int, len(in.Types)) // cached bin where a type last fitted
	noHome := make([]bool, len(in.Types))
	for i := range home {
		home[i] = -1
	}
	findHome := func(v, exclude int) int {
		if h := home[v]; h >= 0 && h != exclude && p.CanPlace(v, h) {
			return h
		}
		if noHome[v] {
			return -1
		}
		// Scan cyclically from the last home: bins before it were full
		// for v then and mostly still are.
		start := max(home[v], 0)
		for i := range p.Bins {
			h := (start + i) % len(p.Bins)
			if h != exclude && p.CanPlace(v, h) {
				home[v] = h
				return h
			}
		}
		noHome[v] = true
		return -1
	}
	for _, t := range in.order {
		if ctx.Err() != nil {
			return
		}
		size := in.Types[t].Size
	bins:
		for b := 0; b < len(p.Bins) && p.Left[t] > 0; b++ {
			if !in.AllowedOn(t, b) {
				continue
			}
			if p.CanPlace(t, b) {
				p.Place(t, b, 1)
				continue
			}
			for i := 0; i < len(p.Bins[b]); i++ {
				v := p.Bins[b][i].Type
				if v == t || !fitsWith(size, p.Free[b], in.Types[v].Size) {
					continue
				}
				if in.conflict == nil {
					// Without conflicts, t fits once v is gone: only v's new
					// home needs a search, and nothing moves until one is found.
					if h := findHome(v, b); h >= 0 {
						p.Remove(v, b, 1)
						p.Place(t, b, 1)
						p.Place(v, h, 1)
						ejects++
						b--
						continue bins
					}
					if in.weight[t] > in.weight[v]+improveEps {
						p.Remove(v, b, 1)
						p.Place(t, b, 1)
						swaps++
						b--
						continue bins
					}
					continue
				}
				p.Remove(v, b, 1)
				if p.CanPlace(t, b) {
					if h := findHome(v, b); h >= 0 {
						p.Place(t, b, 1)
						p.Place(v, h, 1)
						ejects++
						b-- // the bin may take another item of type t
						continue bins
					}
					if in.weight[t] > in.weight[v]+improveEps {
						p.Place(t, b, 1)
						swaps++
						b--
						continue bins
					}
				}
				p.Place(v, b, 1)
			}
			if in.conflict != nil && p.conflicts(t, b) && p.evictConflicts(t, b, findHome) {
				ejects++
				b--
				continue bins
			}
			if p.evictToFit(t, b, findHome) {
				ejects++
				b--
				continue bins
			}
		}
	}
	return
}

// maxEvict caps how many conflicting items one eviction may relocate; an
// eviction scans every bin per item, so the cap bounds its cost.
const maxEvict = 16

// evictConflicts is the eject move for conflicts: when t is kept off bin b
// only by items it conflicts with, move all of those to other bins (each
// to a bin where it fits) and put one t on b. It undoes everything and
// returns false when some item has no other home or t still does not fit.
func (p *Packing) evictConflicts(t, b int, findHome func(v, exclude int) int) bool {
	in := p.In
	var out []Slot
	n := 0
	for _, s := range p.Bins[b] {
		if in.Conflict(t, s.Type) {
			out = append(out, s)
			n += s.Count
		}
	}
	if n == 0 || n > maxEvict {
		return false
	}
	for _, s := range out {
		p.Remove(s.Type, b, s.Count)
	}
	type move struct{ t, h int }
	var moved []move
	ok := p.CanPlace(t, b)
	for _, s := range out {
		for k := 0; ok && k < s.Count; k++ {
			h := findHome(s.Type, b)
			if h < 0 {
				ok = false
				break
			}
			p.Place(s.Type, h, 1)
			moved = append(moved, move{s.Type, h})
		}
	}
	if ok && p.CanPlace(t, b) {
		p.Place(t, b, 1)
		return true
	}
	for _, mv := range moved {
		p.Remove(mv.t, mv.h, 1)
	}
	for _, s := range out {
		p.Place(s.Type, b, s.Count)
	}
	return false
}

// fitsWith reports whether demand fits in free plus the capacity one item
// of size extra gives back.
func fitsWith(demand, free, extra []float64) bool {
	for r, d := range demand {
		if d > FitLimit(free[r]+extra[r], 1) {
			return false
		}
	}
	return true
}

// binState is a saved copy of one bin for undoing a re-pack.
type binState struct {
	slots []Slot
	free  []float64
}

func (p *Packing) save(b int) binState {
	return binState{slots: slices.Clone(p.Bins[b]), free: slices.Clone(p.Free[b])}
}

func (p *Packing) restore(b int, s binState) {
	p.Clear(b)
	for _, sl := range s.slots {
		p.Left[sl.Type] -= sl.Count
	}
	p.Bins[b] = append(p.Bins[b][:0], s.slots...)
	copy(p.Free[b], s.free)
}

// concentration is Σ‖free‖² (normalised) over bins a and b.
func (p *Packing) concentration(a, b int) float64 {
	c := 0.0
	for _, x := range [2]int{a, b} {
		for r, f := range p.Free[x] {
			v := f * p.In.Scale[r]
			c += v * v
		}
	}
	return c
}

// repackPass tries PairsPerRound two-bin re-packs; it reports how many
// were accepted and whether any was a plateau move.
func (p *Packing) repackPass(ctx context.Context, opts ImproveOptions) (accepted int, plateau bool) {
	in := p.In
	nb := len(p.Bins)
	if nb < 2 {
		return 0, false
	}
	// The emptiest bins (normalised free sum), and per resource the bins
	// with the most of it free; ties by index.
	const topK = 16
	top := topBins(nb, topK, func(b int) float64 {
		s := 0.0
		for r, f := range p.Free[b] {
			s += f * in.Scale[r]
		}
		return s
	})
	var topR [][]int
	if in.dim >= 2 {
		topR = make([][]int, in.dim)
		for r := range topR {
			topR[r] = topBins(nb, topK, func(b int) float64 { return p.Free[b][r] })
		}
	}
	for k := 0; k < opts.PairsPerRound && p.Unplaced() > 0; k++ {
		if ctx.Err() != nil {
			return
		}
		var b1, b2 int
		if topR != nil && k%2 == 1 {
			// Complementary bins: one with room in resource r1, one with
			// room in r2, so a re-pack can trade what each has spare.
			r1 := opts.Rand.IntN(in.dim)
			r2 := (r1 + 1 + opts.Rand.IntN(in.dim-1)) % in.dim
			b1 = topR[r1][opts.Rand.IntN(len(topR[r1]))]
			b2 = topR[r2][opts.Rand.IntN(len(topR[r2]))]
		} else {
			b1 = opts.Rand.IntN(nb)
			b2 = top[opts.Rand.IntN(len(top))]
		}
		if b1 == b2 {
			continue
		}
		s1, s2 := p.save(b1), p.save(b2)
		w0, c0 := p.UnplacedWeight(), p.concentration(b1, b2)
		bestW, bestC := w0, c0
		var best1, best2 binState
		found := false
		for _, rule := range opts.Rules {
			{
				// b1 first, so what free capacity remains gathers on b2,
				// already one of the emptiest bins.
				p.Clear(b1)
				p.Clear(b2)
				p.fillBin(b1, rule, nil)
				p.fillBin(b2, rule, nil)
				w, c := p.UnplacedWeight(), p.concentration(b1, b2)
				if w < bestW-improveEps || (w < bestW+improveEps && c > bestC+improveEps) {
					bestW, bestC = w, c
					best1, best2 = p.save(b1), p.save(b2)
					found = true
				}
			}
		}
		if found {
			p.restore(b1, best1)
			p.restore(b2, best2)
			accepted++
			if bestW >= w0-improveEps {
				plateau = true
			}
		} else {
			p.restore(b1, s1)
			p.restore(b2, s2)
		}
	}
	return
}

// evictToFit is the eject move with several items: take the lightest items
// off bin b, one at a time, until an item of type t fits, moving each to
// another bin where it fits. Consolidating small items into the gaps other
// bins leave frees a block big enough for a large item. It undoes
// everything and returns false when some item has no other home, when
// more than maxEvict items would have to move, or when t still does not fit.
func (p *Packing) evictToFit(t, b int, findHome func(v, exclude int) int) bool {
	in := p.In
	size := in.Types[t].Size
	if !in.AllowedOn(t, b) || !Fits(size, in.Caps[b]) || p.conflicts(t, b) {
		return false
	}
	type move struct{ t, h int }
	var moved []move
	undo := func() {
		for i := len(moved) - 1; i >= 0; i-- {
			p.Remove(moved[i].t, moved[i].h, 1)
			p.Place(moved[i].t, b, 1)
		}
	}
	for len(moved) < maxEvict && !Fits(size, p.Free[b]) {
		// The lightest type on b that is not t.
		v := -1
		for _, s := range p.Bins[b] {
			if s.Type != t && (v < 0 || in.weight[s.Type] < in.weight[v]) {
				v = s.Type
			}
		}
		if v < 0 {
			break
		}
		h := findHome(v, b)
		if h < 0 {
			break
		}
		p.Remove(v, b, 1)
		p.Place(v, h, 1)
		moved = append(moved, move{v, h})
	}
	if len(moved) > 0 && p.CanPlace(t, b) {
		p.Place(t, b, 1)
		return true
	}
	undo()
	return false
}

// topBins returns the (at most) k bins with the largest key, by key
// descending, ties by index.
func topBins(nb, k int, key func(b int) float64) []int {
	top := make([]int, 0, k+1)
	keys := make([]float64, 0, k+1)
	for b := range nb {
		kb := key(b)
		i := len(top)
		for i > 0 && keys[i-1] < kb {
			i--
		}
		if i < k {
			top = slices.Insert(top, i, b)
			keys = slices.Insert(keys, i, kb)
			if len(top) > k {
				top, keys = top[:k], keys[:k]
			}
		}
	}
	return top
}
