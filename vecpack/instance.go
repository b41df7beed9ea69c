package vecpack

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
)

// ItemType is a class of identical items: Count copies of one size vector
// with the same placement restrictions.
type ItemType struct {
	// Size is the demand in raw units (one entry per dimension).
	Size []float64
	// Count is how many copies must be packed.
	Count int
	// Allowed, when non-nil, has one entry per bin: false forbids the bin.
	Allowed []bool
	// Classes are the conflict classes an item of this type carries (see
	// Instance.Conflicts). An item may carry several (a colocated bundle
	// carries the classes of all its members).
	Classes []int
}

// Instance is a vector packing instance: bins with capacities, item types
// with counts, allowed-bin masks and pairwise class conflicts.
type Instance struct {
	// Caps holds each bin's usable capacity (raw units, reservations
	// already subtracted).
	Caps [][]float64
	// Types are the item types to pack.
	Types []ItemType
	// Scale converts raw units to the normalised units the scores see
	// (normalised = raw·Scale[r]); nil means 1/max bin capacity per
	// dimension.
	Scale []float64
	// Conflicts lists pairs of classes that may never share a bin; a pair
	// (c, c) forbids two items carrying class c on one bin.
	Conflicts [][2]int

	prepared bool
	dim      int
	norm     [][]float64 // normalised sizes per type
	weight   []float64   // SizeSum of the normalised size, the unplaced-weight unit
	conflict [][]uint64  // type×type conflict bitsets, nil when there are none
	class    []int       // bin equivalence class (same capacity and allowed column)
	order    []int       // types by (weight desc, index asc): the tie-break order
}

// Prepare validates the instance and precomputes normalised sizes, conflict
// bitsets and bin classes. It is called by every packer; calling it again
// is cheap.
func (in *Instance) Prepare() error {
	if in.prepared {
		return nil
	}
	if len(in.Caps) == 0 && len(in.Types) == 0 {
		in.prepared = true
		return nil
	}
	d := -1
	for b, c := range in.Caps {
		if d < 0 {
			d = len(c)
		}
		if len(c) != d {
			return fmt.Errorf("vecpack: bin %d has %d dimensions, want %d", b, len(c), d)
		}
		for _, x := range c {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("vecpack: bin %d: non-finite capacity", b)
			}
		}
	}
	for t, it := range in.Types {
		if d < 0 {
			d = len(it.Size)
		}
		if len(it.Size) != d {
			return fmt.Errorf("vecpack: type %d has %d dimensions, want %d", t, len(it.Size), d)
		}
		if it.Count < 0 {
			return fmt.Errorf("vecpack: type %d: negative count", t)
		}
		if it.Allowed != nil && len(it.Allowed) != len(in.Caps) {
			return fmt.Errorf("vecpack: type %d: allowed mask has %d entries for %d bins", t, len(it.Allowed), len(in.Caps))
		}
		for _, x := range it.Size {
			if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
				return fmt.Errorf("vecpack: type %d: size must be finite and non-negative", t)
			}
		}
	}
	in.dim = d
	scale := in.Scale
	if scale == nil {
		scale = make([]float64, d)
		for r := range scale {
			m := 0.0
			for _, c := range in.Caps {
				m = math.Max(m, c[r])
			}
			if m > 0 {
				scale[r] = 1 / m
			}
		}
		in.Scale = scale
	}
	if len(scale) != d {
		return errors.New("vecpack: scale length differs from the dimension")
	}
	in.norm = make([][]float64, len(in.Types))
	in.weight = make([]float64, len(in.Types))
	for t, it := range in.Types {
		v := make([]float64, d)
		for r, x := range it.Size {
			v[r] = x * scale[r]
		}
		in.norm[t] = v
		in.weight[t] = SizeSum(v)
	}
	in.order = make([]int, len(in.Types))
	for i := range in.order {
		in.order[i] = i
	}
	sort.SliceStable(in.order, func(i, j int) bool {
		return in.weight[in.order[i]] > in.weight[in.order[j]]
	})
	if err := in.prepareConflicts(); err != nil {
		return err
	}
	in.prepareClasses()
	in.prepared = true
	return nil
}

