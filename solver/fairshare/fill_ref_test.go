package fairshare

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/xflex/xflex/vecpack"
)

// refFiller is progressive filling as it was before the per-group
// criterion heaps and per-framework fit pointers of fill.go (one linear
// scan over frameworks and candidate copies per task), kept as the
// reference the optimised filler must match allocation for allocation,
// draw for draw (TestFillMatchesReference). The readings are documented in
// fill.go.
type refFiller struct {
	in    *instance
	o     fillOpts
	R     int
	srvOf []int32   // copy -> server
	res   []float64 // copy residuals, S×R
	x     []float64 // per framework task counts
	capN  []float64 // whole-task caps
	xs    []map[int]float64
	// static criterion weights
	drfW []float64 // max_r d/total / φ
	tsfW []float64 // 1/(φ·N_n)
	// for joint/bfdrf: copies touched so far and untouched copies per group
	touched   []int
	isTouched []bool
	untouched [][]int // per group, ascending; head consumed first
	head      []int
	dead      []bool
	groupOf   []int // copy -> group
	// order, for the server-independent criteria (DRF, TSF), lists the
	// frameworks by criterion and tie-break, kept sorted as tasks land.
	order []int
}

func newRefFiller(in *instance, o fillOpts) (*refFiller, error) {
	R := len(in.resources)
	S := 0
	for _, s := range in.servers {
		S += s.count
		if S > maxCopies {
			return nil, fmt.Errorf("progressive filling simulates each server copy; the request has more than %d copies", maxCopies)
		}
	}
	f := &refFiller{in: in, o: o, R: R}
	f.srvOf = make([]int32, 0, S)
	f.res = make([]float64, 0, S*R)
	f.groupOf = make([]int, 0, S)
	f.untouched = make([][]int, len(in.groups))
	f.head = make([]int, len(in.groups))
	for j, s := range in.servers {
		for k := 0; k < s.count; k++ {
			i := len(f.srvOf)
			f.srvOf = append(f.srvOf, int32(j))
			f.res = append(f.res, s.cap...)
			g := in.groupOf[j]
			f.groupOf = append(f.groupOf, g)
			f.untouched[g] = append(f.untouched[g], i)
		}
	}
	f.isTouched = make([]bool, S)
	f.dead = make([]bool, S)
	N := len(in.fws)
	f.x = make([]float64, N)
	f.capN = make([]float64, N)
	f.xs = make([]map[int]float64, N)
	f.drfW = make([]float64, N)
	f.tsfW = make([]float64, N)
	for n := range in.fws {
		fw := &in.fws[n]
		f.capN[n] = math.Floor(fw.cap + vecpack.FitTol)
		f.xs[n] = map[int]float64{}
		f.drfW[n] = in.dominantPerTask(n) / fw.phi
		if o.policy != PolicyTSF {
			// Only TSF reads tsfW, and it costs frameworks × servers:
			// 0.2 s before the first deadline check on 1,000 × 10,000.
			continue
		}
		whole := 0.0
		for j, s := range in.servers {
			if !in.usable(n, j) {
				continue
			}
			m := math.Inf(1)
			for r, d := range fw.d {
				if d > 0 {
					m = math.Min(m, math.Floor(s.cap[r]/d+vecpack.FitTol))
				}
			}
			whole += float64(s.count) * m
		}
		if whole > 0 {
			f.tsfW[n] = 1 / (fw.phi * whole)
		} else {
			f.tsfW[n] = math.Inf(1)
		}
	}
	if o.policy == PolicyDRF || o.policy == PolicyTSF {
		// The one change from the code this file keeps: a TSF framework
		// no whole task of which fits anywhere (weight +Inf) is left out
		// of the order. Its criterion 0·Inf was NaN, which compares false
		// both ways, so the insertion sort could not move any framework
		// past it and the frameworks behind it starved.
		for n := range N {
			if !math.IsInf(f.tsfW[n], 1) {
				f.order = append(f.order, n)
			}
		}
		sortBy(f.order, func(a, b int) bool { return f.better(f.crit(a, 0), a, 0, f.crit(b, 0), b, 0) })
	}
	return f, nil
}

