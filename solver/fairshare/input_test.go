package fairshare

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/solvertest"
)

const twoByTwo = `"resources": ["cpu", "mem"],
  "servers": [{"name": "a", "capacity": [10, 20]}, {"name": "b", "capacity": [20, 10], "count": 2}]`

func TestBadInput(t *testing.T) {
	cases := []struct {
		name    string
		body    string
		kind    solver.Kind
		pointer string
	}{
		{"unknown server", `{` + twoByTwo + `, "frameworks": [{"name": "f", "demand": [1, 1], "servers": ["a", "zz"]}], "policy": "mmf"}`, solver.KindInvalid, "/frameworks/0/servers/1"},
		{"unknown utility server", `{` + twoByTwo + `, "frameworks": [{"name": "f", "demand": [1, 1], "utility": {"zz": 2}}], "policy": "mmf", "criterion": "generic"}`, solver.KindInvalid, "/frameworks/0/utility/zz"},
		{"utility without generic", `{` + twoByTwo + `, "frameworks": [{"name": "f", "demand": [1, 1], "utility": {"a": 2}}], "policy": "mmf"}`, solver.KindInvalid, "/frameworks/0/utility"},
		{"demand length", `{` + twoByTwo + `, "frameworks": [{"name": "f", "demand": [1]}], "policy": "drf"}`, solver.KindInvalid, "/frameworks/0/demand"},
		{"capacity length", `{"resources": ["cpu"], "servers": [{"name": "a", "capacity": [1, 2]}], "frameworks": [{"name": "f", "demand": [1]}], "policy": "drf"}`, solver.KindInvalid, "/servers/0/capacity"},
		{"zero demand", `{` + twoByTwo + `, "frameworks": [{"name": "f", "demand": [0, 0]}], "policy": "pf"}`, solver.KindInvalid, "/frameworks/0/demand"},
		{"duplicate framework", `{` + twoByTwo + `, "frameworks": [{"name": "f", "demand": [1, 1]}, {"name": "f", "demand": [1, 2]}], "policy": "mmf"}`, solver.KindInvalid, "/frameworks/1/name"},
		{"duplicate server", `{"resources": ["cpu"], "servers": [{"name": "a", "capacity": [1]}, {"name": "a", "capacity": [2]}], "frameworks": [{"name": "f", "demand": [1]}], "policy": "mmf"}`, solver.KindInvalid, "/servers/1/name"},
		{"duplicate resource", `{"resources": ["cpu", "cpu"], "servers": [{"name": "a", "capacity": [1, 1]}], "frameworks": [{"name": "f", "demand": [1, 1]}], "policy": "mmf"}`, solver.KindInvalid, "/resources/1"},
		{"server listed twice", `{` + twoByTwo + `, "frameworks": [{"name": "f", "demand": [1, 1], "servers": ["a", "a"]}], "policy": "mmf"}`, solver.KindInvalid, "/frameworks/0/servers/1"},
		{"negative capacity", `{"resources": ["cpu"], "servers": [{"name": "a", "capacity": [-1]}], "frameworks": [{"name": "f", "demand": [1]}], "policy": "mmf"}`, solver.KindSchema, "/servers/0/capacity/0"},
		{"zero weight", `{` + twoByTwo + `, "frameworks": [{"name": "f", "demand": [1, 1], "weight": 0}], "policy": "mmf"}`, solver.KindSchema, "/frameworks/0/weight"},
		{"unknown policy", `{` + twoByTwo + `, "frameworks": [{"name": "f", "demand": [1, 1]}], "policy": "fifo"}`, solver.KindSchema, "/policy"},
		{"unknown field", `{` + twoByTwo + `, "frameworks": [{"name": "f", "demand": [1, 1]}], "policy": "mmf", "colour": 1}`, solver.KindSchema, ""},
		// Robustness sweep: a weight of 1e-300 put a coefficient of 1e294
		// in the LP (internal error); a demand of 1e15 against a capacity
		// of 1e-300 and a capacity of 5e-324 made shares NaN or overflow.
		{"weight below 1e-6", `{` + twoByTwo + `, "frameworks": [{"name": "f", "demand": [1, 1], "weight": 1e-300}], "policy": "mmf"}`, solver.KindInvalid, "/frameworks/0/weight"},
		{"weight above 1e6", `{` + twoByTwo + `, "frameworks": [{"name": "f", "demand": [1, 1], "weight": 1e15}], "policy": "pf"}`, solver.KindInvalid, "/frameworks/0/weight"},
		{"utility below 1e-6", `{` + twoByTwo + `, "frameworks": [{"name": "f", "demand": [1, 1], "utility": {"b": 1e-9}}], "policy": "mmf", "criterion": "generic"}`, solver.KindInvalid, "/frameworks/0/utility/b"},
		{"demand 1e15 times a capacity", `{"resources": ["cpu"], "servers": [{"name": "a", "capacity": [1e-300]}], "frameworks": [{"name": "f", "demand": [1e15]}], "policy": "mmf"}`, solver.KindInvalid, "/frameworks/0/demand/0"},
		{"capacity 1e13 tasks", `{"resources": ["cpu", "mem"], "servers": [{"name": "a", "capacity": [1, 5e-324]}, {"name": "b", "capacity": [1e13, 1]}], "frameworks": [{"name": "f", "demand": [1, 1]}], "policy": "drf"}`, solver.KindInvalid, "/frameworks/0/demand/0"},
		{"zero count", `{"resources": ["cpu"], "servers": [{"name": "a", "capacity": [1], "count": 0}], "frameworks": [{"name": "f", "demand": [1]}], "policy": "mmf"}`, solver.KindSchema, "/servers/0/count"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			xe := solvertest.ExpectError(t, Problem(), []byte(c.body), c.kind)
			if c.pointer == "" {
				return
			}
			for _, v := range xe.Violations {
				if v.Pointer == c.pointer {
					return
				}
			}
			t.Fatalf("no violation at %s: %+v", c.pointer, xe.Violations)
		})
	}
}

