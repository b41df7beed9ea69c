package xsize

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/xflex/xflex/solver"
	xs "github.com/xflex/xflex/solver/xsize"
)

// BenchmarkTarget2D is the target: 2D, 10,000 requests, K = 8,
// ε = 0.05 (budget 10 s so the time to reach it is what is measured),
// through the Runner as the service runs it; ns/op is the time per solve
// including request decoding and validation.
func BenchmarkTarget2D(b *testing.B) {
	r, err := solver.NewRunner([]solver.Problem{xs.Problem()}, 0)
	if err != nil {
		b.Fatal(err)
	}
	var raws [][]byte
	for s := int64(1); s <= 5; s++ {
		raw, err := Request(10000, 2, 8, 10*time.Second, 0.05, s)
		if err != nil {
			b.Fatal(err)
		}
		raws = append(raws, raw)
	}
	b.ResetTimer()
	worst := 0.0
	for i := 0; i < b.N; i++ {
		resp, err := r.Run(context.Background(), "xsize", raws[i%len(raws)])
		if err != nil {
			b.Fatal(err)
		}
		res := resp.Result.(*xs.Result)
		if !res.Reached {
			b.Fatalf("ε %v not reached", res.Epsilon)
		}
		worst = max(worst, res.Epsilon)
	}
	b.ReportMetric(worst, "worst-ε")
}

// BenchmarkAnytime1s reports the ε reached in a 1 s budget per dimension
// and size.
func BenchmarkAnytime1s(b *testing.B) {
	for _, c := range []struct {
		name       string
		n, dims, k int
	}{
		{"2D/10k/K8", 10000, 2, 8}, {"3D/10k/K8", 10000, 3, 8}, {"4D/10k/K8", 10000, 4, 8}, {"2D/100k/K16", 100000, 2, 16},
	} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				row, err := RunCase(context.Background(), c.n, c.dims, c.k, time.Second, 0, 1)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(row.Epsilon, "ε")
				b.ReportMetric(row.KMeans, "kmeans/ours")
				b.ReportMetric(row.Quantile, "quantile/ours")
			}
		})
	}
}

// TestRunCase checks a small case end to end: a consistent bound, and in 2D
// (where every request fits the standard node, so the baselines' shapes are
// valid too) no baseline below OPT ≥ cost/(1+ε).
func TestRunCase(t *testing.T) {
	row, err := RunCase(context.Background(), 1000, 2, 4, 5*time.Second, 0.1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if row.Epsilon > 0.1 || row.Bound > row.Cost || row.Bound <= 0 {
		t.Fatalf("row %+v", row)
	}
	if row.KMeans*(1+row.Epsilon) < 1 || row.Quantile*(1+row.Epsilon) < 1 {
		t.Errorf("a baseline beat the proven lower bound: %+v", row)
	}
}

func TestReportSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a dozen 1 s solves")
	}
	var buf bytes.Buffer
	if err := Report(context.Background(), &buf, "small"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "Target") || strings.Count(buf.String(), "\n") < 10 {
		t.Fatalf("report:\n%s", buf.String())
	}
}
