package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
)

// Garbage collection in `xflex solve`. The process lives for one
// request, and most of what it allocates stays live until the answer is
// written (the decoded request twice over, generic for validation and
// typed for the solver, and the instance), so the collector's cycles while
// the heap grows mostly re-mark live data: on a 100,000-machine CMMF
// request (22.5 MB) they cost 0.45 s of 2.1 s CPU, for a peak RSS of
// 680 MB; without them the peak is 800 MB (benchmarks/cmmf/RESULTS.md).
// So `xflex solve` collects nothing until the heap reaches a limit
// proportional to the body, and from the first collection on the runtime's
// defaults apply again (GOGC=100, no memory limit): a solve that goes on
// allocating is collected as usual, its heap never held past the limit
// for more than one cycle. The server keeps the defaults: it runs many
// requests in one heap.
const (
	solveHeapPerBodyByte = 64        // the limit per byte of request body,
	solveHeapFloor       = 256 << 20 // at least this,
	solveHeapCeiling     = 2 << 30   // at most this
)

// deferGCInSolve is set by main: only the xflex process itself changes
// its collector, not tests that run the commands in theirs.
var deferGCInSolve bool

// solveHeapLimit is the heap `xflex solve` reaches before its first
// collection, for a body of n bytes.
func solveHeapLimit(n int) int64 {
	return min(max(int64(n)*solveHeapPerBodyByte, solveHeapFloor), solveHeapCeiling)
}

// deferGC turns the collector off until the heap reaches limit bytes;
// the collection the limit then forces restores GOGC=100 and lifts the
// limit. It leaves the collector alone when GOGC or GOMEMLIMIT is set in
// the environment: the user's choice stands.
func deferGC(limit int64) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(limit)
	debug.SetGCPercent(-1)
	// The sentinel is unreachable at once, so the first collection, the
	// one the limit forces, runs its cleanup. 64 bytes keeps it out of the
	// tiny allocator, whose blocks are freed together.
	sentinel := new([64]byte)
	runtime.AddCleanup(sentinel, func(struct{}) {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	}, struct{}{})
}
