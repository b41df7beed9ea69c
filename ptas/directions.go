package ptas

import (
	"fmt"
	"math"
)

// Family names a way of laying out directions. See the package doc for the
// factor ρ each family guarantees.
type Family string

const (
	// FamilyAuto picks FamilyMix in two dimensions and FamilyLattice in three
	// and more (and the single direction in one dimension).
	FamilyAuto Family = "auto"
	// FamilyMix: m rays in 2D at mix coordinate y/(x+y) = k/(m+1), k = 1..m;
	// ρ = 1 + 1/m, the best possible for m rays.
	FamilyMix Family = "mix"
	// FamilyAngle: the paper's equi-angled rays in 2D, angles kδ for
	// k = 1..M−1 with δ = π/(2M); ρ = 1 + tan δ. In d ≥ 3 dimensions they are
	// built inductively, ρ = (1 + tan δ)^(d−1).
	FamilyAngle Family = "angle"
	// FamilyLattice: directions a/T for every non-negative integer vector a
	// with Σa = T = N + d − 1; ρ = 1 + (d−1)/N.
	FamilyLattice Family = "lattice"
)

// Families lists the accepted family names.
func Families() []Family { return []Family{FamilyAuto, FamilyMix, FamilyAngle, FamilyLattice} }

// Directions is a finite set of rays from the origin in normalized
// coordinates. Every vector is non-negative and sums to 1, so the point at
// level t on a ray costs exactly t.
type Directions struct {
	Family Family
	Dim    int
	// Param is the family's resolution: m for mix, M for angle, N for
	// lattice.
	Param int
	Vecs  [][]float64
	// Rho is the proven rounding factor: every non-negative point s has a
	// ray whose cheapest dominating point costs at most Rho·Σs.
	Rho float64
}

// Len is the number of rays.
func (d *Directions) Len() int { return len(d.Vecs) }

// MixRays returns m ≥ 1 rays in 2D spaced evenly in the mix coordinate
// p = y/(x+y): p_k = k/(m+1), k = 1..m, with ρ = 1 + 1/m.
func MixRays(m int) *Directions {
	if m < 1 {
		m = 1
	}
	vecs := make([][]float64, m)
	for k := 1; k <= m; k++ {
		p := float64(k) / float64(m+1)
		vecs[k-1] = []float64{1 - p, p}
	}
	return &Directions{Family: FamilyMix, Dim: 2, Param: m, Vecs: vecs, Rho: 1 + 1/float64(m)}
}

// AngleRays returns the paper's equi-angled rays in 2D: angles kδ for
// k = 1..M−1 with δ = π/(2M), M ≥ 2, so ρ = 1 + tan δ. (The paper's π/ε − 1
// rays are M = π/ε, δ = ε/2.)
func AngleRays(M int) *Directions {
	if M < 2 {
		M = 2
	}
	delta := math.Pi / (2 * float64(M))
	vecs := make([][]float64, 0, M-1)
	for k := 1; k < M; k++ {
		x, y := math.Cos(float64(k)*delta), math.Sin(float64(k)*delta)
		vecs = append(vecs, []float64{x / (x + y), y / (x + y)})
	}
	return &Directions{Family: FamilyAngle, Dim: 2, Param: M, Vecs: vecs, Rho: 1 + math.Tan(delta)}
}

// InductiveRays builds d-dimensional directions from a 2D set: a direction
// u of the first d−1 coordinates is combined with each 2D ray (1−p, p) into
// ((1−p)·u, p). ρ multiplies: ρ_d = ρ_{d−1}·ρ_2, so (ρ_2)^(d−1).
func InductiveRays(d int, base *Directions) *Directions {
	if d <= 1 {
		return single()
	}
	if d == 2 {
		return base
	}
	lower := InductiveRays(d-1, base)
	vecs := make([][]float64, 0, lower.Len()*base.Len())
	for _, u := range lower.Vecs {
		for _, b := range base.Vecs {
			v := make([]float64, d)
			for i, x := range u {
				v[i] = b[0] * x
			}
			v[d-1] = b[1]
			vecs = append(vecs, v)
		}
	}
	return &Directions{Family: base.Family, Dim: d, Param: base.Param, Vecs: vecs, Rho: lower.Rho * base.Rho}
}

