package vecpack

import (
	"fmt"
	"math"
	"slices"
)

// Slot is Count items of one type on a bin.
type Slot struct {
	Type  int
	Count int
}

// Packing is a (partial) assignment of items to bins: per bin its slots,
// kept sorted by type, and per type how many items are still unplaced.
type Packing struct {
	In   *Instance
	Free [][]float64
	Bins [][]Slot
	Left []int
}

// NewPacking returns the empty packing of in (every item unplaced).
func NewPacking(in *Instance) (*Packing, error) {
	if err := in.Prepare(); err != nil {
		return nil, err
	}
	p := &Packing{In: in, Free: make([][]float64, len(in.Caps)), Bins: make([][]Slot, len(in.Caps)), Left: make([]int, len(in.Types))}
	for b, c := range in.Caps {
		p.Free[b] = slices.Clone(c)
	}
	for t, it := range in.Types {
		p.Left[t] = it.Count
	}
	return p, nil
}

// Clone returns a deep copy.
func (p *Packing) Clone() *Packing {
	q := &Packing{In: p.In, Free: make([][]float64, len(p.Free)), Bins: make([][]Slot, len(p.Bins)), Left: slices.Clone(p.Left)}
	for b := range p.Free {
		q.Free[b] = slices.Clone(p.Free[b])
		q.Bins[b] = slices.Clone(p.Bins[b])
	}
	return q
}

// Unplaced is the number of items not yet placed.
func (p *Packing) Unplaced() int {
	n := 0
	for _, l := range p.Left {
		n += l
	}
	return n
}

// UnplacedWeight is Σ_t Left[t]·Weight(t).
func (p *Packing) UnplacedWeight() float64 {
	w := 0.0
	for t, l := range p.Left {
		w += float64(l) * p.In.weight[t]
	}
	return w
}

// Count is the number of type-t items on bin b.
func (p *Packing) Count(b, t int) int {
	for _, s := range p.Bins[b] {
		if s.Type == t {
			return s.Count
		}
	}
	return 0
}

// conflicts reports whether a type-t item would conflict with bin b's items.
func (p *Packing) conflicts(t, b int) bool {
	if p.In.conflict == nil {
		return false
	}
	row := p.In.conflict[t]
	for _, s := range p.Bins[b] {
		if row[s.Type/64]&(1<<(s.Type%64)) != 0 {
			return true
		}
	}
	return false
}

// CanPlace reports whether one more type-t item may go on bin b: allowed,
// fits, and conflicts with nothing there.
func (p *Packing) CanPlace(t, b int) bool {
	return p.In.AllowedOn(t, b) && Fits(p.In.Types[t].Size, p.Free[b]) && !p.conflicts(t, b)
}

// maxFit is how many more type-t items fit bin b by capacity alone.
func (p *Packing) maxFit(t, b int) int {
	size := p.In.Types[t].Size
	k := math.MaxInt
	for r, x := range size {
		if x <= 0 {
			continue
		}
		lim := FitLimit(p.Free[b][r], 1)
		q := int(math.Floor(lim / x))
		// Guard the division against round-off: step down until it fits.
		for q > 0 && x*float64(q) > lim {
			q--
		}
		k = min(k, q)
	}
	return k
}

// Place puts n items of type t on bin b without checking feasibility
// (callers check with CanPlace) and takes them from Left.
func (p *Packing) Place(t, b, n int) {
	if n <= 0 {
		return
	}
	for r, x := range p.In.Types[t].Size {
		p.Free[b][r] -= x * float64(n)
	}
	p.Left[t] -= n
	s := p.Bins[b]
	i, found := slices.BinarySearchFunc(s, t, func(a Slot, t int) int { return a.Type - t })
	if found {
		s[i].Count += n
		return
	}
	p.Bins[b] = slices.Insert(s, i, Slot{Type: t, Count: n})
}

// Remove takes n items of type t off bin b and returns them to Left.
func (p *Packing) Remove(t, b, n int) {
	if n <= 0 {
		return
	}
	s := p.Bins[b]
	i, found := slices.BinarySearchFunc(s, t, func(a Slot, t int) int { return a.Type - t })
	if !found || s[i].Count < n {
		panic(fmt.Sprintf("vecpack: remove %d of type %d from bin %d that holds fewer", n, t, b))
	}
	s[i].Count -= n
	if s[i].Count == 0 {
		p.Bins[b] = slices.Delete(s, i, i+1)
	}
	for r, x := range p.In.Types[t].Size {
		p.Free[b][r] += x * float64(n)
	}
	p.Left[t] += n
	if len(p.Bins[b]) == 0 {
		// Reset to the exact capacity so round-off never accumulates.
		copy(p.Free[b], p.In.Caps[b])
	}
}

// Clear empties bin b, returning its items to Left.
func (p *Packing) Clear(b int) {
	for _, s := range p.Bins[b] {
		p.Left[s.Type] += s.Count
	}
	p.Bins[b] = p.Bins[b][:0]
	copy(p.Free[b], p.In.Caps[b])
}

// Verify checks the packing independently of how it was built: every bin
// within capacity, every item allowed where it is, no conflicting types on
// one bin, and placed+unplaced equal to each type's count.
func (p *Packing) Verify() error {
	in := p.In
	placed := make([]int, len(in.Types))
	for b, slots := range p.Bins {
		used := make([]float64, len(in.Caps[b]))
		for i, s := range slots {
			if s.Count <= 0 {
				return fmt.Errorf("bin %d: non-positive slot count", b)
			}
			if !in.AllowedOn(s.Type, b) {
				return fmt.Errorf("bin %d: type %d not allowed", b, s.Type)
			}
			for j := i; j < len(slots); j++ {
				u := slots[j].Type
				if in.Conflict(s.Type, u) && (u != s.Type || s.Count > 1) {
					return fmt.Errorf("bin %d: types %d and %d conflict", b, s.Type, u)
				}
			}
			placed[s.Type] += s.Count
			for r, x := range in.Types[s.Type].Size {
				used[r] += x * float64(s.Count)
			}
		}
		if !Fits(used, in.Caps[b]) {
			return fmt.Errorf("bin %d: load %v exceeds capacity %v", b, used, in.Caps[b])
		}
	}
	for t, it := range in.Types {
		if placed[t]+p.Left[t] != it.Count {
			return fmt.Errorf("type %d: %d placed + %d unplaced != %d", t, placed[t], p.Left[t], it.Count)
		}
	}
	return nil
}
