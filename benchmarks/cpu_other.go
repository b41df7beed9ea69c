//go:build !unix

package benchmarks

import "time"

// CPUTime is unavailable here; the reports then show zero CPU time.
func CPUTime() time.Duration { return 0 }
