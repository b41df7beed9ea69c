//go:build unix

package flex

import (
	"syscall"
	"time"
)

// processCPU is the user+system CPU time of this process so far: on a
// shared machine it measures the work done, which wall time does not.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
