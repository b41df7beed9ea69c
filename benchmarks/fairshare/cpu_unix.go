//go:build unix

package fairshare

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time so far. The report quotes
// it next to wall time because the benchmark machine may be shared: the
// issue's target is time on one core, which wall time on a busy machine
// overstates.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
