package lp

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// transportLP is a balanced transportation problem with s sources and d
// sinks: s·d columns, s+d rows, integer costs in [1, 100].
func transportLP(s, d int, seed uint64) *Model {
	rng := rand.New(rand.NewPCG(seed, 17))
	m := NewModel()
	x := make([][]int, s)
	for i := range x {
		x[i] = make([]int, d)
		for j := range x[i] {
			x[i][j] = m.AddVar(fmt.Sprintf("x%d_%d", i, j), 0, Inf, float64(1+rng.IntN(100)), false)
		}
	}
	supply := make([]float64, s)
	total := 0.0
	for i := range supply {
		supply[i] = float64(10 + rng.IntN(90))
		total += supply[i]
	}
	demand := make([]float64, d)
	left := total
	for j := range demand {
		if j == d-1 {
			demand[j] = left
			break
		}
		demand[j] = float64(int(total / float64(d)))
		left -= demand[j]
	}
	for i := 0; i < s; i++ {
		coef := make([]float64, d)
		for j := range coef {
			coef[j] = 1
		}
		m.AddRow(fmt.Sprint("supply", i), x[i], coef, -Inf, supply[i])
	}
	for j := 0; j < d; j++ {
		idx := make([]int, s)
		coef := make([]float64, s)
		for i := range idx {
			idx[i], coef[i] = x[i][j], 1
		}
		m.AddRow(fmt.Sprint("demand", j), idx, coef, demand[j], Inf)
	}
	return m
}

// setCoverMIP is a weighted set cover: n binary sets, each covering about
// density·elements random elements, every element covered at least once.
func setCoverMIP(elements, sets int, density float64, seed uint64) *Model {
	rng := rand.New(rand.NewPCG(seed, 19))
	m := NewModel()
	cover := make([][]int, elements)
	for k := 0; k < sets; k++ {
		j := m.AddVar(fmt.Sprint("set", k), 0, 1, float64(1+rng.IntN(20)), true)
		for e := 0; e < elements; e++ {
			if rng.Float64() < density {
				cover[e] = append(cover[e], j)
			}
		}
	}
	for e, idx := range cover {
		if len(idx) == 0 {
			idx = []int{rng.IntN(sets)}
		}
		coef := make([]float64, len(idx))
		for k := range coef {
			coef[k] = 1
		}
		m.AddRow(fmt.Sprint("elem", e), idx, coef, 1, Inf)
	}
	return m
}

func benchSolve(b *testing.B, m *Model, backend string) {
	b.Helper()
	var obj float64
	for b.Loop() {
		s, err := Solve(context.Background(), m, Options{Backend: backend})
		if err != nil {
			b.Fatal(err)
		}
		if s.Status != Optimal {
			b.Fatalf("status %v", s.Status)
		}
		obj = s.Objective
	}
	b.ReportMetric(obj, "objective")
}

// BenchmarkTransportLP: transportation LPs (s×d columns, s+d rows).
func BenchmarkTransportLP(b *testing.B) {
	for _, size := range []int{50, 200} {
		m := transportLP(size, size, 1)
		for _, name := range Backends() {
			b.Run(fmt.Sprintf("%dx%d/%s", size, size, name), func(b *testing.B) { benchSolve(b, m, name) })
		}
	}
}

// BenchmarkSetCoverMIP: weighted set cover with binary columns.
func BenchmarkSetCoverMIP(b *testing.B) {
	for _, size := range [][2]int{{60, 120}, {90, 200}} {
		m := setCoverMIP(size[0], size[1], 0.08, 2)
		for _, name := range Backends() {
			b.Run(fmt.Sprintf("%delems_%dsets/%s", size[0], size[1], name), func(b *testing.B) { benchSolve(b, m, name) })
		}
	}
}
