package jobs

import (
	"testing"

	"github.com/xflex/xflex/jobs/jobtest"
)

// BenchmarkJobRoundTrip measures one job's overhead end to end: submit an
// instant solve over HTTP, let a worker pick it up, store the result and
// read it back, per store.
func BenchmarkJobRoundTrip(b *testing.B) {
	for _, kind := range jobtest.StoreKinds() {
		b.Run(kind, func(b *testing.B) {
			h := newHarness(b, jobtest.Store(b, kind), Config{Workers: 4, MaxQueuedPerClient: 1 << 20})
			in := job(sleepInput(0, 1))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				id := h.submit(in)
				h.waitTerminal(id)
				if r := h.do("GET", "/v1/jobs/"+id+"/result", nil); r.status != 200 {
					b.Fatalf("result %d", r.status)
				}
			}
		})
	}
}
