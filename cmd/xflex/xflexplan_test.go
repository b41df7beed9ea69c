package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestXFlexPlanScenario submits examples/scenarios/xflex-plan.json (the
// X-Flex plan with K = 4, 6, 8 and two sharing bounds) as a scenario job
// and prints its comparison table, the numbers docs/xflex-plan.md
// quotes.
func TestXFlexPlanScenario(t *testing.T) {
	runner, err := newRunner(0)
	if err != nil {
		t.Fatal(err)
	}
	srv := problemsJobsServer(t, runner)
	example := filepath.Join("..", "..", "examples", "scenarios", "xflex-plan.json")
	out, errs, code := jobsCLI(t, "", "submit", "--server", srv.URL, "--wait", "--table", "--interval", "50ms", example)
	if code != 0 {
		t.Fatalf("jobs submit --wait --table %s: exit %d: %s %s", example, code, out, errs)
	}
	header := strings.Fields(strings.SplitN(out, "\n", 2)[0])
	want := []string{"base", "k6", "k8", "k4-bound5", "k6-bound5", "k8-bound5"}
	if len(header) < len(want) || !slices.Equal(header[len(header)-len(want):], want) || !strings.Contains(out, "summary.success_ratio") {
		t.Errorf("comparison of the plan scenario:\n%s", out)
	}
	t.Logf("comparison:\n%s", out)
}
