//go:build !unix

package cmmf

import "time"

// cpuTime is unavailable here; the report then shows zero CPU time.
func cpuTime() time.Duration { return 0 }
