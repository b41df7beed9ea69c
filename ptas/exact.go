package ptas

import (
	"fmt"
	"math"
	"math/bits"
)

// ExactMaxRequests bounds Exact: its DP runs in O(K·3^n).
const ExactMaxRequests = 14

// Exact solves small instances optimally without rays, independently of the
// PTAS machinery. Its candidates are the points of the grid of request
// coordinates that matter: in an optimal solution each shape may be shrunk
// to the join (componentwise max) of the requests it serves, a grid point,
// without raising any cost or leaving its node. So
//
//	OPT = min over partitions of the requests into at most K groups g whose
//	      join fits a node type of Σ_g w(g)·cost(join(g)),
//
// computed by a DP over subsets in O(K·3^n). cost is Cost (fit "sum") or
// MaxCost (fit "max"). It returns the shapes (joins), the assignment and the
// optimum; an error when n > ExactMaxRequests or no partition fits.
func Exact(in *Instance, cost func([]float64) float64) ([][]float64, []int, float64, error) {
	n := len(in.U)
	if n > ExactMaxRequests {
		return nil, nil, 0, fmt.Errorf("ptas: Exact handles at most %d distinct requests, got %d", ExactMaxRequests, n)
	}
	full := 1<<n - 1
	group := make([]float64, full+1)
	idx := make([]int, 0, n)
	for s := 1; s <= full; s++ {
		idx = idx[:0]
		w := 0.0
		for j := 0; j < n; j++ {
			if s>>j&1 == 1 {
				idx = append(idx, j)
				w += in.W[j]
			}
		}
		jn := Join(in.U, idx)
		ok := len(in.Caps) == 0
		for _, c := range in.Caps {
			if Fits(jn, c) {
				ok = true
				break
			}
		}
		group[s] = math.Inf(1)
		if ok {
			group[s] = w * cost(jn)
		}
	}
	K := min(in.K, n)
	f := make([][]float64, K+1)
	choice := make([][]int, K+1)
	for k := range f {
		f[k] = make([]float64, full+1)
		choice[k] = make([]int, full+1)
		for m := range f[k] {
			f[k][m] = math.Inf(1)
		}
	}
	f[0][0] = 0
	for k := 1; k <= K; k++ {
		f[k][0] = 0
		for m := 1; m <= full; m++ {
			low := m & -m
			rest := m ^ low
			// submasks s of m containing low: s = low | t, t ⊆ rest
			for t := rest; ; t = (t - 1) & rest {
				s := low | t
				if v := group[s] + f[k-1][m^s]; v < f[k][m] {
					f[k][m], choice[k][m] = v, s
				}
				if t == 0 {
					break
				}
			}
		}
	}
	if math.IsInf(f[K][full], 1) {
		return nil, nil, 0, fmt.Errorf("ptas: no %d shapes that fit the node types serve every request", in.K)
	}
	var shapes [][]float64
	asg := make([]int, n)
	for k, m := K, full; m != 0; k-- {
		s := choice[k][m]
		idx = idx[:0]
		for t := s; t != 0; t &= t - 1 {
			j := bits.TrailingZeros(uint(t))
			idx = append(idx, j)
			asg[j] = len(shapes)
		}
		shapes = append(shapes, Join(in.U, idx))
		m ^= s
	}
	return shapes, asg, f[K][full], nil
}
