//go:build unix

package benchmarks

import (
	"testing"
	"time"
)

// TestCPUTime: CPU time advances while this process works (a busy loop of
// up to 10 s wall time, which a loaded machine still gives some CPU).
func TestCPUTime(t *testing.T) {
	start, wall := CPUTime(), time.Now()
	for CPUTime() == start {
		if time.Since(wall) > 10*time.Second {
			t.Fatalf("CPU time stuck at %v after %v of busy work", start, time.Since(wall))
		}
	}
}
