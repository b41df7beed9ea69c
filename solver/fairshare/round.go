package fairshare

import (
	"math"

	"github.com/xflex/xflex/vecpack"
)

// round turns a divisible optimum into whole tasks: each group's ⌊x_{n,g}⌋
// tasks are packed first-fit onto the group's copies in index order, then
// the leftover capacity is filled copy by copy (index order) with whole
// tasks, taking each time the framework the policy wants most: the
// smallest criterion value U_n (mmf), the largest marginal gain
// φ_n u_{n,i} g'_α(V_n) (pf), or the largest priority φ_n (efficiency);
// ties as in progressive filling. The divisible optimum stays the bound.
func (m *model) round(a alloc, p params) alloc {
	in := m.in
	f, err := newFiller(in, fillOpts{policy: p.policy, selection: SelectJoint, tie: p.tie})
	if err != nil {
		// Too many copies to simulate: keep the divisible allocation
		// floored per server, which is feasible.
		out := make(alloc, len(a))
		for n := range a {
			out[n] = map[int]float64{}
			for j, v := range a[n] {
				per := math.Floor(v/float64(in.servers[j].count)+vecpack.FitTol) * float64(in.servers[j].count)
				if per > 0 {
					out[n][j] = per
				}
			}
		}
		return out
	}
	// Quotas per (framework, group).
	quota := make([]map[int]float64, len(in.fws))
	for n := range quota {
		quota[n] = map[int]float64{}
		for j, v := range a[n] {
			quota[n][in.groupOf[j]] += v
		}
		for g, v := range quota[n] {
			quota[n][g] = math.Floor(v + vecpack.FitTol)
		}
	}
	copiesOf := make([][]int, len(in.groups))
	for i := range f.srvOf {
		g := f.groupOf[i]
		copiesOf[g] = append(copiesOf[g], i)
	}
	for g, copies := range copiesOf {
		var fwList []int
		for n := range in.fws {
			if quota[n][g] > 0 {
				fwList = append(fwList, n)
			}
		}
		for _, i := range copies {
			for _, n := range fwList {
				for quota[n][g] > 0 && f.fitsOn(n, i) {
					if k := f.bulkFit(n, i, quota[n][g]); k > 0 {
						f.placeMany(n, i, k)
						quota[n][g] -= float64(k)
						continue
					}
					f.place(n, i)
					quota[n][g]--
				}
			}
			kept := fwList[:0]
			for _, n := range fwList {
				if quota[n][g] > 0 {
					kept = append(kept, n)
				}
			}
			fwList = kept
		}
	}
	V := make([]float64, len(in.fws))
	coef := func(n, i int) float64 { return in.criterionCoef(p.criterion, n, int(f.srvOf[i])) }
	f.critFn = func(n, i int) float64 {
		switch p.policy {
		case PolicyMMF:
			return V[n]
		case PolicyPF:
			v := V[n] * in.fws[n].phi
			if v <= 0 {
				return math.Inf(-1)
			}
			_, dg := gAlpha(p.alpha, v)
			return -in.fws[n].phi * coef(n, i) * in.fws[n].phi * dg
		default:
			return -in.fws[n].phi
		}
	}
	for n := range in.fws {
		for j, v := range f.xs[n] {
			V[n] += in.criterionCoef(p.criterion, n, j) * v
		}
	}
	for i := range f.srvOf {
		for {
			n, _ := f.bestOn(i)
			if n < 0 {
				break
			}
			f.place(n, i)
			V[n] += coef(n, i)
		}
	}
	return alloc(f.xs)
}
