package lp

import (
	"context"
	"testing"
)

// TestStatsCount: a solve counts as a call of the backend that ran it,
// and a MIP too widely spread for CBC counts once as moved by the guard
// (and as a native call).
func TestStatsCount(t *testing.T) {
	small := NewModel()
	x := small.AddVar("x", 0, 10, -1, false)
	small.AddRow("r", []int{x}, []float64{1}, 0, 4)
	wide := NewModel()
	y := wide.AddVar("y", 0, 10, -1, true)
	z := wide.AddVar("z", 0, 10, -1, true)
	wide.AddRow("r", []int{y, z}, []float64{1, 2 * MaxCoinMIPSpread}, 0, 3*MaxCoinMIPSpread)

	before := ReadStats()
	if _, err := Solve(context.Background(), small, Options{Backend: BackendNative}); err != nil {
		t.Fatal(err)
	}
	after := ReadStats()
	if d := after.Calls[BackendNative] - before.Calls[BackendNative]; d != 1 {
		t.Errorf("native calls +%d, want +1", d)
	}
	if !coinAvailable() {
		return
	}
	before = after
	if _, err := Solve(context.Background(), wide, Options{Backend: BackendCoin}); err != nil {
		t.Fatal(err)
	}
	after = ReadStats()
	if after.SpreadGuard-before.SpreadGuard != 1 || after.Calls[BackendNative]-before.Calls[BackendNative] != 1 ||
		after.Calls[BackendCoin] != before.Calls[BackendCoin] {
		t.Errorf("wide MIP on coin: before %+v, after %+v; want one guard move to native", before, after)
	}
}
