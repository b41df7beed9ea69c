package schemas_test

import (
	"encoding/json"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/xflex/xflex/schemas"
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/tetris/assign"
)

// Measured 2026-11-22 on the shared 2-core box, medians of alternated runs:
//
//	BenchmarkValidateAssign10k         16.0 ms wall, 11.1 ms CPU per op (5 runs)
//	BenchmarkValidateAssign10kLibrary   271 ms wall,  248 ms CPU per op (5 runs)
//	benchmarks/tetris BenchmarkAssign10kRunner, binaries before and after the
//	fast path, 7 alternated runs of -benchtime 10x: 400 ms -> 126.5 ms per op
//	(wall); process CPU of a whole run (setup plus 11 requests) 4.26 s -> 1.58 s.

// assign10k is the tetris-assign request of BenchmarkAssign10kRunner
// (benchmarks/tetris): 250 machines, 10,000 tasks, 100 jobs, 90% busy,
// about 1.6 MB of JSON, decoded as the Runner decodes it.
func assign10k(tb testing.TB) (*schemas.Set, any) {
	tb.Helper()
	req := assign.GenerateRequest(rand.New(rand.NewPCG(1, 2)), 250, 10000, 100, 0.9, 1)
	raw, err := json.Marshal(req)
	if err != nil {
		tb.Fatal(err)
	}
	doc, err := solver.DecodeAny(raw)
	if err != nil {
		tb.Fatal(err)
	}
	set, err := schemas.Load()
	if err != nil {
		tb.Fatal(err)
	}
	return set, doc
}

const assignSchema = "tetris-assign.request.json"

// BenchmarkValidateAssign10k: Set.Validate (fast path first) on the 10k
// request; the fast path must answer valid, so the library is not called.
func BenchmarkValidateAssign10k(b *testing.B) {
	set, doc := assign10k(b)
	if v := set.FastVerdict(assignSchema, doc); v != "valid" {
		b.Fatalf("fast verdict %s, want valid", v)
	}
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		if vs := set.Validate(assignSchema, doc); len(vs) > 0 {
			b.Fatal(vs)
		}
	}
	reportCPU(b, cpu)
}

// BenchmarkValidateAssign10kLibrary: the library alone on the same
// document, the baseline of BenchmarkValidateAssign10k.
func BenchmarkValidateAssign10kLibrary(b *testing.B) {
	set, doc := assign10k(b)
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		if vs := set.ValidateLibrary(assignSchema, doc); len(vs) > 0 {
			b.Fatal(vs)
		}
	}
	reportCPU(b, cpu)
}

// cpuTime is the process's user+system CPU time so far. The box is shared,
// so the benchmarks report CPU time per op (cpu-ns/op, which includes the
// garbage collector's work on the other core) next to wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}
