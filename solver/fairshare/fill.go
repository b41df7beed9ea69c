package fairshare

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/xflex/xflex/vecpack"
)

// Progressive filling (section IV). Tasks are placed one whole task at a
// time on individual server copies. The readings below are the ones that
// reproduce every row of the paper's Table I and its Table II:
//
//   - Criteria (smaller goes first): DRF M_n = x_n·max_r d_{n,r}/Σ_j c_{j,r}/φ_n
//     (eq. 3, Σ over the whole cluster); TSF x_n/(φ_n·N_n) where N_n is the
//     number of whole tasks of n the whole cluster holds when n is alone
//     (Σ_i ⌊min_r c_{i,r}/d_{n,r}⌋ over the servers δ allows); PS-DSF
//     K_{n,i} = x_n·max_r d_{n,r}/c_{i,r}/φ_n (eq. 4, server specific);
//     rPS-DSF the same with the server's current residual capacity in place
//     of c_{i,r}.
//   - rrr: before every single task the server order is reshuffled; the
//     first server on which some framework fits receives one task, for the
//     smallest-criterion framework that fits there. The first element of a
//     uniform permutation restricted to the servers where something fits is
//     uniform over those servers, so a uniform draw among them is the same
//     distribution at O(1) cost per draw.
//   - joint: the feasible (framework, server) pair with the smallest
//     criterion receives one task.
//   - bfdrf: frameworks are taken in DRF order; each one's best-fit server
//     among all servers δ allows is the one whose residual capacity vector
//     most closely matches the demand's shape (smallest L1 distance between
//     the two vectors normalised by their first resource, as in [35]); if
//     the task does not fit there, the next framework in DRF order is tried.
//   - Ties: the larger framework index and the lower server index win
//     (tie_break "paper"); tie_break "lowest" prefers the lower framework
//     index instead. Criteria within tieRel of each other are ties.
//
// Filling stops when no eligible framework fits anywhere (bfdrf: when no
// framework fits on its best-fit server).

// maxCopies caps the number of individual server copies progressive filling
// simulates; it schedules copy by copy, so a request with more copies is
// refused rather than left to run for hours.
const maxCopies = 1_000_000

type fillOpts struct {
	policy    string
	selection string
	tie       string
}

// filler is the state of one progressive-filling run.
type filler struct {
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
	// for bfdrf and rPS-DSF joint: copies touched so far and untouched
	// copies per group
	touched   []int
	isTouched []bool
	untouched [][]int // per group, ascending; head consumed first
	head      []int
	groupOf   []int // copy -> group
	ver       []int // copy -> tasks placed on it so far (runJointLazy)
	// critFn, when set, replaces the policy's criterion (used to complete
	// rounded exact optima).
	critFn func(n, i int) float64
	// psW[g][n] is PS-DSF's weight of n on group g.
	psW [][]float64
	// heaps, for joint DRF, TSF and PS-DSF, hold the frameworks by key per
	// class (fillheap.go): one class for DRF and TSF, one per group for
	// PS-DSF; classCopies lists each class's copies in index
	// order and classOf maps a copy to its class.
	heaps       []*fwHeap
	classCopies [][]int
	classOf     []int
	// trees, per class, answer bestOn for DRF, TSF and PS-DSF (fitTree);
	// dflat holds the demands, N×R.
	trees []*fitTree
	dflat []float64
	// rPS-DSF's trees (fillres.go): the one shared by the frameworks
	// allowed everywhere, one per group for the others (nil when the group
	// has none), and each framework's trees.
	rpsShared *rpsTree
	rpsGroup  []*rpsTree
	rpsIn     [][]*rpsTree
	invBuf    []float64 // R values, for bestRPS
	// allowed holds each framework's δ row dense (nil: every server),
	// for the lookups per copy; the instance keeps the rows sparse, so
	// they are made here, after the memory estimate was reserved.
	allowed [][]bool
}

