package lp

import "sync/atomic"

// Stats counts the LP/MIP solves of this process since it started, for the
// server's /metrics (package httpapi reads them with ReadStats; lp does not
// know about metrics). They are process-wide atomic counters, like
// expvar's: a solve anywhere in the process counts, whichever request or
// job made it.
type Stats struct {
	// Calls counts solves by the backend that ran them ("coin", "native"):
	// Solve's and Incremental.Solve's, a warm re-solve included.
	Calls map[string]uint64
	// SpreadGuard counts MIPs Solve moved from CBC to the native backend
	// because their coefficient spread exceeds MaxCoinMIPSpread (CBC would
	// abort the process on them).
	SpreadGuard uint64
	// NativeRetries counts solves a caller repeated on the native backend
	// after another returned a solution without values (CountNativeRetry).
	NativeRetries uint64
}

var (
	callsCoin, callsNative     atomic.Uint64
	spreadGuard, nativeRetries atomic.Uint64
)

// ReadStats returns the counters now.
func ReadStats() Stats {
	return Stats{
		Calls:         map[string]uint64{BackendCoin: callsCoin.Load(), BackendNative: callsNative.Load()},
		SpreadGuard:   spreadGuard.Load(),
		NativeRetries: nativeRetries.Load(),
	}
}

// CountNativeRetry records that a caller solved a model again on the
// native backend because the backend it asked for failed it (Stats.NativeRetries).
func CountNativeRetry() { nativeRetries.Add(1) }

// countCall records a solve by the named backend.
func countCall(backend string) {
	if backend == BackendCoin {
		callsCoin.Add(1)
		return
	}
	callsNative.Add(1)
}
