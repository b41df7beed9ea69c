package fairshare

import (
	"math"
	"math/rand/v2"
	"testing"
)

// purifyTol: purify moves tasks by exact null vectors, so V and resource
// use change only by the round-off of a few hundred multiply-adds per
// entry (≈1e-13 relative).
const purifyTol = 1e-10

// TestPurifyKeepsVAndUse: on random instances with a dense feasible
// allocation (every column positive), purify keeps every framework's
// criterion value and every group's resource use, keeps x ≥ 0, never
// creates an entry, and leaves at most R frameworks on any two groups
// where their criterion coefficients agree.
func TestPurifyKeepsVAndUse(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 17))
	for trial := 0; trial < 300; trial++ {
		req := randomInstance(rng, trial%3 == 0, trial%4 == 0)
		// More frameworks and server types than the default draw, so
		// that pairs of groups are shared by more than R frameworks.
		for n := len(req.Frameworks); n < 12; n++ {
			f := req.Frameworks[n%len(req.Frameworks)]
			f.Name = f.Name + "x" + string(rune('a'+n))
			d := append([]float64(nil), f.Demand...)
			for r := range d {
				d[r] = float64(1+rng.IntN(10)) / 2
			}
			f.Demand = d
			req.Frameworks = append(req.Frameworks, f)
		}
		in, crit := buildRotating(t, req, trial)
		m := newModel(in, crit)
		x := make([]float64, len(m.cols))
		for k := range x {
			x[k] = 0.1 + rng.Float64()
		}
		m.repair(x)
		R := len(in.resources)
		use := func(x []float64) []float64 {
			u := make([]float64, len(in.groups)*R)
			for k, c := range m.cols {
				for r, d := range in.fws[c.n].d {
					u[c.g*R+r] += d * x[k]
				}
			}
			return u
		}
		u0, v0 := use(x), m.shares(x)
		before := append([]float64(nil), x...)
		m.purify(x)
		u1, v1 := use(x), m.shares(x)
		for i := range u0 {
			if math.Abs(u1[i]-u0[i]) > purifyTol*math.Max(1, u0[i]) {
				t.Fatalf("trial %d: use of row %d changed %g -> %g", trial, i, u0[i], u1[i])
			}
		}
		for n := range v0 {
			if math.Abs(v1[n]-v0[n]) > purifyTol*math.Max(1, v0[n]) {
				t.Fatalf("trial %d: V of framework %d changed %g -> %g", trial, n, v0[n], v1[n])
			}
		}
		nz0, nz1 := 0, 0
		for k := range x {
			if x[k] < 0 || (before[k] == 0 && x[k] != 0) {
				t.Fatalf("trial %d: column %d went %g -> %g", trial, k, before[k], x[k])
			}
			if before[k] > 0 {
				nz0++
			}
			if x[k] > 0 {
				nz1++
			}
		}
		G := len(in.groups)
		on := make([][]int, len(in.fws)*G)
		for k, c := range m.cols {
			on[c.n*G+c.g] = []int{k}
		}
		for g1 := 0; g1 < G; g1++ {
			for g2 := g1 + 1; g2 < G; g2++ {
				shared := 0
				for n := range in.fws {
					a, b := on[n*G+g1], on[n*G+g2]
					if a != nil && b != nil && x[a[0]] > 0 && x[b[0]] > 0 && m.coef[a[0]] == m.coef[b[0]] {
						shared++
					}
				}
				if shared > R {
					t.Fatalf("trial %d: groups %d and %d still share %d > R=%d frameworks", trial, g1, g2, shared, R)
				}
			}
		}
		if testing.Verbose() && trial < 5 {
			t.Logf("trial %d: %d -> %d nonzero columns", trial, nz0, nz1)
		}
	}
}
