package cmmf

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/solvertest"
)

// TestBadInput: schema errors and semantic errors come back with the kind
// and the JSON pointer of every offending item.
func TestBadInput(t *testing.T) {
	cases := []struct {
		name     string
		body     string
		kind     solver.Kind
		pointers []string
	}{
		{"neither machines nor types", `{"users":[{"name":"a"}]}`, solver.KindInvalid, []string{""}},
		{"both machines and types", `{"machines":[{"name":"m"}],"machine_types":[{"name":"t","count":1}],"users":[{"name":"a"}]}`, solver.KindInvalid, []string{"/machines"}},
		{"unknown allowed name", `{"machine_types":[{"name":"t","count":1}],"users":[{"name":"a","allowed":["t","x"]}]}`, solver.KindInvalid, []string{"/users/0/allowed/1"}},
		{"duplicate user", `{"machine_types":[{"name":"t","count":1}],"users":[{"name":"a"},{"name":"a"}]}`, solver.KindInvalid, []string{"/users/1/name"}},
		{"duplicate type", `{"machine_types":[{"name":"t","count":1},{"name":"t","count":2}],"users":[{"name":"a"}]}`, solver.KindInvalid, []string{"/machine_types/1/name"}},
		{"duplicate machine", `{"machines":[{"name":"m"},{"name":"m"}],"users":[{"name":"a"}]}`, solver.KindInvalid, []string{"/machines/1/name"}},
		{"zero weight", `{"machine_types":[{"name":"t","count":1}],"users":[{"name":"a","weight":0}]}`, solver.KindSchema, []string{"/users/0/weight"}},
		{"tiny weight", `{"machine_types":[{"name":"t","count":1}],"users":[{"name":"a","weight":1e-300}]}`, solver.KindSchema, []string{"/users/0/weight"}},
		{"negative weight", `{"machine_types":[{"name":"t","count":1}],"users":[{"name":"a","weight":-2}]}`, solver.KindSchema, []string{"/users/0/weight"}},
		{"negative count", `{"machine_types":[{"name":"t","count":-1}],"users":[{"name":"a"}]}`, solver.KindSchema, []string{"/machine_types/0/count"}},
		{"unknown field", `{"machine_types":[{"name":"t","count":1}],"users":[{"name":"a"}],"fairness":"drf"}`, solver.KindSchema, []string{"/fairness"}},
		{"no users", `{"machine_types":[{"name":"t","count":1}],"users":[]}`, solver.KindSchema, []string{"/users"}},
		{"bad op", `{"machine_types":[{"name":"t","count":1}],"users":[{"name":"a","require":[{"attr":"x","op":"like","value":1}]}]}`, solver.KindSchema, []string{"/users/0/require/0/op"}},
		{"in needs array", `{"machine_types":[{"name":"t","count":1}],"users":[{"name":"a","require":[{"attr":"x","op":"in","value":1}]}]}`, solver.KindSchema, []string{"/users/0/require/0/value"}},
		{"ge needs number", `{"machine_types":[{"name":"t","count":1}],"users":[{"name":"a","require":[{"attr":"x","op":"ge","value":"big"}]}]}`, solver.KindSchema, []string{"/users/0/require/0/value"}},
		{"current unknown user", `{"machine_types":[{"name":"t","count":2}],"users":[{"name":"a"}],"current":{"b":{"t":1}}}`, solver.KindInvalid, []string{"/current/b"}},
		{"current unknown type", `{"machine_types":[{"name":"t","count":2}],"users":[{"name":"a"}],"current":{"a":{"x":1}}}`, solver.KindInvalid, []string{"/current/a/x"}},
		{"current over-allocates", `{"machine_types":[{"name":"t","count":2}],"users":[{"name":"a"},{"name":"b"}],"current":{"a":{"t":2},"b":{"t":1}}}`, solver.KindInvalid, []string{"/machine_types/0"}},
		{"current over-allocates a machine", `{"machines":[{"name":"m"}],"users":[{"name":"a"},{"name":"b"}],"current":{"a":{"m":0.6},"b":{"m":0.6}}}`, solver.KindInvalid, []string{"/machines/0"}},
		{"fractional current in integer mode", `{"machine_types":[{"name":"t","count":2}],"users":[{"name":"a"}],"divisible":false,"current":{"a":{"t":0.5}}}`, solver.KindInvalid, []string{"/current/a/t"}},
		{"unknown method", `{"machine_types":[{"name":"t","count":2}],"users":[{"name":"a"}],"method":"simplex"}`, solver.KindSchema, []string{"/method"}},
		{"several at once", `{"machine_types":[{"name":"t","count":1}],"users":[{"name":"a","allowed":["x"]},{"name":"a","allowed":["y"]}]}`, solver.KindInvalid, []string{"/users/0/allowed/0", "/users/1/allowed/0", "/users/1/name"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			xe := solvertest.ExpectError(t, Problem(), []byte(tc.body), tc.kind)
			got := map[string]bool{}
			for _, v := range xe.Violations {
				got[v.Pointer] = true
			}
			for _, p := range tc.pointers {
				if !got[p] {
					t.Fatalf("no violation at %q: %v", p, xe)
				}
			}
		})
	}
}

