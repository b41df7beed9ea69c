package cmmf

import (
	"context"
	"testing"
)

// BenchmarkChoosy times choosyAlloc alone on the instances of
// benchmarks/cmmf/RESULTS.md, generated in process exactly as
// `xflex gen cmmf --seed 1 --divisible false` writes them: 1x (5,000 users,
// 100 types, 100,000 machines) and 10x (50,000 users, 1,000 types,
// 1,000,000 machines; issue 21, target 4).
func BenchmarkChoosy(b *testing.B) {
	for _, bc := range []struct {
		name string
		p    GenParams
	}{
		{"1x", GenParams{Users: 5_000, Types: 100, Machines: 100_000}},
		{"10x", GenParams{Users: 50_000, Types: 1_000, Machines: 1_000_000}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			in, err := Build(GenerateRequest(1, bc.p))
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for n := 0; n < b.N; n++ {
				if _, err := choosyAlloc(context.Background(), in, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
