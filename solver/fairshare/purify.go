package fairshare

import "math"

// purify moves an optimal allocation x (per column) to a sparse one with
// the same criterion value V_n for every framework and the same use of
// every resource of every server group, so the same objective, the same
// binding rows and the same certificate.
//
// Why: the PF optimum is unique in V but rarely in x. Resources are
// fungible across servers in the pooled relaxation, so the optimal prices
// are often uniform per resource and almost every (framework, group)
// column prices out at zero; an interior-point method then converges to
// the analytic centre of that face and spreads every framework over every
// group (9.1 million (framework, server) entries at 1,000 frameworks ×
// 10,000 servers, against ≈220,000 for an LP vertex).
//
// How: for every pair of groups (g1, g2) and any R+1 frameworks that use
// both, where R is the number of resources, some nonzero δ has
// Σ_i δ_i d_i = 0; moving t·δ_i tasks of framework i from g1 to g2 leaves
// both groups' resource use unchanged and, when the frameworks' criterion
// coefficients on g1 and g2 agree, every V_n. The largest t that keeps x ≥
// 0 zeroes at least one entry. Moves never create entries, so one pass
// over the pairs leaves at most R frameworks shared by any two groups.
// Pairs and frameworks are taken in index order (deterministic).
func (m *model) purify(x []float64) {
	in := m.in
	G := len(in.groups)
	R := len(in.resources)
	// col[n*G+g] is column (n, g) or -1.
	col := make([]int, len(in.fws)*G)
	for i := range col {
		col[i] = -1
	}
	for k, c := range m.cols {
		col[c.n*G+c.g] = k
	}
	// users[g]: frameworks with a positive entry on g at the start,
	// ascending (entries only disappear; the x > 0 tests skip the zeroed).
	users := make([][]int, G)
	for n := range in.fws {
		for g := 0; g < G; g++ {
			if k := col[n*G+g]; k >= 0 && x[k] > 0 {
				users[g] = append(users[g], n)
			}
		}
	}
	mat := make([]float64, R*(R+1))
	delta := make([]float64, R+1)
	var shared []int
	for g1 := 0; g1 < G; g1++ {
		for g2 := g1 + 1; g2 < G; g2++ {
			shared = shared[:0]
			for _, n := range users[g1] {
				k1, k2 := col[n*G+g1], col[n*G+g2]
				if k2 >= 0 && x[k1] > 0 && x[k2] > 0 && m.coef[k1] == m.coef[k2] {
					shared = append(shared, n)
				}
			}
			for len(shared) > R {
				T := shared[:R+1]
				for i, n := range T {
					for r := 0; r < R; r++ {
						mat[r*(R+1)+i] = in.fws[n].d[r]
					}
				}
				if !nullVector(mat, R, R+1, delta) {
					// The first R+1 are dependent in a way the
					// elimination rejected; drop the first and go on.
					shared = shared[1:]
					continue
				}
				// Largest t with x_{i,g1} − tδ_i ≥ 0 and x_{i,g2} + tδ_i ≥ 0.
				t, hit, hitG := math.Inf(1), -1, 0
				for i, n := range T {
					switch {
					case delta[i] > 0:
						if v := x[col[n*G+g1]] / delta[i]; v < t {
							t, hit, hitG = v, i, g1
						}
					case delta[i] < 0:
						if v := -x[col[n*G+g2]] / delta[i]; v < t {
							t, hit, hitG = v, i, g2
						}
					}
				}
				if hit < 0 {
					shared = shared[1:]
					continue
				}
				for i, n := range T {
					if delta[i] == 0 {
						continue
					}
					k1, k2 := col[n*G+g1], col[n*G+g2]
					x[k1] = math.Max(0, x[k1]-t*delta[i])
					x[k2] = math.Max(0, x[k2]+t*delta[i])
				}
				x[col[T[hit]*G+hitG]] = 0
				// Keep only frameworks still on both groups.
				kept := shared[:0]
				for _, n := range shared {
					if x[col[n*G+g1]] > 0 && x[col[n*G+g2]] > 0 {
						kept = append(kept, n)
					}
				}
				shared = kept
			}
		}
	}
}

// nullVector finds a nonzero v with M v = 0 for the rows × cols matrix M
// (row-major, rows < cols) by Gaussian elimination with partial pivoting,
// setting the first free variable to 1. It reports false when it finds no
// free variable, which cannot happen for rows < cols in exact arithmetic.
// M is overwritten.
func nullVector(M []float64, rows, cols int, v []float64) bool {
	pivCol := make([]int, 0, rows)
	mscale := 0.0
	for _, a := range M[:rows*cols] {
		mscale = math.Max(mscale, math.Abs(a))
	}
	r := 0
	for c := 0; c < cols && r < rows; c++ {
		best, bi := 0.0, -1
		for i := r; i < rows; i++ {
			if a := math.Abs(M[i*cols+c]); a > best {
				best, bi = a, i
			}
		}
		if bi < 0 || best <= nullTol*mscale {
			continue
		}
		if bi != r {
			for j := 0; j < cols; j++ {
				M[r*cols+j], M[bi*cols+j] = M[bi*cols+j], M[r*cols+j]
			}
		}
		for i := 0; i < rows; i++ {
			if i == r {
				continue
			}
			f := M[i*cols+c] / M[r*cols+c]
			if f == 0 {
				continue
			}
			for j := c; j < cols; j++ {
				M[i*cols+j] -= f * M[r*cols+j]
			}
			M[i*cols+c] = 0
		}
		pivCol = append(pivCol, c)
		r++
	}
	free := -1
	isPiv := make([]bool, cols)
	for _, c := range pivCol {
		isPiv[c] = true
	}
	for c := 0; c < cols; c++ {
		if !isPiv[c] {
			free = c
			break
		}
	}
	if free < 0 {
		return false
	}
	for j := range v[:cols] {
		v[j] = 0
	}
	v[free] = 1
	for i, c := range pivCol {
		v[c] = -M[i*cols+free] / M[i*cols+c]
	}
	return true
}
