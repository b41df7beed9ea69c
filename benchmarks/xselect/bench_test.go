package xselect

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	xs "github.com/xflex/xflex/solver/xselect"
	"github.com/xflex/xflex/vecpack"
)

// benchSolve solves a case under the service budget per iteration and
// reports λ's gap to the bound.
func benchSolve(b *testing.B, c Case, v xs.Variant) {
	req := c.Instance()
	var gap, lam float64
	for b.Loop() {
		run, err := Solve(context.Background(), req, ServiceBudget, v)
		if err != nil {
			b.Fatal(err)
		}
		gap, lam = run.Result.Gap, run.Result.Lambda
	}
	b.ReportMetric(100*gap, "gap%")
	b.ReportMetric(lam, "λ")
}

func BenchmarkSolve(b *testing.B) {
	for _, c := range []Case{{100, 2, 10}, {1000, 3, 30}, {10000, 4, 50}} {
		b.Run(fmt.Sprintf("nodes=%d/R=%d/apps=%d", c.Nodes, c.Resources, c.Apps), func(b *testing.B) { benchSolve(b, c, xs.Variant{}) })
	}
}

func BenchmarkGreedyOnly(b *testing.B) {
	for _, c := range []Case{{1000, 3, 30}, {10000, 4, 50}} {
		b.Run(fmt.Sprintf("nodes=%d", c.Nodes), func(b *testing.B) { benchSolve(b, c, xs.Variant{NoLocalSearch: true}) })
	}
}

func BenchmarkRule(b *testing.B) {
	for _, r := range vecpack.Rules() {
		b.Run(r.Name, func(b *testing.B) {
			c := Case{1000, 3, 30}
			req := c.Instance()
			req.Score = r.Name
			var lam float64
			for b.Loop() {
				run, err := Solve(context.Background(), req, ServiceBudget, xs.Variant{NoGuide: true, NoLocalSearch: true})
				if err != nil {
					b.Fatal(err)
				}
				lam = run.Result.Lambda
			}
			b.ReportMetric(lam, "λ")
		})
	}
}

func BenchmarkStream(b *testing.B) {
	for b.Loop() {
		if _, err := RunStream(context.Background(), StreamConfig{Nodes: 100, Apps: 10, Shapes: 6, Resources: 2, Load: 1, Requests: 20000, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// paperStreamGain is the paper's reported advantage of X-Flex over DRF in
// successful container requests (§3: "32% more").
const paperStreamGain = 1.32

// TestPaperStreamClaimOnInstance keeps the instance on which the paper's
// 32% claim does not hold in our model: with requests that follow the
// forecast exactly and a scheduler that places each request's exact shape
// by best fit, online placement serves at least as many requests as the
// fixed partition into pre-packed containers. See RESULTS.md.
func TestPaperStreamClaimOnInstance(t *testing.T) {
	r, err := RunStream(context.Background(), StreamConfig{Nodes: 20, Apps: 10, Shapes: 6, Resources: 2, Load: 1.2, Requests: 4000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.XFlex > r.Requests || r.DRF > r.Requests || r.XFlexOwn > r.XFlex {
		t.Fatalf("inconsistent counts %+v", r)
	}
	if r.Ratio() >= paperStreamGain {
		t.Fatalf("ratio %.3f: the paper's claim now holds on this instance; update RESULTS.md", r.Ratio())
	}
	t.Logf("X-Flex %d, best fit %d of %d requests (ratio %.3f)", r.XFlex, r.DRF, r.Requests, r.Ratio())
}

func TestStreamUnderloadServesAll(t *testing.T) {
	r, err := RunStream(context.Background(), StreamConfig{Nodes: 20, Apps: 5, Shapes: 4, Resources: 2, Load: 0.2, Requests: 2000, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	// At 20% load almost every request finds room in either system.
	const minServed = 0.95
	if float64(r.XFlex) < minServed*float64(r.Requests) || float64(r.DRF) < minServed*float64(r.Requests) {
		t.Fatalf("underloaded stream served only X-Flex %d / best fit %d of %d", r.XFlex, r.DRF, r.Requests)
	}
}

func TestSolveCaseWithinBound(t *testing.T) {
	run, err := Solve(context.Background(), Case{100, 2, 10}.Instance(), 20*time.Second, xs.Variant{})
	if err != nil {
		t.Fatal(err)
	}
	if run.Result.Lambda <= 0 || run.Result.Lambda > run.Result.UpperBound {
		t.Fatalf("λ %g, bound %g", run.Result.Lambda, run.Result.UpperBound)
	}
}

func TestReportRejectsUnknownScale(t *testing.T) {
	var buf bytes.Buffer
	if err := Report(context.Background(), &buf, "huge"); err == nil {
		t.Fatal("unknown scale accepted")
	}
}
