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
