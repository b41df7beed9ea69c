package vecpack

import (
	"context"
	"math"
)

// ctxCheckEvery is how many bins the greedy fills between context checks:
// a bin fill costs microseconds, so checking every 64 bins keeps the
// overshoot past a deadline well under a millisecond.
const ctxCheckEvery = 64

// Greedy packs in with the "fill one bin at a time" greedy (the
// 2-approximation X-Select starts from): bins are taken in order (nil means
// in.BinOrder()), and each is filled with the rule's best-scoring item type
// that fits until none does. Items that fit nowhere stay in Left.
//
// Consecutive empty bins of one class (same capacity, same allowed column)
// receive the same fill while every type it uses has enough copies left;
// that replication gives exactly the packing bin-by-bin filling would, in
// time proportional to the number of distinct fills.
//
// On context expiry it returns the partial packing and ctx.Err().
func Greedy(ctx context.Context, in *Instance, rule Rule, order []int) (*Packing, error) {
	p, err := NewPacking(in)
	if err != nil {
		return nil, err
	}
	return p, p.FillBins(ctx, rule, order)
}

// FillBins fills the given bins (nil: every bin, in.BinOrder()) in order with
// the rule, starting from the current packing.
func (p *Packing) FillBins(ctx context.Context, rule Rule, order []int) error {
	in := p.In
	if order == nil {
		order = in.BinOrder()
	}
	var pattern []Slot
	for i := 0; i < len(order); {
		if i%ctxCheckEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		b := order[i]
		wasEmpty := len(p.Bins[b]) == 0
		pattern = p.fillBin(b, rule, pattern[:0])
		i++
		if !wasEmpty || len(pattern) == 0 {
			continue
		}
		for i < len(order) {
			nb := order[i]
			if in.class[nb] != in.class[b] || len(p.Bins[nb]) != 0 || !p.hasLeft(pattern) {
				break
			}
			for _, s := range pattern {
				p.Place(s.Type, nb, s.Count)
			}
			i++
		}
	}
	return nil
}

// hasLeft reports whether every type in pattern (which may list a type more
// than once) still has enough unplaced copies for one more replica.
func (p *Packing) hasLeft(pattern []Slot) bool {
	for _, s := range pattern {
		need := 0
		for _, u := range pattern {
			if u.Type == s.Type {
				need += u.Count
			}
		}
		if p.Left[s.Type] < need {
			return false
		}
	}
	return true
}

// fillBin fills bin b with the rule and appends what it placed to pattern
// (as slots, one per placement step).
func (p *Packing) fillBin(b int, rule Rule, pattern []Slot) []Slot {
	in := p.In
	free := make([]float64, in.dim)
	for {
		for r, x := range p.Free[b] {
			free[r] = x * in.Scale[r]
		}
		best, bestScore := -1, math.Inf(-1)
		for _, t := range in.order {
			if p.Left[t] == 0 || !p.CanPlace(t, b) {
				continue
			}
			s := rule.score(in.norm[t], free)
			if s > bestScore {
				best, bestScore = t, s
			}
		}
		if best < 0 {
			return pattern
		}
		n := 1
		if rule.Static && !in.Conflict(best, best) {
			n = min(p.Left[best], p.maxFit(best, b))
			n = max(n, 1)
		}
		p.Place(best, b, n)
		pattern = append(pattern, Slot{Type: best, Count: n})
	}
}

// Quota gives, for bin b, a fractional target number of items of every
// type (q has one entry per type and arrives zeroed).
type Quota func(b int, q []float64)

// GreedyGuided is Greedy with targets: each bin, in order, first receives
// its quota of every type (heaviest types first, as far as they fit), the
// fractional quotas turned into integers by error diffusion along the bin
// order so that the totals track Σ_b quota; then the rule fills what space
// is left. With quotas from an LP relaxation (per bin class, proportional
// to the remaining demand) every bin gets a slice of the whole mix, so the
// last bins are not left with only the items that pack badly.
func GreedyGuided(ctx context.Context, in *Instance, rule Rule, order []int, quota Quota) (*Packing, error) {
	p, err := NewPacking(in)
	if err != nil {
		return nil, err
	}
	if order == nil {
		order = in.BinOrder()
	}
	// Quota owed per bin class: what one class's bins could not take is
	// retried on that class's later bins only, never pushed onto another
	// class the LP did not plan it for.
	accs := map[int][]float64{}
	q := make([]float64, len(in.Types))
	for i, b := range order {
		acc := accs[in.class[b]]
		if acc == nil {
			acc = make([]float64, len(in.Types))
			accs[in.class[b]] = acc
		}
		if i%ctxCheckEvery == 0 && ctx.Err() != nil {
			return p, ctx.Err()
		}
		clear(q)
		quota(b, q)
		for _, t := range in.order {
			acc[t] += q[t]
			k := int(math.Floor(acc[t] + quotaEps))
			if k <= 0 {
				continue
			}
			want := min(k, p.Left[t])
			k = want
			for k > 0 && p.CanPlace(t, b) {
				n := 1
				if !in.Conflict(t, t) {
					n = max(1, min(k, p.maxFit(t, b)))
				}
				p.Place(t, b, n)
				k -= n
			}
			// What did not fit stays owed to the following bins.
			acc[t] -= float64(want - k)
			if p.Left[t] == 0 {
				acc[t] = 0
			}
		}
		// Items still owed (their quota did not fit on earlier bins) go
		// first, then the rule fills what is left with anything: without
		// this, the rule keeps taking large items ahead of schedule and
		// the small ones that fill the gaps are stranded at the end.
		p.fillOwed(b, rule, acc)
		p.fillBin(b, rule, nil)
	}
	// What no class could take goes wherever it still fits.
	for _, b := range order {
		if p.Unplaced() == 0 {
			break
		}
		p.fillBin(b, rule, nil)
	}
	return p, nil
}

// fillOwed fills bin b with the rule among the types owed at least one
// whole item (acc[t] ≥ 1), paying the debt down as it places them.
func (p *Packing) fillOwed(b int, rule Rule, acc []float64) {
	in := p.In
	free := make([]float64, in.dim)
	for {
		for r, x := range p.Free[b] {
			free[r] = x * in.Scale[r]
		}
		best, bestScore := -1, math.Inf(-1)
		for _, t := range in.order {
			if acc[t] < 1-quotaEps || p.Left[t] == 0 || !p.CanPlace(t, b) {
				continue
			}
			if s := rule.score(in.norm[t], free); s > bestScore {
				best, bestScore = t, s
			}
		}
		if best < 0 {
			return
		}
		p.Place(best, b, 1)
		acc[best]--
	}
}
