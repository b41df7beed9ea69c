package cmmf

import (
	"context"
	"fmt"
	"testing"

	"github.com/xflex/xflex/solver/cmmf"
)

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

func BenchmarkChoosy(b *testing.B) {
	in := Instance(1, Size{5000, 100, 100000}, true)
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		cmmf.Choosy(in, 1)
	}
}
