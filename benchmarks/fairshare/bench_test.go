package fairshare

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
)

// BenchmarkPolicies times every policy at every full-scale size (go test
// -bench . -benchtime 1x ./benchmarks/fairshare; the largest size takes
// minutes for the slow policies).
func BenchmarkPolicies(b *testing.B) {
	for _, sz := range Sizes("full") {
		for _, p := range Policies() {
			name := fmt.Sprintf("%dx%dx%d/%s", sz.Frameworks, sz.Servers, sz.Types, strings.Trim(p.Name+"-"+p.Selection, "-"))
			b.Run(name, func(b *testing.B) {
				raw := Request(1, sz, p)
				b.ResetTimer()
				for k := 0; k < b.N; k++ {
					if _, err := Run(context.Background(), raw, p, Budget); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestReportSmall runs the quick report end to end on the smallest size.
func TestReportSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("report runs every policy")
	}
	var sb strings.Builder
	sz := Sizes("small")[0]
	for _, p := range Policies() {
		row, err := Run(context.Background(), Request(1, sz, p), p, Budget)
		if err != nil {
			t.Fatal(err)
		}
		if row.Tasks <= 0 {
			t.Fatalf("%v: no tasks placed", p)
		}
		fmt.Fprintf(&sb, "%v %s %.0f\n", p, row.Status, row.Tasks)
	}
	t.Log(sb.String())
}

// TestReport prints the report when FAIRSHARE_REPORT names a scale
// ("small" or "full"): the numbers in RESULTS.md come from
// FAIRSHARE_REPORT=full go test -run TestReport -v -timeout 2h.
func TestReport(t *testing.T) {
	scale := os.Getenv("FAIRSHARE_REPORT")
	if scale == "" {
		t.Skip("set FAIRSHARE_REPORT=small|full")
	}
	var sb strings.Builder
	if err := Report(context.Background(), &sb, scale); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + sb.String())
}
