//go:build !unix

package fairshare

import "time"

// cpuTime is unavailable here; the report then shows zero CPU time.
func cpuTime() time.Duration { return 0 }