// fitsOn reports whether one task of n fits on copy i now.
func (f *refFiller) fitsOn(n, i int) bool {
	if f.x[n] >= f.capN[n] {
		return false
	}
	j := int(f.srvOf[i])
	if !f.in.fws[n].allows(j) {
		return false
	}
	return fits(f.in.fws[n].d, f.res[i*f.R:(i+1)*f.R], f.in.servers[j].cap)
}

// crit is the policy's criterion for framework n on copy i (smaller first).
func (f *refFiller) crit(n, i int) float64 {
	fw := &f.in.fws[n]
	switch f.o.policy {
	case PolicyDRF, PolicyBFDRF:
		return f.x[n] * f.drfW[n]
	case PolicyTSF:
		return f.x[n] * f.tsfW[n]
	case PolicyPSDSF:
		c := f.in.servers[f.srvOf[i]].cap
		m := 0.0
		for r, d := range fw.d {
			if d > 0 {
				m = math.Max(m, d/c[r])
			}
		}
		return f.x[n] * m / fw.phi
	case PolicyRPSDSF:
		if f.x[n] == 0 {
			return 0
		}
		res := f.res[i*f.R : (i+1)*f.R]
		m := 0.0
		for r, d := range fw.d {
			if d > 0 {
				m = math.Max(m, d/math.Max(res[r], math.SmallestNonzeroFloat64))
			}
		}
		return f.x[n] * m / fw.phi
	}
	panic("fairshare: unknown progressive-filling policy " + f.o.policy)
}

// better reports whether candidate (c1, n1, i1) beats (c2, n2, i2).
func (f *refFiller) better(c1 float64, n1, i1 int, c2 float64, n2, i2 int) bool {
	if !tied(c1, c2) {
		return c1 < c2
	}
	if n1 != n2 {
		if f.o.tie == TieLowest {
			return n1 < n2
		}
		return n1 > n2
	}
	return i1 < i2
}

// place puts one task of n on copy i.
func (f *refFiller) place(n, i int) { f.placeMany(n, i, 1) }

// placeMany places k tasks of n on copy i at once (k·d must fit; see
// bulkFit). One step per task made rounding a quota of 1e11 tasks (demand
// 1e-9 against a capacity of 100) run for minutes.
func (f *refFiller) placeMany(n, i, k int) {
	d := f.in.fws[n].d
	res := f.res[i*f.R : (i+1)*f.R]
	for r := range res {
		res[r] -= float64(k) * d[r]
		if res[r] < 0 { // within vecpack.FitTol: clamp round-off
			res[r] = 0
		}
	}
	f.x[n] += float64(k)
	if f.order != nil {
		// n's criterion grew: move it later until the order holds again
		// (criteria of the others are unchanged).
		k := slices.Index(f.order, n)
		for ; k+1 < len(f.order) && f.better(f.crit(f.order[k+1], i), f.order[k+1], i, f.crit(n, i), n, i); k++ {
			f.order[k], f.order[k+1] = f.order[k+1], f.order[k]
		}
	}
	f.xs[n][int(f.srvOf[i])] += float64(k)
	if !f.isTouched[i] {
		f.isTouched[i] = true
		f.touched = append(f.touched, i)
		g := f.groupOf[i]
		if h := f.head[g]; h < len(f.untouched[g]) && f.untouched[g][h] == i {
			f.head[g]++
		}
	}
}

// bestOn returns the smallest-criterion framework that fits on copy i, or -1.
func (f *refFiller) bestOn(i int) (int, float64) {
	if f.order != nil {
		// Server-independent criterion: the first framework in criterion
		// order that fits is the smallest-criterion one that fits.
		for _, n := range f.order {
			if f.fitsOn(n, i) {
				return n, f.crit(n, i)
			}
		}
		return -1, 0
	}
	best, bc := -1, 0.0
	for n := range f.in.fws {
		if !f.fitsOn(n, i) {
			continue
		}
		c := f.crit(n, i)
		if best < 0 || f.better(c, n, i, bc, best, i) {
			best, bc = n, c
		}
	}
	return best, bc
}

