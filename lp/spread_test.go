package lp

import (
	"context"
	"strings"
	"testing"
)

func TestCoefRange(t *testing.T) {
	if lo, hi := CoefRange(nil); lo != 1 || hi != 1 {
		t.Fatalf("nil model: %g, %g", lo, hi)
	}
	m := NewModel()
	x := m.AddVar("x", 0, 1, 0, false)
	y := m.AddVar("y", 0, 1, 0, false)
	if lo, hi := CoefRange(m); lo != 1 || hi != 1 {
		t.Fatalf("empty model: %g, %g", lo, hi)
	}
	m.AddRow("a", []int{x, y}, []float64{-4e15, 0}, 0, 1)
	m.AddRow("b", []int{x, y}, []float64{0.5, 2}, 0, 1)
	if lo, hi := CoefRange(m); lo != 0.5 || hi != 4e15 {
		t.Fatalf("got %g, %g; want 0.5, 4e15", lo, hi)
	}
}

// A MIP wider than MaxCoinMIPSpread never reaches CBC (which aborts the
// process on such models); the native branch and bound solves it, also
// when coin is asked for by name. Narrower MIPs and LPs stay on coin.
func TestWideMIPAvoidsCBC(t *testing.T) {
	if !coinAvailable() {
		t.Skip("built without cgo")
	}
	build := func(bigM float64, integer bool) *Model {
		m := NewModel()
		x := m.AddVar("x", 0, 10, -1, false)
		u := m.AddVar("u", 0, 1, 1, integer)
		// x ≤ 3 + bigM·u, so x beyond 3 costs u.
		m.AddRow("bigM", []int{x, u}, []float64{1, -bigM}, -Inf, 3)
		return m
	}
	for _, c := range []struct {
		bigM    float64
		integer bool
		backend string
		want    string
	}{
		{1e3, true, "", BackendCoin},
		{1e3, true, BackendCoin, BackendCoin},
		{1e11, true, "", BackendNative},
		{1e11, true, BackendCoin, BackendNative},
		{1e11, false, "", BackendCoin}, // an LP: CLP alone, not affected
	} {
		sol, err := Solve(context.Background(), build(c.bigM, c.integer), Options{Backend: c.backend})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(sol.Backend, c.want) {
			t.Errorf("bigM %g integer %v backend %q: solved by %s, want %s", c.bigM, c.integer, c.backend, sol.Backend, c.want)
		}
		if sol.Status != Optimal {
			t.Errorf("bigM %g integer %v: status %v", c.bigM, c.integer, sol.Status)
		}
	}
}
