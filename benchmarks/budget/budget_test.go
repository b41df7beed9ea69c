package budget

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/xflex/xflex/solver/problems"
)

// The small report runs end to end through the HTTP server and has a row
// per budget for every problem (a smoke test: it checks the harness, not
// the timings, which belong in RESULTS.md).
func TestReportSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every problem over HTTP")
	}
	var b bytes.Buffer
	if err := Report(context.Background(), &b, "small"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, p := range problems.All() {
		if !strings.Contains(out, "### "+p.Name+"\n") {
			t.Errorf("no table for %s:\n%s", p.Name, out)
		}
	}
	if n, want := strings.Count(out, "\n| "), len(problems.All())+len(Cases("small"))*len(Budgets); n != want {
		t.Errorf("%d table lines, want %d (a header per problem, a row per case and budget):\n%s", n, want, out)
	}
}

func TestWithBudget(t *testing.T) {
	for in, want := range map[string]string{
		`{}`:      `{"budget_ms":50}`,
		`{"a":1}`: `{"budget_ms":50,"a":1}`,
	} {
		if got := string(withBudget([]byte(in), 50)); got != want {
			t.Errorf("withBudget(%s) = %s, want %s", in, got, want)
		}
	}
}
