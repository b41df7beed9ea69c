package xflexplan

import (
	"context"
	"io"
	"testing"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/problems"
)

// BenchmarkPlanSmall times a small plan (100 nodes, 5 applications, a
// 2,000-request trace) end to end through the Runner, with a budget
// large enough that no stage is cut.
func BenchmarkPlanSmall(b *testing.B) {
	r, err := solver.NewRunner(problems.All(), 0)
	if err != nil {
		b.Fatal(err)
	}
	raw, err := Instance("small", 1, 60000)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := r.Run(context.Background(), "xflex/plan", raw); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReportSmall: the small report runs and prints a row per seed.
func TestReportSmall(t *testing.T) {
	if err := Report(context.Background(), io.Discard, "small"); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkPlanFull times the full plan (1,000 nodes, 20 applications,
// K = 8 in 3-D, a 20,000-request trace) end to end with a budget no
// stage reaches: the run to profile for issue 27's speed item.
func BenchmarkPlanFull(b *testing.B) {
	r, err := solver.NewRunner(problems.All(), 0)
	if err != nil {
		b.Fatal(err)
	}
	raw, err := Instance("full", 1, uncutMS)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := r.Run(context.Background(), "xflex/plan", raw); err != nil {
			b.Fatal(err)
		}
	}
}