func (in *Instance) prepareConflicts() error {
	if len(in.Conflicts) == 0 {
		in.conflict = nil
		return nil
	}
	nc := 0
	for _, p := range in.Conflicts {
		if p[0] < 0 || p[1] < 0 {
			return errors.New("vecpack: negative conflict class")
		}
		nc = max(nc, p[0]+1, p[1]+1)
	}
	for _, it := range in.Types {
		for _, c := range it.Classes {
			if c < 0 {
				return errors.New("vecpack: negative conflict class")
			}
			nc = max(nc, c+1)
		}
	}
	cc := make([][]bool, nc)
	for i := range cc {
		cc[i] = make([]bool, nc)
	}
	for _, p := range in.Conflicts {
		cc[p[0]][p[1]] = true
		cc[p[1]][p[0]] = true
	}
	T := len(in.Types)
	words := (T + 63) / 64
	in.conflict = make([][]uint64, T)
	for t := range in.Types {
		in.conflict[t] = make([]uint64, words)
	}
	for t := range in.Types {
		for u := t; u < T; u++ {
			hit := false
			for _, a := range in.Types[t].Classes {
				for _, b := range in.Types[u].Classes {
					if cc[a][b] {
						hit = true
					}
				}
			}
			if hit {
				in.conflict[t][u/64] |= 1 << (u % 64)
				in.conflict[u][t/64] |= 1 << (t % 64)
			}
		}
	}
	return nil
}

// prepareClasses groups bins with equal capacity and equal allowed columns;
// the greedy replicates a fill pattern across consecutive bins of a class.
// Only the distinct allowed rows enter a bin's key (types sharing one row,
// as a caller's groups of one shape do, and types without a row give the
// same bit for every bin of them): the classes are those of every type's
// bit, at bins × distinct rows instead of bins × types (20,000 bins ×
// 2,000 types cost 0.3 s of a 1 s budget on every oracle call, unchecked).
func (in *Instance) prepareClasses() {
	rows := distinctRows(in.Types)
	ids := map[string]int{}
	in.class = make([]int, len(in.Caps))
	buf := make([]byte, 0, 8*in.dim+len(rows))
	for b, c := range in.Caps {
		buf = buf[:0]
		for _, x := range c {
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(x))
		}
		for _, row := range rows {
			if row[b] {
				buf = append(buf, 1)
			} else {
				buf = append(buf, 0)
			}
		}
		k := string(buf)
		id, ok := ids[k]
		if !ok {
			id = len(ids)
			ids[k] = id
		}
		in.class[b] = id
	}
}

// distinctRows is the types' allowed rows, each backing array once (in
// order of first use); types without a row are allowed everywhere and add
// none.
func distinctRows(types []ItemType) [][]bool {
	var rows [][]bool
	seen := map[*bool]int{}
	for _, it := range types {
		if len(it.Allowed) == 0 {
			continue
		}
		if n, ok := seen[&it.Allowed[0]]; ok && n == len(it.Allowed) {
			continue
		}
		seen[&it.Allowed[0]] = len(it.Allowed)
		rows = append(rows, it.Allowed)
	}
	return rows
}

// Dim is the number of dimensions (valid after Prepare).
func (in *Instance) Dim() int { return in.dim }

// Weight is the normalised size sum of one item of type t, the unit in
// which unplaced demand is measured (valid after Prepare).
func (in *Instance) Weight(t int) float64 { return in.weight[t] }

// Norm is the normalised size of type t (valid after Prepare).
func (in *Instance) Norm(t int) []float64 { return in.norm[t] }

// Conflict reports whether types t and u may not share a bin.
func (in *Instance) Conflict(t, u int) bool {
	return in.conflict != nil && in.conflict[t][u/64]&(1<<(u%64)) != 0
}

// AllowedOn reports whether type t may be placed on bin b.
func (in *Instance) AllowedOn(t, b int) bool {
	a := in.Types[t].Allowed
	return a == nil || a[b]
}

// BinOrder is the default bin order of the greedy: larger bins first
// (normalised capacity sum), then by class, then by index, so bins of one
// class are consecutive.
func (in *Instance) BinOrder() []int {
	order := make([]int, len(in.Caps))
	size := make([]float64, len(in.Caps))
	for b := range order {
		order[b] = b
		for r, x := range in.Caps[b] {
			size[b] += x * in.Scale[r]
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, c := order[i], order[j]
		if size[a] != size[c] {
			return size[a] > size[c]
		}
		return in.class[a] < in.class[c]
	})
	return order
}
