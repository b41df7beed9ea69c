package budget

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/xflex/xflex/solver"
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

// The large scale is issue 28's instances, each at its sizes, and the
// fairshare ones at the default budget too.
func TestLargeCases(t *testing.T) {
	got := map[string]Case{}
	for _, c := range Cases("large") {
		got[c.Problem+" "+c.Label] = c
	}
	for name, params := range map[string]map[string]string{
		"fairshare 100,000 × 100,000 mmf":                         {"frameworks": "100000", "servers": "100000"},
		"fairshare 100,000 × 100,000 drf":                         {"frameworks": "100000", "policy": "drf"},
		"fairshare 100,000 × 100,000 pf":                          {"frameworks": "100000", "policy": "pf"},
		"xschedule/simulate 10,000 containers × 100,000 requests": {"requests": "100000"},
		"tetris/assign 80,000 tasks":                              {"tasks": "80000"},
		"cmmf 100,000 users":                                      {"users": "100000"},
	} {
		c, ok := got[name]
		if !ok {
			t.Errorf("no large case %q (have %v)", name, got)
			continue
		}
		for k, v := range params {
			if c.Params[k] != v {
				t.Errorf("%s: %s = %q, want %q", name, k, c.Params[k], v)
			}
		}
		if c.Problem == "fairshare" && !slices.Contains(c.budgets(), solver.DefaultBudget.Milliseconds()) {
			t.Errorf("%s: budgets %v lack the default %v", name, c.budgets(), solver.DefaultBudget)
		}
	}
	if len(got) != 6 {
		t.Errorf("%d large cases, want 6: %v", len(got), got)
	}
}
