//go:build !unix

package flex

import "time"

// processCPU is unavailable off unix; the speed table then shows 0 CPU.
func processCPU() time.Duration { return 0 }
