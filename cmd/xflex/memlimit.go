package main

import (
	"fmt"
	"math"
	"runtime/debug"
	"strconv"
)

// idleBytes is what an idle server holds besides its budgets: the binary,
// its compiled schemas and the runtime (docs/MEMORY.md: 54–57 MB RSS),
// rounded up.
const idleBytes = 64 << 20

// memoryLimit resolves --memory-limit into the soft memory limit serve
// gives the Go runtime (debug.SetMemoryLimit; GOMEMLIMIT semantics: the
// garbage collector works harder as the heap nears it, it is never an
// allocation failure) and says where it came from, for the start-up log.
//
//   - "auto" (the default): the sum of the server's memory budgets,
//     --max-inflight-bytes + --job-memory-bytes, plus idleBytes. The
//     budgets bound what requests and jobs hold live; without a limit
//     the collector (GOGC=100) lets the heap grow to twice that before it
//     collects, so garbage not yet collected went uncounted (issue 28: 8
//     clients on a 512 MiB budget peaked at 832 MB RSS). A GOMEMLIMIT in
//     the environment wins over auto: the runtime has already applied it.
//   - "off": no limit (the runtime's default, or GOMEMLIMIT's).
//   - a number of bytes: that limit, GOMEMLIMIT or not.
func memoryLimit(flag string, inflight, jobs int64, getenv func(string) string) (limit int64, source string, err error) {
	switch flag {
	case "off":
		return 0, "off", nil
	case "auto", "":
		if env := getenv("GOMEMLIMIT"); env != "" {
			return 0, "GOMEMLIMIT=" + env, nil
		}
		return satAdd(satAdd(inflight, jobs), idleBytes), "auto: --max-inflight-bytes + --job-memory-bytes + 64 MiB", nil
	}
	n, err := strconv.ParseInt(flag, 10, 64)
	if err != nil || n <= 0 {
		return 0, "", fmt.Errorf("--memory-limit %q: want auto, off or a positive number of bytes", flag)
	}
	return n, "--memory-limit", nil
}

// setMemoryLimit applies a limit memoryLimit resolved (0: leave the
// runtime's as it is) and returns the limit in force.
func setMemoryLimit(limit int64) int64 {
	if limit > 0 {
		debug.SetMemoryLimit(limit)
	}
	return debug.SetMemoryLimit(-1) // a negative input reads it
}

// satAdd is a+b for non-negative a and b, saturating at MaxInt64.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
