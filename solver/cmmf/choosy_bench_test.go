package cmmf

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// BenchmarkChoosy times Choosy, and the reference it replaced
// (choosy_ref_test.go, which Choosy called for its totals), on the instances of benchmarks/cmmf/RESULTS.md
// generated in process exactly as `xflex gen cmmf --seed 1 --divisible
// false` writes them: 1x (5,000 users, 100 types, 100,000 machines) and
// 10x (50,000 users, 1,000 types, 1,000,000 machines; issue 21, target 4),
// with Choosy's seed 0, a request's default.
// Besides wall time it reports cpu-ns/op, the process's user+system time,
// which is what to compare on a machine shared with other work.
func BenchmarkChoosy(b *testing.B) {
	for _, size := range []struct {
		name string
		p    GenParams
	}{
		{"1x", GenParams{Users: 5_000, Types: 100, Machines: 100_000}},
		{"10x", GenParams{Users: 50_000, Types: 1_000, Machines: 1_000_000}},
	} {
		var in *Instance
		for _, impl := range []struct {
			name string
			run  func(context.Context, *Instance, int64) error
		}{{"current", func(ctx context.Context, in *Instance, seed int64) error {
			_, err := Choosy(ctx, in, seed)
			return err
		}}, {"reference", func(ctx context.Context, in *Instance, seed int64) error {
			_, err := refChoosyAlloc(ctx, in, seed)
			return err
		}}} {
			b.Run(size.name+"/"+impl.name, func(b *testing.B) {
				if in == nil {
					var err error
					if in, err = Build(GenerateRequest(1, size.p)); err != nil {
						b.Fatal(err)
					}
				}
				b.ResetTimer()
				cpu := cpuTime()
				for n := 0; n < b.N; n++ {
					if err := impl.run(context.Background(), in, 0); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// cpuTime is the process's user+system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkIndependent times the independent baseline, and the
// reference it replaced (baselines_test.go), at 10x scale.
func BenchmarkIndependent(b *testing.B) {
	in, err := Build(GenerateRequest(1, GenParams{Users: 50_000, Types: 1_000, Machines: 1_000_000}))
	if err != nil {
		b.Fatal(err)
	}
	for _, impl := range []struct {
		name string
		run  func(*Instance) []float64
	}{{"current", Independent}, {"reference", refIndependent}} {
		b.Run(impl.name, func(b *testing.B) {
			cpu := cpuTime()
			for n := 0; n < b.N; n++ {
				impl.run(in)
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
