package cmmf

import (
	"context"
	"fmt"
	"testing"

	"github.com/xflex/xflex/solver/cmmf"
)

// BenchmarkFlow times the complete answer (exact allocation and
// baselines) at the sizes, divisible and whole machines.
func BenchmarkFlow(b *testing.B) {
	for _, sz := range Sizes("full") {
		for _, div := range []bool{true, false} {
			b.Run(fmt.Sprintf("%dx%dx%d/divisible=%v", sz.Users, sz.Types, sz.Machines, div), func(b *testing.B) {
				in := Instance(1, sz, div)
				b.ResetTimer()
				for k := 0; k < b.N; k++ {
					if _, _, err := cmmf.SolveInstance(context.Background(), in, cmmf.MethodFlow, 1); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkChoosy times the Choosy baseline alone at the largest size.
func BenchmarkChoosy(b *testing.B) {
	in := Instance(1, Size{5000, 100, 100000}, true)
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		if _, err := cmmf.Choosy(context.Background(), in, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLP times the LP method (exact allocation only).
func BenchmarkLP(b *testing.B) {
	for _, sz := range Sizes("small") {
		b.Run(fmt.Sprintf("%dx%dx%d", sz.Users, sz.Types, sz.Machines), func(b *testing.B) {
			in := Instance(1, sz, true)
			b.ResetTimer()
			for k := 0; k < b.N; k++ {
				if _, err := cmmf.SolveAllocation(context.Background(), in, cmmf.MethodLP); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkExact10x times the exact flow allocation alone (no certificate,
// no baselines) at issue 21's ten-times scale: 50,000 users, 1,000 types,
// 1,000,000 machines, whole machines and divisible.
func BenchmarkExact10x(b *testing.B) {
	for _, div := range []bool{false, true} {
		b.Run(fmt.Sprintf("divisible=%v", div), func(b *testing.B) {
			in := Instance(1, Size{50000, 1000, 1000000}, div)
			b.ResetTimer()
			for k := 0; k < b.N; k++ {
				if _, err := cmmf.SolveAllocation(context.Background(), in, cmmf.MethodFlow); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
