//go:build unix

package benchmarks

import (
	"syscall"
	"time"
)

// CPUTime is the process's user+system CPU time so far. The reports quote
// it next to wall time because the benchmark machine may be shared: it
// measures the work done, which wall time inflates by waiting for a core.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
