package flex

import (
	"strconv"
	"testing"
)

// phaseInstance is the speed-table instance (n jobs on 10·n slots, average
// response time) built for the phase benchmarks below.
func phaseInstance(b *testing.B, n int) *Instance {
	req, err := Generate(1, map[string]string{"jobs": strconv.Itoa(n), "slots": strconv.Itoa(10 * n)})
	if err != nil {
		b.Fatal(err)
	}
	in, err := Build(req.(*Request))
	if err != nil {
		b.Fatal(err)
	}
	return in
}

// BenchmarkPhases10000 times the parts of a paper-Flex solve separately,
// to see where a 10,000-job solve spends its time.
func BenchmarkPhases10000(b *testing.B) {
	const n = 10000
	in := phaseInstance(b, n)
	req, _ := Generate(1, map[string]string{"jobs": strconv.Itoa(n), "slots": strconv.Itoa(10 * n)})
	b.Run("build", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := Build(req.(*Request)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("rap", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			a, _ := in.rapSolve()
			in.rapOrdering(a)
		}
	})
	b.Run("orderings", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			in.specificOrderings()
		}
	})
	b.Run("mps", func(b *testing.B) {
		w := newMPSWork(n)
		comp := make([]float64, n)
		prio := in.specificOrderings()[0].prio
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			in.mps(prio, false, w, comp, nil)
		}
	})
	b.Run("fifo", func(b *testing.B) {
		w := newMPSWork(n)
		comp := make([]float64, n)
		prio := in.arrivalOrder()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			in.mps(prio, true, w, comp, nil)
		}
	})
	b.Run("fair", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			in.fair(0)
		}
	})
	b.Run("rootBound", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			in.rootBound()
		}
	})
}