// TestAllViolationsAtOnce: every semantic problem is reported in one go.
func TestAllViolationsAtOnce(t *testing.T) {
	body := `{` + twoByTwo + `, "frameworks": [{"name": "f", "demand": [0, 0], "servers": ["x"]}, {"name": "f", "demand": [1]}], "policy": "mmf"}`
	xe := solvertest.ExpectError(t, Problem(), []byte(body), solver.KindInvalid)
	if len(xe.Violations) != 4 {
		t.Fatalf("want 4 violations, got %+v", xe.Violations)
	}
}

// TestTimeout: an exhausted budget returns the best so far, never an error.
func TestTimeout(t *testing.T) {
	v, err := Generate(3, map[string]string{"frameworks": "300", "servers": "3000", "types": "20", "policy": "drf"})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(v)
	for _, pol := range []string{PolicyDRF, PolicyMMF, PolicyPF} {
		req := v.(*Request)
		req.Policy = pol
		raw, _ = json.Marshal(req)
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		res, meta, err := Solve(ctx, raw, solver.Options{Budget: time.Millisecond, Start: time.Now()})
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", pol, err)
		}
		if meta.Status != solver.StatusTimeout {
			t.Fatalf("%s: status %s, want timeout", pol, meta.Status)
		}
		if res.(*Result).Frameworks == nil {
			t.Fatalf("%s: no result", pol)
		}
	}
}

// FuzzSolve feeds arbitrary bodies through the Runner: every outcome is a
// response or a typed error, never a panic.
func FuzzSolve(f *testing.F) {
	f.Add([]byte(paperExample))
	f.Add([]byte(`{` + twoByTwo + `, "frameworks": [{"name": "f", "demand": [1, 1], "max_tasks": 3}], "policy": "pf", "alpha": 2}`))
	f.Add([]byte(`{` + twoByTwo + `, "frameworks": [{"name": "f", "demand": [1, 0], "servers": ["b"]}, {"name": "g", "demand": [0, 1], "utility": {"a": 3}}], "policy": "mmf", "criterion": "generic", "integer": true}`))
	f.Add([]byte(`{"resources": [], "servers": [], "frameworks": [], "policy": "bfdrf"}`))
	r, err := solver.NewRunner([]solver.Problem{Problem()}, 200*time.Millisecond)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		resp, err := r.Run(ctx, "fairshare", body)
		if err != nil {
			var xe *solver.Error
			if !errors.As(err, &xe) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			if xe.Kind == solver.KindInternal {
				t.Fatalf("internal error on %s: %v", body, err)
			}
			return
		}
		if _, err := json.Marshal(resp); err != nil {
			t.Fatalf("response does not marshal: %v", err)
		}
	})
}

