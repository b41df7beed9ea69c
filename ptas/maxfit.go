package ptas

import (
	"math"
	"sort"
)

// MaxFitDP solves fit "max" exactly when no node type constrains the shapes
// or one node type holds every request: the cost of a shape is its largest
// normalized coordinate L, and the shape L·(1, …, 1) (clipped to that node)
// serves every request whose largest coordinate is at most L. So the
// problem is one-dimensional in the keys m_j = max_i u_ji: choose at most K
// levels, each request paying the smallest level ≥ its key. With the keys
// sorted, an optimal solution splits them into contiguous groups, each
// paying its largest key:
//
//	f_k(i) = min_{i' < i} f_{k−1}(i') + key_i·(W_i − W_{i'})   (W prefix weights).
//
// The split cost key_b·(W_b − W_a) satisfies the quadrangle inequality
// (for a ≤ b ≤ c ≤ d the difference is (key_c − key_d)(W_b − W_a) ≤ 0), so
// the optimal split point is monotone in i and divide and conquer computes
// each layer in O(n log n): O(K·n log n) in all. The reported shape of a
// group is the join of its requests, whose largest coordinate is the
// group's level, so the cost is unchanged and the shape is as small as
// possible in the other resources.
//
// It returns the shapes, each request's shape and the optimum; ok is false
// when node types are given and none holds every request.
func MaxFitDP(in *Instance) (shapes [][]float64, asg []int, value float64, ok bool) {
	if len(in.Caps) > 0 {
		holdsAll := false
		for _, c := range in.Caps {
			all := true
			for _, u := range in.U {
				if !Fits(u, c) {
					all = false
					break
				}
			}
			if all {
				holdsAll = true
				break
			}
		}
		if !holdsAll {
			return nil, nil, 0, false
		}
	}
	n := len(in.U)
	keyOf := make([]float64, n)
	order := make([]int, n)
	for j, u := range in.U {
		keyOf[j] = MaxCost(u)
		order[j] = j
	}
	sort.SliceStable(order, func(a, b int) bool { return keyOf[order[a]] < keyOf[order[b]] })
	// distinct keys with aggregated weight
	var keys, wts []float64
	grp := make([]int, n) // request -> key index
	for _, j := range order {
		if len(keys) == 0 || keyOf[j] > keys[len(keys)-1] {
			keys = append(keys, keyOf[j])
			wts = append(wts, 0)
		}
		grp[j] = len(keys) - 1
		wts[len(wts)-1] += in.W[j]
	}
	levels, _ := maxFitLevels(keys, wts, in.K)
	// request → first level ≥ its key
	asgLevel := make([]int, len(keys))
	li := 0
	for i := range keys {
		for levels[li] < i {
			li++
		}
		asgLevel[i] = li
	}
	groups := make([][]int, len(levels))
	for j := range in.U {
		l := asgLevel[grp[j]]
		groups[l] = append(groups[l], j)
	}
	asg = make([]int, n)
	for _, g := range groups {
		if len(g) == 0 {
			continue
		}
		for _, j := range g {
			asg[j] = len(shapes)
		}
		shapes = append(shapes, Join(in.U, g))
	}
	for j := range in.U {
		value += in.W[j] * MaxCost(shapes[asg[j]])
	}
	return shapes, asg, value, true
}

// maxFitLevels returns the indices (into sorted distinct keys) of the
// chosen levels, ascending and always ending with the last key, and the
// optimal value Σ w·level, by the divide-and-conquer DP of MaxFitDP.
func maxFitLevels(keys, wts []float64, K int) ([]int, float64) {
	m := len(keys)
	K = min(K, m)
	P := make([]float64, m+1)
	for i, w := range wts {
		P[i+1] = P[i] + w
	}
	// f[k][i]: first i keys covered by k levels, the k-th at key i-1.
	prev := make([]float64, m+1)
	for i := range prev {
		prev[i] = math.Inf(1)
	}
	prev[0] = 0
	arg := make([][]int, K+1)
	cur := make([]float64, m+1)
	for k := 1; k <= K; k++ {
		arg[k] = make([]int, m+1)
		for i := range cur {
			cur[i] = math.Inf(1)
		}
		var rec func(lo, hi, optLo, optHi int)
		rec = func(lo, hi, optLo, optHi int) {
			if lo > hi {
				return
			}
			mid := (lo + hi) / 2
			best, bi := math.Inf(1), optLo
			for a := optLo; a <= min(mid-1, optHi); a++ {
				if v := prev[a] + keys[mid-1]*(P[mid]-P[a]); v < best {
					best, bi = v, a
				}
			}
			cur[mid], arg[k][mid] = best, bi
			rec(lo, mid-1, optLo, bi)
			rec(mid+1, hi, bi, optHi)
		}
		rec(1, m, 0, m-1)
		prev, cur = cur, prev
	}
	value := prev[m]
	levels := make([]int, 0, K)
	for k, i := K, m; k >= 1 && i > 0; k-- {
		levels = append(levels, i-1)
		i = arg[k][i]
	}
	sort.Ints(levels)
	return levels, value
}
