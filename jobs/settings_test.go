package jobs

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/xflex/xflex/jobs/jobtest"
)

// TestSettingsMatchSynchronous: for the same body, the budget the job
// worker watches (budgetOf), the budget and seed the job's result reports
// and those POST /v1/{problem} reports are one: the default when absent,
// the request's own below the server's cap, the cap (with a note) above it.
func TestSettingsMatchSynchronous(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storeURL(t, "sqlite"), Config{}) // cap: one minute
	for _, c := range []struct {
		name   string
		input  map[string]any
		budget time.Duration
		seed   int64
		notes  int
	}{
		{"defaults", map[string]any{"ms": 0, "value": 1}, 2 * time.Second, 0, 0},
		{"own", map[string]any{"ms": 0, "value": 1, "budget_ms": 1500, "seed": 7}, 1500 * time.Millisecond, 7, 0},
		{"capped", map[string]any{"ms": 0, "value": 1, "budget_ms": 120000, "seed": 3}, time.Minute, 3, 1},
	} {
		body, err := json.Marshal(c.input)
		if err != nil {
			t.Fatal(err)
		}
		if got := h.svc.budgetOf(body); got != c.budget {
			t.Errorf("%s: budgetOf %v, want %v", c.name, got, c.budget)
		}
		sync := h.do("POST", "/v1/"+jobtest.Name, c.input)
		id := h.submit(job(c.input))
		h.waitTerminal(id)
		async := h.do("GET", "/v1/jobs/"+id+"/result", nil)
		for what, r := range map[string]reply{"synchronous": sync, "job": async} {
			var resp struct {
				Meta struct {
					BudgetMS int64    `json:"budget_ms"`
					Seed     int64    `json:"seed"`
					Notes    []string `json:"notes"`
				} `json:"meta"`
			}
			if r.status != http.StatusOK || json.Unmarshal(r.body, &resp) != nil {
				t.Fatalf("%s %s: %d %s", c.name, what, r.status, r.body)
			}
			m := resp.Meta
			if m.BudgetMS != c.budget.Milliseconds() || m.Seed != c.seed || len(m.Notes) != c.notes {
				t.Errorf("%s %s: budget_ms %d, seed %d, notes %q; want %d, %d and %d notes", c.name, what, m.BudgetMS, m.Seed, m.Notes, c.budget.Milliseconds(), c.seed, c.notes)
			}
		}
	}
}
