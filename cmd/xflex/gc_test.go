package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// gcSettings reads GOGC and the memory limit as the runtime applies them.
func gcSettings() (percent, limit int64) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()), int64(s[1].Value.Uint64())
}

// TestDeferGC: deferGC turns the collector off up to the limit, the
// first collection restores the defaults, and GOGC or GOMEMLIMIT in the
// environment leaves the collector alone.
func TestDeferGC(t *testing.T) {
	defer debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetGCPercent(100)
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	deferGC(1 << 40)
	if p, l := gcSettings(); p != -1 || l != 1<<40 {
		t.Fatalf("after deferGC: GOGC %d, limit %d; want off and 1 TiB", p, l)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		if p, l := gcSettings(); p == 100 && l == math.MaxInt64 {
			break
		}
		if time.Now().After(deadline) {
			p, l := gcSettings()
			t.Fatalf("after a collection: GOGC %d, limit %d; want the defaults back", p, l)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Setenv("GOGC", "100")
	deferGC(1 << 40)
	if p, l := gcSettings(); p != 100 || l != math.MaxInt64 {
		t.Errorf("with GOGC set: GOGC %d, limit %d; want them untouched", p, l)
	}
	if got := solveHeapLimit(22_539_370); got != 22_539_370*solveHeapPerBodyByte {
		t.Errorf("limit for 22.5 MB: %d", got)
	}
	if solveHeapLimit(10) != solveHeapFloor || solveHeapLimit(1<<40) != solveHeapCeiling {
		t.Error("the limit is not clamped to its floor and ceiling")
	}
}
