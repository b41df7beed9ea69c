package xsize

import (
	"math"
	"math/rand/v2"
	"sort"

	"github.com/xflex/xflex/ptas"
)

// The baselines are what a planner would pick without X-Size; both work in
// normalized units on the aggregated profile and, like a planner doing it by
// hand, ignore node types (the response says whether their shapes happen
// to fit one).

// QuantileShapes returns K shapes whose coordinate i is the weighted
// k/K-quantile of resource i, k = 1..K. The K-th is the componentwise
// maximum, so every request fits some shape.
func QuantileShapes(u [][]float64, w []float64, K int) [][]float64 {
	d := len(u[0])
	total := 0.0
	for _, x := range w {
		total += x
	}
	shapes := make([][]float64, K)
	for k := range shapes {
		shapes[k] = make([]float64, d)
	}
	idx := make([]int, len(u))
	for i := 0; i < d; i++ {
		for j := range idx {
			idx[j] = j
		}
		sort.SliceStable(idx, func(a, b int) bool { return u[idx[a]][i] < u[idx[b]][i] })
		acc, pos := 0.0, 0
		for k := 1; k <= K; k++ {
			target := total * float64(k) / float64(K)
			for pos < len(idx)-1 && acc+w[idx[pos]] < target*(1-quantileTol) {
				acc += w[idx[pos]]
				pos++
			}
			shapes[k-1][i] = u[idx[pos]][i]
			if k == K {
				shapes[k-1][i] = u[idx[len(idx)-1]][i]
			}
		}
	}
	return shapes
}

// kmeansIters bounds Lloyd's iterations; on profiles of a few hundred
// distinct sizes it converges in far fewer.
const kmeansIters = 100

// kmeansWork caps Lloyd's work (distinct requests × K × iterations) so the
// baseline stays a few tens of milliseconds even on a million distinct
// requests; at least one iteration always runs.
const kmeansWork = 20_000_000

// KMeansShapes runs weighted k-means (k-means++ seeding from seed, Lloyd's
// iterations, ties to the lower centroid index) and rounds each centroid up
// to the join of its cluster, so every request fits its cluster's shape.
func KMeansShapes(u [][]float64, w []float64, K int, seed int64) [][]float64 {
	n, d := len(u), len(u[0])
	K = min(K, n)
	r := rand.New(rand.NewPCG(uint64(seed), 0x6b6d65616e73))
	dist2 := func(a, b []float64) float64 {
		s := 0.0
		for i := range a {
			s += (a[i] - b[i]) * (a[i] - b[i])
		}
		return s
	}
	cent := [][]float64{append([]float64(nil), u[weightedPick(r, w)]...)}
	dmin := make([]float64, n)
	for len(cent) < K {
		sum := 0.0
		for j := range u {
			dmin[j] = math.Inf(1)
			for _, c := range cent {
				dmin[j] = math.Min(dmin[j], dist2(u[j], c))
			}
			dmin[j] *= w[j]
			sum += dmin[j]
		}
		if sum == 0 {
			break
		}
		cent = append(cent, append([]float64(nil), u[weightedPick(r, dmin)]...))
	}
	asg := make([]int, n)
	iters := max(1, min(kmeansIters, kmeansWork/max(1, n*K)))
	for it := 0; it < iters; it++ {
		changed := false
		for j := range u {
			best, bd := 0, math.Inf(1)
			for c := range cent {
				if x := dist2(u[j], cent[c]); x < bd {
					best, bd = c, x
				}
			}
			if asg[j] != best || it == 0 {
				changed = changed || asg[j] != best
				asg[j] = best
			}
		}
		sums := make([][]float64, len(cent))
		ws := make([]float64, len(cent))
		for c := range sums {
			sums[c] = make([]float64, d)
		}
		for j, c := range asg {
			ws[c] += w[j]
			for i, x := range u[j] {
				sums[c][i] += w[j] * x
			}
		}
		for c := range cent {
			if ws[c] > 0 {
				for i := range cent[c] {
					cent[c][i] = sums[c][i] / ws[c]
				}
			}
		}
		if !changed && it > 0 {
			break
		}
	}
	groups := make([][]int, len(cent))
	for j, c := range asg {
		groups[c] = append(groups[c], j)
	}
	var shapes [][]float64
	for _, g := range groups {
		if len(g) > 0 {
			shapes = append(shapes, ptas.Join(u, g))
		}
	}
	return shapes
}

func weightedPick(r *rand.Rand, w []float64) int {
	sum := 0.0
	for _, x := range w {
		sum += x
	}
	x := r.Float64() * sum
	for j, v := range w {
		if x < v {
			return j
		}
		x -= v
	}
	return len(w) - 1
}