// TestMalformed: not JSON at all.
func TestMalformed(t *testing.T) {
	solvertest.ExpectError(t, Problem(), []byte(`{"users": [`), solver.KindMalformed)
}

// FuzzRequest feeds arbitrary bodies through the Runner: every outcome is
// a response or a typed error, never a panic, and successful responses
// respect capacities.
func FuzzRequest(f *testing.F) {
	f.Add([]byte(`{"machine_types":[{"name":"t","count":3}],"users":[{"name":"a"},{"name":"b","weight":2}]}`))
	f.Add([]byte(`{"machines":[{"name":"m1","attributes":{"gpu":true}},{"name":"m2"}],"users":[{"name":"a","require":[{"attr":"gpu","op":"eq","value":true}]},{"name":"b"}],"divisible":false}`))
	f.Add([]byte(`{"machine_types":[{"name":"t","count":2}],"users":[{"name":"a","demand":1}],"current":{"a":{"t":2}},"method":"lp"}`))
	f.Add([]byte(`{"machine_types":[{"name":"x","count":5,"attributes":{"v":3}}],"users":[{"name":"a","require":[{"attr":"v","op":"in","value":[1,3]}]},{"name":"b","allowed":[]}],"divisible":false,"current":{"b":{"x":1}}}`))
	// Numbers whose float64 decides: counts written 1e2, 1.0 and 1e-400,
	// weights and demands that are 0, subnormal or beyond the range.
	f.Add([]byte(`{"machine_types":[{"name":"t","count":1e2},{"name":"u","count":1.0},{"name":"v","count":1e-400}],"users":[{"name":"a","weight":1e-400},{"name":"b","weight":5e-324,"demand":1e-320}]}`))
	f.Add([]byte(`{"machine_types":[{"name":"t","count":3}],"users":[{"name":"a","weight":2.2250738585072014e-308,"demand":1e15},{"name":"b","weight":1e15,"demand":1e309}],"divisible":true}`))
	runner, err := solver.NewRunner([]solver.Problem{Problem()}, 0)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > 4096 {
			return
		}
		// Keep instances small so each fuzz run is fast: a count whose
		// float64 (what validation judges) is above 1000 is skipped, one
		// written as 1e2, 1.0 or 1e-400 is not.
		var probe struct {
			MachineTypes []struct {
				Count json.Number `json:"count"`
			} `json:"machine_types"`
		}
		if json.Unmarshal(body, &probe) == nil {
			for _, mt := range probe.MachineTypes {
				if n, err := mt.Count.Float64(); err == nil && n > 1000 {
					return
				}
			}
		}
		resp, err := runner.Run(context.Background(), "cmmf", body)
		if err != nil {
			var xe *solver.Error
			if !errors.As(err, &xe) || xe.Kind == solver.KindInternal {
				t.Fatalf("internal error on %s: %v", body, err)
			}
			return
		}
		if _, err := json.Marshal(resp); err != nil {
			t.Fatalf("response does not encode: %v", err)
		}
	})
}