// candidates lists the copies a deterministic selection must consider:
// every touched copy not known dead and the lowest untouched copy of each
// group (untouched copies of a group are identical, so the lowest index
// stands for all of them under the lower-index tie-break).
func (f *refFiller) candidates(dst []int, includeDead bool) []int {
	dst = dst[:0]
	for _, i := range f.touched {
		if includeDead || !f.dead[i] {
			dst = append(dst, i)
		}
	}
	for g := range f.untouched {
		if h := f.head[g]; h < len(f.untouched[g]) {
			dst = append(dst, f.untouched[g][h])
		}
	}
	return dst
}

// run fills until nothing fits; rng is used by rrr only.
func (f *refFiller) run(ctx context.Context, rng *rand.Rand) error {
	switch {
	case f.o.policy == PolicyBFDRF:
		return f.runBestFit(ctx)
	case f.o.selection == SelectRRR:
		return f.runRRR(ctx, rng)
	default:
		return f.runJoint(ctx)
	}
}

func (f *refFiller) runRRR(ctx context.Context, rng *rand.Rand) error {
	alive := make([]int, len(f.srvOf))
	for i := range alive {
		alive[i] = i
	}
	steps := 0
	for len(alive) > 0 {
		if steps++; steps%ctxEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		k := rng.IntN(len(alive))
		i := alive[k]
		n, _ := f.bestOn(i)
		if n < 0 {
			// Nothing fits now, and residuals and eligibility only shrink:
			// the copy is done for good.
			alive[k] = alive[len(alive)-1]
			alive = alive[:len(alive)-1]
			continue
		}
		f.place(n, i)
	}
	return nil
}

func (f *refFiller) runJoint(ctx context.Context) error {
	var cand []int
	steps := 0
	for {
		if steps++; steps%ctxEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		cand = f.candidates(cand, false)
		bn, bi, bc := -1, -1, 0.0
		for _, i := range cand {
			n, c := f.bestOn(i)
			if n < 0 {
				f.dead[i] = true
				if !f.isTouched[i] {
					// The lowest untouched copy of a group fits nothing, so
					// none of the group's untouched copies does.
					g := f.groupOf[i]
					f.head[g] = len(f.untouched[g])
				}
				continue
			}
			if bn < 0 || f.better(c, n, i, bc, bn, bi) {
				bn, bi, bc = n, i, c
			}
		}
		if bn < 0 {
			return nil
		}
		f.place(bn, bi)
	}
}

// bfScore is the best-fit distance between n's demand shape and copy i's
// residual shape: Σ_r |d_r/d_1 − res_r/res_1| with index 1 the first
// resource both vectors have positive (as in [35], which normalises by the
// first resource). +Inf when the residual has none of that resource.
func (f *refFiller) bfScore(n, i int) float64 {
	d := f.in.fws[n].d
	res := f.res[i*f.R : (i+1)*f.R]
	ref := -1
	for r, v := range d {
		if v > 0 {
			ref = r
			break
		}
	}
	if res[ref] <= 0 {
		return math.Inf(1)
	}
	s := 0.0
	for r := range d {
		s += math.Abs(d[r]/d[ref] - res[r]/res[ref])
	}
	return s
}

func (f *refFiller) runBestFit(ctx context.Context) error {
	N := len(f.in.fws)
	order := make([]int, N)
	for n := range order {
		order[n] = n
	}
	var cand []int
	steps := 0
	for {
		if steps++; steps%ctxEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		// DRF order with the tie-break; the order persists between steps
		// and changes by one framework, so the insertion sort is cheap.
		sortBy(order, func(a, b int) bool { return f.better(f.crit(a, 0), a, 0, f.crit(b, 0), b, 0) })
		cand = f.candidates(cand, true)
		placed := false
		for _, n := range order {
			if f.x[n] >= f.capN[n] {
				continue
			}
			bi, bs := -1, math.Inf(1)
			for _, i := range cand {
				if !f.in.fws[n].allows(int(f.srvOf[i])) {
					continue
				}
				s := f.bfScore(n, i)
				if bi < 0 || s < bs || (s == bs && i < bi) {
					bi, bs = i, s
				}
			}
			if bi >= 0 && f.fitsOn(n, bi) {
				f.place(n, bi)
				placed = true
				break
			}
		}
		if !placed {
			return nil
		}
	}
}
