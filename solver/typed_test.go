package solver

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xflex/xflex/schemas"
)

// toyReq is toySchema's request.
type toyReq struct {
	X        float64 `json:"x"`
	Panic    bool    `json:"panic"`
	Slow     bool    `json:"slow"`
	BudgetMS *int64  `json:"budget_ms"`
	Seed     *int64  `json:"seed"`
}

// toyTyped is a Typed problem over toySchema: Build refuses a negative x
// with a pointer and counts its calls; Solve answers 2x.
func toyTyped(builds *atomic.Int32) Typed[toyReq, float64] {
	return Typed[toyReq, float64]{
		Name: "toy", RequestSchema: "toy.request.json",
		Build: func(req *toyReq) (float64, error) {
			builds.Add(1)
			var vs Violations
			if req.X < 0 {
				vs.Add("/x", "x must not be negative, got %v", req.X)
			}
			return req.X, vs.Err()
		},
		Solve: func(ctx context.Context, b Built[toyReq, float64], opts Options) (any, Meta, error) {
			if b.Req.X != b.In || b.BuildTime < 0 {
				return nil, Meta{}, errors.New("Solve got another request than Build")
			}
			return 2 * b.In, Meta{Status: StatusFeasible, Solver: "toy"}, nil
		},
	}
}

func typedRunner(t *testing.T, p Problem) *Runner {
	t.Helper()
	set, err := schemas.LoadWith(map[string][]byte{"toy.request.json": []byte(toySchema)})
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRunnerWithSchemas([]Problem{p}, time.Second, set)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The adapter answers what a hand-written Solve answered: the result of
// Build and Solve, and for a bad body the same error kind and pointer
// (malformed: 400 without a pointer; schema: the Runner's pointer; a
// semantic error: Build's pointer), with or without PreBuild.
func TestTypedOutcomes(t *testing.T) {
	cases := []struct {
		name, body string
		kind       Kind
		pointer    string
		result     any
	}{
		{"solved", `{"x": 1.5}`, "", "", 3.0},
		{"malformed", `{"x": 1`, KindMalformed, "", nil},
		{"schema", `{"x": "one"}`, KindSchema, "/x", nil},
		{"unknown field", `{"x": 1, "y": 2}`, KindSchema, "", nil},
		{"build", `{"x": -1}`, KindInvalid, "/x", nil},
	}
	for _, prebuild := range []bool{false, true} {
		var builds atomic.Int32
		typed := toyTyped(&builds)
		typed.PreBuild = prebuild
		r := typedRunner(t, typed.Problem())
		for _, c := range cases {
			resp, err := r.Run(context.Background(), "toy", []byte(c.body))
			if c.kind == "" {
				if err != nil || !reflect.DeepEqual(resp.Result, c.result) {
					t.Errorf("prebuild %v, %s: %v, %v; want %v", prebuild, c.name, resp, err, c.result)
				}
				continue
			}
			var xe *Error
			if !errors.As(err, &xe) || xe.Kind != c.kind {
				t.Errorf("prebuild %v, %s: error %v, want kind %s", prebuild, c.name, err, c.kind)
				continue
			}
			if c.pointer != "" && (len(xe.Violations) == 0 || xe.Violations[0].Pointer != c.pointer) {
				t.Errorf("prebuild %v, %s: violations %v, want the first at %s", prebuild, c.name, xe.Violations, c.pointer)
			}
		}
	}
}

// PreBuild runs Build in the Decode hook, so Solve does not build again;
// without it the hook only decodes and Solve builds. Either way Solve
// works from the hook's value, not the body; a failed hook leaves Solve
// to decode the body with Decode.
func TestTypedPredecode(t *testing.T) {
	for _, prebuild := range []bool{false, true} {
		var builds atomic.Int32
		typed := toyTyped(&builds)
		typed.PreBuild = prebuild
		p := typed.Problem()
		v, err := p.Decode(json.RawMessage(`{"x": 4}`))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := builds.Load(), map[bool]int32{false: 0, true: 1}[prebuild]; got != want {
			t.Errorf("prebuild %v: the hook built %d times, want %d", prebuild, got, want)
		}
		res, _, err := p.Solve(context.Background(), json.RawMessage(`{"x": 5}`), Options{Decoded: v})
		if err != nil || res != 8.0 || builds.Load() != 1 {
			t.Errorf("prebuild %v: Solve answered %v, %v after %d builds; want 8 (the hook's x) after 1", prebuild, res, err, builds.Load())
		}
	}
	var builds atomic.Int32
	typed := toyTyped(&builds)
	typed.Decode = func(json.RawMessage) (*toyReq, error) { return nil, errors.New("fast decoder refuses") }
	p := typed.Problem()
	if _, err := p.Decode(json.RawMessage(`{"x": 4}`)); err == nil {
		t.Fatal("the hook did not use Typed.Decode")
	}
	resp, err := typedRunner(t, p).Run(context.Background(), "toy", []byte(`{"x": 4}`))
	if err != nil || resp.Result != 8.0 {
		t.Fatalf("after a failed Typed.Decode: %v, %v; want Solve to decode the body (8)", resp, err)
	}
}

// With PreBuild a body that fails validation is refused by the schema,
// not by the Build error the hook met on it.
func TestTypedPreBuildErrorWaits(t *testing.T) {
	var builds atomic.Int32
	typed := toyTyped(&builds)
	typed.PreBuild = true
	_, err := typedRunner(t, typed.Problem()).Run(context.Background(), "toy", []byte(`{"x": -1, "seed": -5}`))
	var xe *Error
	if !errors.As(err, &xe) || xe.Kind != KindSchema || xe.Violations[0].Pointer != "/seed" {
		t.Fatalf("error %v, want the schema's at /seed", err)
	}
}