// LatticeRays returns the directions a/T for every non-negative integer
// vector a of length d with Σa = T = N + d − 1, in lexicographic order of a;
// ρ = 1 + (d−1)/N. There are C(T+d−1, d−1) of them.
func LatticeRays(d, N int) *Directions {
	if d <= 1 {
		return single()
	}
	if N < 1 {
		N = 1
	}
	T := N + d - 1
	var vecs [][]float64
	a := make([]int, d)
	var rec func(i, left int)
	rec = func(i, left int) {
		if i == d-1 {
			a[i] = left
			v := make([]float64, d)
			for k, x := range a {
				v[k] = float64(x) / float64(T)
			}
			vecs = append(vecs, v)
			return
		}
		for x := left; x >= 0; x-- {
			a[i] = x
			rec(i+1, left-x)
		}
	}
	rec(0, T)
	return &Directions{Family: FamilyLattice, Dim: d, Param: N, Vecs: vecs, Rho: float64(T) / float64(N)}
}

// LatticeCount is the number of lattice directions LatticeRays(d, N) builds,
// C(N+2d−2, d−1), saturating at math.MaxInt64/2.
func LatticeCount(d, N int) int {
	if d <= 1 {
		return 1
	}
	return binom(N+2*d-2, d-1)
}

func binom(n, k int) int {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	if r > math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	return int(math.Round(r))
}

func single() *Directions {
	return &Directions{Family: FamilyLattice, Dim: 1, Param: 1, Vecs: [][]float64{{1}}, Rho: 1}
}

// rhoSlack absorbs the round-off of the ρ formulas (a few ulps) when a
// family's resolution is chosen to meet ρ ≤ 1+ε exactly at the boundary,
// e.g. ε = 0.05 with m = 20 mix rays.
const rhoSlack = 1e-12

// ForEpsilon returns the coarsest direction set of the family in d
// dimensions whose ρ is at most 1+eps (eps > 0).
func ForEpsilon(family Family, d int, eps float64) (*Directions, error) {
	if !(eps > 0) || math.IsInf(eps, 0) {
		return nil, fmt.Errorf("ptas: epsilon must be positive and finite, got %v", eps)
	}
	if d <= 1 {
		return single(), nil
	}
	if family == FamilyAuto || family == "" {
		if d == 2 {
			family = FamilyMix
		} else {
			family = FamilyLattice
		}
	}
	switch family {
	case FamilyMix:
		if d != 2 {
			// Inductive with mix rays: ρ_2^(d−1) ≤ 1+eps.
			r2 := math.Pow(1+eps, 1/float64(d-1)) - 1
			return InductiveRays(d, MixRays(ceilTol(1/r2))), nil
		}
		return MixRays(ceilTol(1 / eps)), nil
	case FamilyAngle:
		r2 := eps
		if d > 2 {
			r2 = math.Pow(1+eps, 1/float64(d-1)) - 1
		}
		M := int(math.Ceil(math.Pi / (2 * math.Atan(r2))))
		if M < 2 {
			M = 2
		}
		for M > 2 && 1+math.Tan(math.Pi/(2*float64(M-1))) <= 1+r2+rhoSlack {
			M--
		}
		return InductiveRays(d, AngleRays(M)), nil
	case FamilyLattice:
		return LatticeRays(d, ceilTol(float64(d-1)/eps)), nil
	}
	return nil, fmt.Errorf("ptas: unknown direction family %q", family)
}

// ceilTol is ⌈x⌉ except that x within rhoSlack above an integer rounds down,
// so 1/0.05 = 20.000000000000004 gives 20.
func ceilTol(x float64) int {
	r := math.Round(x)
	if math.Abs(x-r) <= rhoSlack*math.Max(1, x) {
		return max(int(r), 1)
	}
	return max(int(math.Ceil(x)), 1)
}

// Level is the smallest t with t·v ≥ u componentwise: max over i with
// u_i > 0 of u_i/v_i, +Inf when u_i > 0 = v_i, 0 for u = 0. The cheapest
// point on ray v that dominates u is Level(u, v)·v, of cost Level(u, v).
func Level(u, v []float64) float64 {
	t := 0.0
	for i, x := range u {
		if x <= 0 {
			continue
		}
		if v[i] <= 0 {
			return math.Inf(1)
		}
		if r := x / v[i]; r > t {
			t = r
		}
	}
	return t
}

// RoundUp returns the index of the ray whose cheapest dominating point of u
// is cheapest, and that point's cost (its level). Ties go to the lowest
// index. This is the rounding of the ρ proof: by cost, never by angle.
func RoundUp(u []float64, dirs *Directions) (int, float64) {
	best, bt := -1, math.Inf(1)
	for k, v := range dirs.Vecs {
		if t := Level(u, v); t < bt {
			best, bt = k, t
		}
	}
	return best, bt
}
