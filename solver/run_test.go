package solver

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/xflex/xflex/schemas"
)

const toySchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://xflex.dev/schemas/toy.request.json",
 "type":"object","additionalProperties":false,
 "properties":{"x":{"type":"number"},"panic":{"type":"boolean"},"slow":{"type":"boolean"},"best":{"type":"boolean"},
  "budget_ms":{"$ref":"common.json#/$defs/budget_ms"},"seed":{"$ref":"common.json#/$defs/seed"}}}`

func toyRunner(t testing.TB) *Runner {
	t.Helper()
	set, err := schemas.LoadWith(map[string][]byte{"toy.request.json": []byte(toySchema)})
	if err != nil {
		t.Fatal(err)
	}
	p := Problem{Name: "toy", RequestSchema: "toy.request.json",
		Solve: func(ctx context.Context, raw json.RawMessage, opts Options) (any, Meta, error) {
			var req struct {
				X        float64 `json:"x"`
				Panic    bool    `json:"panic"`
				Slow     bool    `json:"slow"`
				Best     bool    `json:"best"`
				BudgetMS int64   `json:"budget_ms"`
				Seed     int64   `json:"seed"`
			}
			if err := Decode(raw, &req); err != nil {
				return nil, Meta{}, err
			}
			if req.Panic {
				panic("toy panic")
			}
			if req.Slow {
				<-ctx.Done()
				return nil, Meta{}, ctx.Err()
			}
			m := Meta{Status: StatusOptimal, Solver: "toy"}
			if req.Best {
				<-ctx.Done()
				m.Status = StatusTimeout
			}
			m.SetObjective(req.X)
			return req.X, m, nil
		}}
	r, err := NewRunnerWithSchemas([]Problem{p}, time.Second, set)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRunnerOutcomes(t *testing.T) {
	r := toyRunner(t)
	cases := []struct {
		name, body string
		kind       Kind
	}{
		{"ok", `{"x": 2}`, ""},
		{"malformed", `{"x": `, KindMalformed},
		{"trailing", `{"x": 1} {}`, KindMalformed},
		{"schema", `{"x": "two"}`, KindSchema},
		{"panic", `{"panic": true}`, KindInternal},
		{"budget", `{"slow": true, "budget_ms": 5}`, KindBudget},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, err := r.Run(context.Background(), "toy", []byte(c.body))
			if c.kind == "" {
				if err != nil {
					t.Fatal(err)
				}
				if resp.Meta.Status != StatusOptimal || resp.Meta.Bound == nil || *resp.Meta.Bound != 2 || resp.Meta.Gap == nil || *resp.Meta.Gap != 0 {
					t.Fatalf("optimal answer without bound = objective and zero gap: %+v", resp.Meta)
				}
				if resp.Meta.BudgetMS != 1000 { // the 2000 ms default, capped at the runner's 1 s
					t.Fatalf("budget %d", resp.Meta.BudgetMS)
				}
				return
			}
			var xe *Error
			if !errors.As(err, &xe) || xe.Kind != c.kind {
				t.Fatalf("got %v, want kind %s", err, c.kind)
			}
		})
	}
	if _, err := r.Run(context.Background(), "nope", []byte(`{}`)); err == nil || err.(*Error).Kind != KindUnknownProblem {
		t.Fatalf("unknown problem: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Run(ctx, "toy", []byte(`{"slow": true}`)); err == nil || err.(*Error).Kind != KindCanceled {
		t.Fatalf("canceled caller: %v", err)
	}
	resp, err := r.Run(context.Background(), "toy", []byte(`{"x": 1, "budget_ms": 999999}`))
	if err != nil || resp.Meta.BudgetMS != 1000 {
		t.Fatalf("budget cap: %v %+v", err, resp)
	}
}

func TestCanonicalHash(t *testing.T) {
	h := func(s string) string {
		doc, err := DecodeAny([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		sum, err := CanonicalHash(doc)
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	if h(`{"a":1,"b":[1,2]}`) != h(`{ "b":[1, 2], "a":1, "budget_ms": 50 }`) {
		t.Error("key order or budget_ms changed the hash")
	}
	if h(`{"a":1}`) == h(`{"a":2}`) || h(`{"a":1,"seed":1}`) == h(`{"a":1,"seed":2}`) {
		t.Error("different instances share a hash")
	}
}

func TestHelpers(t *testing.T) {
	if got := Ptr("users", 3, "a/b~c"); got != "/users/3/a~1b~0c" {
		t.Errorf("Ptr: %q", got)
	}
	var vs Violations
	if vs.Err() != nil {
		t.Error("empty violations are an error")
	}
	vs.Add("/a", "bad %d", 1)
	vs.Add("/b", "worse")
	err := vs.Err().(*Error)
	if err.Kind != KindInvalid || len(err.Violations) != 2 || !strings.Contains(err.Detail, "1 more") {
		t.Errorf("Violations.Err: %+v", err)
	}
	if g := RelGap(0, 0); g != 0 {
		t.Errorf("RelGap(0,0) = %v", g)
	}
	if g := RelGap(90, 100); math.Abs(g-0.1) > 1e-15 {
		t.Errorf("RelGap(90,100) = %v", g)
	}
	var m Meta
	m.SetObjective(math.NaN())
	m.SetBound(math.Inf(1))
	if m.Objective != nil || m.Bound != nil || m.Gap != nil {
		t.Errorf("non-finite values leaked into meta: %+v", m)
	}
}

// FuzzRun feeds arbitrary bodies through the whole pipeline: it must never
// panic and must answer with a response or a typed error.
func FuzzRun(f *testing.F) {
	for _, s := range []string{`{"x":1}`, `{`, `[]`, `null`, `{"x":1e400}`, `{"x":"\u0000"}`, `{"panic":false,"seed":3}`} {
		f.Add([]byte(s))
	}
	r := toyRunner(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, err := r.Run(context.Background(), "toy", body)
		if err == nil {
			if _, merr := json.Marshal(resp); merr != nil {
				t.Fatalf("response does not marshal: %v", merr)
			}
			return
		}
		var xe *Error
		if !errors.As(err, &xe) {
			t.Fatalf("untyped error %T: %v", err, err)
		}
	})
}

// Settings is the one reading of budget_ms and seed: the default, the
// request's own, the cap (with a note saying so), and for a body that is
// not JSON the default with the parse error. Run reports the same in meta.
func TestSettings(t *testing.T) {
	r := toyRunner(t) // cap 1 s
	for _, c := range []struct {
		body   string
		budget time.Duration
		seed   int64
		notes  int
	}{
		{`{"x": 1}`, time.Second, 0, 1}, // the 2 s default, capped
		{`{"x": 1, "budget_ms": 300, "seed": 9}`, 300 * time.Millisecond, 9, 0},
		{`{"x": 1, "budget_ms": 1000}`, time.Second, 0, 0},
		{`{"x": 1, "budget_ms": 1001, "seed": 4}`, time.Second, 4, 1},
	} {
		s, err := r.SettingsOf([]byte(c.body))
		if err != nil || s.Budget != c.budget || s.Seed != c.seed || len(s.Notes) != c.notes {
			t.Errorf("%s: SettingsOf %+v, %v; want budget %v, seed %d, %d notes", c.body, s, err, c.budget, c.seed, c.notes)
		}
		resp, err := r.Run(context.Background(), "toy", []byte(c.body))
		if err != nil {
			t.Fatalf("%s: %v", c.body, err)
		}
		if m := resp.Meta; m.BudgetMS != c.budget.Milliseconds() || m.Seed != c.seed || len(m.Notes) != c.notes {
			t.Errorf("%s: meta budget_ms %d, seed %d, notes %q; want Settings' %+v", c.body, m.BudgetMS, m.Seed, m.Notes, s)
		}
	}
	if s, err := r.SettingsOf([]byte(`{`)); err == nil || s.Budget != time.Second || s.Seed != 0 {
		t.Errorf("malformed body: %+v, %v; want the default (capped) and an error", s, err)
	}
}

// A best-so-far answer reads cancelled when the caller cancelled the solve
// (a DELETEd job) and timeout when a deadline, the budget's or the
// caller's, ended it (issue 20).
func TestRunnerCancelledIsNotTimeout(t *testing.T) {
	r := toyRunner(t)
	run := func(ctx context.Context, body string) Status {
		t.Helper()
		resp, err := r.Run(ctx, "toy", []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		return resp.Meta.Status
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	if got := run(ctx, `{"best": true, "x": 1}`); got != StatusCancelled {
		t.Errorf("cancelled solve: status %s, want cancelled", got)
	}
	if got := run(context.Background(), `{"best": true, "x": 1, "budget_ms": 20}`); got != StatusTimeout {
		t.Errorf("budget ran out: status %s, want timeout", got)
	}
	dctx, dcancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer dcancel()
	if got := run(dctx, `{"best": true, "x": 1}`); got != StatusTimeout {
		t.Errorf("caller's deadline passed: status %s, want timeout", got)
	}
}