// TestExtremeButValid: inputs at the edge of the accepted ranges solve to
// finite, schema-valid responses (solvertest.Check encodes and validates).
func TestExtremeButValid(t *testing.T) {
	cases := []struct {
		name, body string
		tasks      float64 // expected total_tasks, -1 to skip
	}{
		// A resource no server has made the DRF coefficient +Inf and the
		// share of the framework that needs it Inf·0 = NaN (unencodable).
		{"drf criterion, resource no server has, pf", `{"criterion": "drf", "frameworks": [{"demand": [1, 1], "name": "a"}], "policy": "pf", "resources": ["cpu", "mem"], "servers": [{"capacity": [0, 1], "name": "small"}]}`, 0},
		{"drf criterion, resource no server has, mmf", `{"criterion": "drf", "frameworks": [{"demand": [1, 1], "name": "a"}, {"demand": [0, 1], "name": "b"}], "policy": "mmf", "resources": ["cpu", "mem"], "servers": [{"capacity": [0, 4], "name": "small"}]}`, 4},
		// Demands of 1e-9 against capacities of 30 and 100: rounding to
		// whole tasks placed them one at a time and, once a residual was
		// clamped to 0, "fit" them forever within the absolute tolerance.
		{"3e10 whole tasks a server", `{"frameworks": [{"demand": [1e-09, 1e-09], "name": "f1"}, {"demand": [1e-09, 1e-09], "name": "f2", "weight": 2}], "integer": true, "policy": "efficiency", "resources": ["cpu", "mem"], "servers": [{"capacity": [100, 30], "name": "s1"}, {"capacity": [30, 100], "name": "s2"}], "budget_ms": 20000}`, 6e10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := solvertest.Check(t, Problem(), []byte(c.body))
			got := out["result"].(map[string]any)["total_tasks"].(float64)
			if c.tasks >= 0 && got != c.tasks {
				t.Fatalf("total_tasks %v, want %v", got, c.tasks)
			}
		})
	}
}

// TestFitsForgivesRoundOffOnlyOnce: the fit tolerance (relative to the
// server's capacity) applies against a positive residual only, so a tiny
// demand cannot fit a residual clamped to 0 again and again.
func TestFitsForgivesRoundOffOnlyOnce(t *testing.T) {
	cases := []struct {
		name           string
		d, free, capac []float64
		want           bool
	}{
		{"exact fit", []float64{1}, []float64{1}, []float64{10}, true},
		{"round-off above a positive residual", []float64{0.1}, []float64{0.09999999999999987}, []float64{1}, true},
		{"beyond the tolerance", []float64{0.1}, []float64{0.0999}, []float64{1}, false},
		{"tiny demand on a zero residual", []float64{1e-9}, []float64{0}, []float64{30}, false},
		{"tiny demand on a tiny server", []float64{1e-12}, []float64{0}, []float64{1e-6}, false},
		{"zero demand on a zero residual", []float64{0, 1}, []float64{0, 1}, []float64{1, 1}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := fits(c.d, c.free, c.capac); got != c.want {
				t.Fatalf("fits(%v, %v, %v) = %v, want %v", c.d, c.free, c.capac, got, c.want)
			}
		})
	}
}

// TestTrialsHonourBudget: a trial on a small instance ends before the
// filler's periodic deadline check, so 100000 trials (robustness sweep:
// examples/fairshare.json with trials 100000 and compare) ran 5 s on a
// 200 ms budget. The budget is now checked between trials: 100000 trials
// take about 0.5 s here, so a 20 ms budget must stop them early and say so.
func TestTrialsHonourBudget(t *testing.T) {
	body := `{"resources": ["r1", "r2"], "servers": [{"name": "s1", "capacity": [100, 30]}, {"name": "s2", "capacity": [30, 100]}],
		"frameworks": [{"name": "f1", "demand": [5, 1]}, {"name": "f2", "demand": [1, 5]}],
		"policy": "drf", "trials": 100000, "seed": 1, "budget_ms": 20}`
	raw, xe := solvertest.Run(t, Problem(), []byte(body))
	if xe != nil {
		t.Fatal(xe)
	}
	var resp struct {
		Result struct {
			Trials int `json:"trials"`
		} `json:"result"`
		Meta solver.Meta `json:"meta"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		t.Fatal(err)
	}
	if resp.Meta.Status != solver.StatusTimeout || resp.Result.Trials >= 100000 || resp.Result.Trials < 1 {
		t.Fatalf("status %s after %d trials, want timeout after fewer than 100000", resp.Meta.Status, resp.Result.Trials)
	}
}
