package simulate

import "math"

// binner accumulates per-resource utilization integrals in fixed-width time
// bins. The width starts at lower-bound/n and doubles (merging neighbours)
// whenever the clock passes 2n bins, so memory stays O(n) whatever the
// makespan and the output has between n/2 and 2n bins.
type binner struct {
	n    int
	w    float64
	used [][]float64
	dem  [][]float64
	d    int
}

func newBinner(n int, lb float64, d int) *binner {
	if n < 1 {
		n = 1
	}
	w := lb / float64(n)
	if w <= 0 {
		w = 1
	}
	return &binner{n: n, w: w, d: d}
}

func (b *binner) grow() {
	h := (len(b.used) + 1) / 2
	for i := 0; i < h; i++ {
		u, dm := b.used[2*i], b.dem[2*i]
		if 2*i+1 < len(b.used) {
			for k := range u {
				u[k] += b.used[2*i+1][k]
				dm[k] += b.dem[2*i+1][k]
			}
		}
		b.used[i], b.dem[i] = u, dm
	}
	b.used, b.dem = b.used[:h], b.dem[:h]
	b.w *= 2
}

// add integrates the rates eff and dem over [t0, t1).
func (b *binner) add(t0, t1 float64, eff, dem []float64) {
	for t1 > float64(2*b.n)*b.w {
		b.grow()
	}
	i := int(t0 / b.w)
	for t0 < t1 {
		end := float64(i+1) * b.w
		if end > t1 {
			end = t1
		}
		if end <= t0 {
			i++
			continue
		}
		for len(b.used) <= i {
			b.used = append(b.used, make([]float64, b.d))
			b.dem = append(b.dem, make([]float64, b.d))
		}
		dt := end - t0
		for k := range eff {
			b.used[i][k] += eff[k] * dt
			b.dem[i][k] += dem[k] * dt
		}
		t0 = end
		i++
	}
}

func (b *binner) total(k int) float64 {
	s := 0.0
	for _, u := range b.used {
		s += u[k]
	}
	return s
}

// out lists the bins up to end as fractions of cluster capacity.
func (b *binner) out(end float64, names []string, total []float64) []UtilBin {
	res := []UtilBin{}
	for i := 0; float64(i)*b.w < end; i++ {
		s, e := float64(i)*b.w, float64(i+1)*b.w
		if e > end {
			e = end
		}
		ub := UtilBin{Start: s, End: e, Used: map[string]float64{}, Demanded: map[string]float64{}}
		for k, r := range names {
			u, dm := 0.0, 0.0
			if i < len(b.used) && total[k] > 0 && e > s {
				u = perCapacityTime(b.used[i][k], e-s, total[k])
				dm = perCapacityTime(b.dem[i][k], e-s, total[k])
			}
			ub.Used[r], ub.Demanded[r] = math.Max(u, 0), math.Max(dm, 0)
		}
		res = append(res, ub)
	}
	return res
}

// perCapacityTime is x/(span·capacity), the fraction of capacity·time that
// x (an integral of use over time) represents. It divides in two steps so
// that a subnormal span times a small capacity cannot underflow to 0 (0/0
// is NaN, x/0 is +Inf, and neither encodes as JSON); zero use is zero
// whatever the span, and a ratio beyond float64 saturates at MaxFloat64.
func perCapacityTime(x, span, capacity float64) float64 {
	if x == 0 || span <= 0 || capacity <= 0 {
		return 0
	}
	r := x / span / capacity
	if math.IsInf(r, 0) {
		return math.Copysign(math.MaxFloat64, r)
	}
	return r
}
