// Package xflexplan benchmarks the X-Flex plan (POST /v1/xflex/plan): the
// time of each stage in one plan and which dominates (Report, `xflex
// bench xflex-plan`), and the plan's speed on a small instance (go test
// -bench).
package xflexplan

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/problems"
	"github.com/xflex/xflex/solver/xflex/plan"
)

// Sizes: full is the plan (1,000 nodes, 20 applications, K = 8
// in 3-D, a 20,000-request trace, the default budget); small is a quick
// look.
var sizes = map[string]map[string]string{
	"small": {"nodes": "100", "apps": "5", "k": "4", "dims": "2", "requests": "2000", "forecast": "4"},
	"full":  {"nodes": "1000", "apps": "20", "k": "8", "dims": "3", "requests": "20000", "forecast": "4"},
}

// Instance is the generated plan of a scale, with budget_ms when
// budgetMS > 0.
func Instance(scale string, seed int64, budgetMS int) ([]byte, error) {
	params, ok := sizes[scale]
	if !ok {
		return nil, fmt.Errorf("scale %q: want small or full", scale)
	}
	v, err := plan.Generate(seed, params)
	if err != nil {
		return nil, err
	}
	m := v.(map[string]any)
	if budgetMS > 0 {
		m["budget_ms"] = budgetMS
	}
	return json.Marshal(m)
}

// uncutMS is the budget of the run that shows each stage's time uncut.
const uncutMS = 120000

// stageTime is one stage's part of a plan's answer.
type stageTime struct {
	Status  string `json:"status"`
	Request struct {
		BudgetMS int64 `json:"budget_ms"`
	} `json:"request"`
	Response struct {
		Meta solver.Meta `json:"meta"`
	} `json:"response"`
}

// Report runs the plan of the scale (three seeds) with the default
// budget, and the first with a budget no stage reaches, and prints each stage's budget, time and status, the plan's
// time and status, the stage that dominates and the plan's headline
// figures, with the load average beside them.
func Report(ctx context.Context, w io.Writer, scale string) error {
	r, err := solver.NewRunner(problems.All(), 0)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "X-Flex plan, scale %s (%v), default budget %d ms; load average %s\n\n", scale, sizes[scale], solver.DefaultBudget.Milliseconds(), loadAvg())
	fmt.Fprintln(w, "| seed | trace | xsize ms (budget) | xselect ms (budget) | simulate ms (budget) | plan ms | status | dominant | λ | X-Flex / DRF successes | ceiling |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|")
	// Three seeds at the default budget, then the first again with a
	// budget no stage reaches: how long each stage takes uncut.
	for _, c := range []struct {
		seed     int64
		budgetMS int
	}{{1, 0}, {2, 0}, {3, 0}, {1, uncutMS}} {
		raw, err := Instance(scale, c.seed, c.budgetMS)
		if err != nil {
			return err
		}
		resp, err := r.Run(ctx, "xflex/plan", raw)
		if err != nil {
			return fmt.Errorf("seed %d: %w", c.seed, err)
		}
		label := fmt.Sprint(c.seed)
		if c.budgetMS > 0 {
			label += fmt.Sprintf(" (budget %d s)", c.budgetMS/1000)
		}
		if err := row(w, label, resp); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "\nload average after: %s\n", loadAvg())
	return nil
}

// row prints one plan's row.
func row(w io.Writer, label string, resp *solver.Response) error {
	var out struct {
		Result struct {
			Stages  map[string]json.RawMessage `json:"stages"`
			Trace   plan.TraceInfo             `json:"trace"`
			Summary plan.Summary               `json:"summary"`
		} `json:"result"`
	}
	if err := json.Unmarshal(resp.Wire, &out); err != nil {
		return err
	}
	cells := []string{}
	dominant, most := "", -1.0
	for _, name := range []string{"xsize", "xselect", "simulate"} {
		raw, ok := out.Result.Stages[name]
		if !ok {
			cells = append(cells, "did not run")
			continue
		}
		var st stageTime
		if err := json.Unmarshal(raw, &st); err != nil {
			return err
		}
		ms := st.Response.Meta.ElapsedMS
		cells = append(cells, fmt.Sprintf("%.0f (%d) %s", ms, st.Request.BudgetMS, st.Status))
		if ms > most {
			dominant, most = name, ms
		}
	}
	s := out.Result.Summary
	fmt.Fprintf(w, "| %s | %d | %s | %.0f | %s | %s | %s | %s | %s |\n", label, out.Result.Trace.Requests, strings.Join(cells, " | "),
		resp.Meta.ElapsedMS, resp.Meta.Status, dominant, num(s.Lambda), num(s.SuccessRatio), num(s.Ceiling))
	return nil
}

func num(v *float64) string {
	if v == nil {
		return "–"
	}
	return fmt.Sprintf("%.3f", *v)
}

// loadAvg is the 1, 5 and 15 minute load averages (Linux), or "?".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