func newFiller(in *instance, o fillOpts) (*filler, error) {
	R := len(in.resources)
	S := 0
	for _, s := range in.servers {
		S += s.count
		if S > maxCopies {
			return nil, fmt.Errorf("progressive filling simulates each server copy; the request has more than %d copies", maxCopies)
		}
	}
	f := &filler{in: in, o: o, R: R}
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
	f.ver = make([]int, S)
	N := len(in.fws)
	f.x = make([]float64, N)
	f.capN = make([]float64, N)
	f.xs = make([]map[int]float64, N)
	f.drfW = make([]float64, N)
	f.tsfW = make([]float64, N)
	f.allowed = make([][]bool, N)
	for n := range in.fws {
		fw := &in.fws[n]
		f.allowed[n] = denseRow(fw.on, len(in.servers))
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
			if !f.allows(n, j) || !in.holds(n, j) {
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
	return f, nil
}

// denseRow is the δ row of a framework allowed on the servers on of S
// (nil: on every server).
func denseRow(on []int, S int) []bool {
	if on == nil {
		return nil
	}
	row := make([]bool, S)
	for _, j := range on {
		row[j] = true
	}
	return row
}

// allows is δ for framework n and server j, from the dense rows.
func (f *filler) allows(n, j int) bool {
	row := f.allowed[n]
	return row == nil || row[j]
}

// fitsOn reports whether one task of n fits on copy i now.
func (f *filler) fitsOn(n, i int) bool {
	if f.x[n] >= f.capN[n] {
		return false
	}
	j := int(f.srvOf[i])
	if !f.allows(n, j) {
		return false
	}
	return fits(f.in.fws[n].d, f.res[i*f.R:(i+1)*f.R], f.in.servers[j].cap)
}

// bulkFit is how many tasks of n, at most limit, surely fit on copy i
// without the fit tolerance, leaving room for one more task of every
// resource n needs: the caller places them with placeMany and the last
// ones one at a time, so the tolerance decides exactly as task-by-task
// placement does.
func (f *filler) bulkFit(n, i int, limit float64) int {
	k := math.Min(limit, f.capN[n]-f.x[n]) - 1
	res := f.res[i*f.R : (i+1)*f.R]
	for r, d := range f.in.fws[n].d {
		if d > 0 {
			k = math.Min(k, math.Floor(res[r]/d)-1)
		}
	}
	if !(k >= 1) {
		return 0
	}
	return int(math.Min(k, math.MaxInt32))
}

// crit is the policy's criterion for framework n on copy i (smaller first).
func (f *filler) crit(n, i int) float64 {
	if f.critFn != nil {
		return f.critFn(n, i)
	}
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
func (f *filler) better(c1 float64, n1, i1 int, c2 float64, n2, i2 int) bool {
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

func tied(a, b float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= tieRel*math.Max(math.Abs(a), math.Abs(b))
}

// place puts one task of n on copy i.
func (f *filler) place(n, i int) { f.placeMany(n, i, 1) }

// placeMany places k tasks of n on copy i at once (k·d must fit; see
// bulkFit). One step per task made rounding a quota of 1e11 tasks (demand
// 1e-9 against a capacity of 100) run for minutes.
func (f *filler) placeMany(n, i, k int) {
	d := f.in.fws[n].d
	res := f.res[i*f.R : (i+1)*f.R]
	for r := range res {
		res[r] -= float64(k) * d[r]
		if res[r] < 0 { // within vecpack.FitTol: clamp round-off
			res[r] = 0
		}
	}
	f.x[n] += float64(k)
	f.ver[i]++
	for _, t := range f.trees {
		t.update(n)
	}
	if f.rpsIn != nil {
		for _, t := range f.rpsIn[n] {
			t.update(n)
		}
	}
	for _, q := range f.heaps {
		if f.x[n] >= f.capN[n] {
			q.remove(n)
		} else {
			q.grew(n)
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

// bestOn returns the smallest-criterion framework that fits on copy i, or -1:
// from rPS-DSF's trees or the copy's class fit tree when the filler has
// them, else (round's criteria) by a scan.
func (f *filler) bestOn(i int) (int, float64) {
	if f.rpsShared != nil {
		return f.bestRPS(i, -1)
	}
	if f.trees != nil {
		return f.bestInClass(i)
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

// run fills until nothing fits; rng is used by rrr only.
func (f *filler) run(ctx context.Context, rng *rand.Rand) error {
	switch f.o.policy {
	case PolicyBFDRF:
		return f.runBestFit(ctx)
	case PolicyRPSDSF:
		f.initRPSTrees()
		if f.o.selection == SelectRRR {
			return f.runRRR(ctx, rng)
		}
		return f.runJointLazy(ctx)
	}
	f.initHeaps()
	if f.o.selection == SelectRRR {
		return f.runRRR(ctx, rng)
	}
	return f.runJointHeap(ctx)
}

// ctxEvery is how many steps (a copy's search, placing a task or not)
// run between context checks. A check is an atomic load, tens of
// nanoseconds; a step is a walk of a fit tree, microseconds on small
// instances but about 5 ms at 100,000 frameworks × 100,000 restricted
// copies (a copy nothing fits walks the leaves its allowed servers hide),
// where 256 steps between checks ran a 50 ms budget to 1.1–1.4 s
// (issue 28). Eight steps keep that overrun to tens of milliseconds.
const ctxEvery = 8

func (f *filler) runRRR(ctx context.Context, rng *rand.Rand) error {
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

// bfScore is the best-fit distance between n's demand shape and copy i's
// residual shape: Σ_r |d_r/d_1 − res_r/res_1| with index 1 the first
// resource both vectors have positive (as in [35], which normalises by the
// first resource). +Inf when the residual has none of that resource.
func (f *filler) bfScore(n, i int) float64 {
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

// sortBy is an insertion sort: stable, allocation-free, and the order
// changes by one framework per step so it runs in near-linear time.
func sortBy(a []int, less func(x, y int) bool) {
	for i := 1; i < len(a); i++ {
		for k := i; k > 0 && less(a[k], a[k-1]); k-- {
			a[k], a[k-1] = a[k-1], a[k]
		}
	}
}
