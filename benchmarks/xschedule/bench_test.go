package xschedule

import (
	"context"
	"encoding/json"
	"runtime"
	"testing"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/xschedule/assign"
	"github.com/xflex/xflex/solver/xschedule/simulate"
)

// Issue scale: 2,500 nodes of 4 containers, 1,000 requests, 20 apps.
var params = map[string]string{"nodes": "2500", "per_node": "4", "apps": "20", "garbo": "2", "requests": "1000", "max_count": "3"}

func request(b *testing.B, busy string) *assign.Request {
	p := map[string]string{"busy": busy}
	for k, v := range params {
		p[k] = v
	}
	v, err := assign.Generate(1, p)
	if err != nil {
		b.Fatal(err)
	}
	req := v.(*assign.Request)
	if n := len(req.Containers); n < 9000 {
		b.Fatalf("only %d containers", n)
	}
	return req
}

// benchRound times Decide alone on a fresh model each iteration.
func benchRound(b *testing.B, busy string) {
	req := request(b, busy)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		m, err := assign.Build(req)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		b.StartTimer()
		m.Decide(context.Background())
	}
}

// BenchmarkRound10kIdle: 10,000 containers, 40% in use, 1,000 requests.
func BenchmarkRound10kIdle(b *testing.B) { benchRound(b, "0.4") }

// BenchmarkRound10kBusy: the same with 95% in use (most requests wait,
// each scanning for preemption candidates).
func BenchmarkRound10kBusy(b *testing.B) { benchRound(b, "0.95") }

// BenchmarkSolve10kBusy: end to end through Solve (decode, Build, round,
// result) at 95% use.
func BenchmarkSolve10kBusy(b *testing.B) {
	raw, err := json.Marshal(request(b, "0.95"))
	if err != nil {
		b.Fatal(err)
	}
	p := assign.Problem()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := p.Solve(context.Background(), raw, solver.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSimulate1k: the simulator end to end through Solve on 1,000
// containers and a trace of 1,000 requests over 1,000 s, X-Schedule and
// the DRF baseline.
func BenchmarkSimulate1k(b *testing.B) {
	v, err := simulate.Generate(1, map[string]string{"nodes": "250", "apps": "10", "requests": "1000", "span": "1000"})
	if err != nil {
		b.Fatal(err)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	p := simulate.Problem()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, meta, err := p.Solve(context.Background(), raw, solver.Options{})
		if err != nil || meta.Status != solver.StatusFeasible {
			b.Fatal(meta.Status, err)
		}
	}
}
