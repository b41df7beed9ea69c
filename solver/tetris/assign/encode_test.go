package assign

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

// AppendJSON writes exactly json.Marshal's bytes, on random rounds (every
// field kind: placements, explanations with shortfalls and blocked counts,
// free maps, knobs) and on hand-made results with nil slices and maps,
// strings that need escaping and floats in exponent form.
func TestAppendJSONMatchesMarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 31))
	var results []*Result
	for it := 0; it < 150; it++ {
		req := GenerateRequest(rng, 1+rng.IntN(10), rng.IntN(120), 1+rng.IntN(6), rng.Float64(), rng.Float64())
		if rng.IntN(3) == 0 {
			k := rng.IntN(5)
			req.MaxUnplaced = &k
		}
		results = append(results, solveReq(t, req))
	}
	results = append(results,
		&Result{},
		&Result{Assignments: []Assignment{}, Unplaced: []Unplaced{{Task: "t<&>\"\\\u2028\xff", Blocked: map[string]int{}, Shortfalls: []Shortfall{}}},
			Machines: []MachineFree{{Name: "m", Free: map[string]float64{"z": 1e-7, "a": 1e21, "é": -0.0}}, {Name: "n"}}},
		&Result{Assignments: []Assignment{{Alignment: 5e-324, Score: -1e300, Share: 1e-6, Rank: -1}},
			Knobs: KnobsOut{Epsilon: 123456789012345678901234.0, EpsilonAuto: true}, Summary: Summary{Placed: math.MaxInt, Complete: true}},
		nil,
	)
	for i, r := range results {
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.AppendJSON([]byte("prefix"))
		if err != nil {
			t.Fatalf("result %d: %v", i, err)
		}
		if !bytes.Equal(got[len("prefix"):], want) || string(got[:len("prefix")]) != "prefix" {
			t.Fatalf("result %d:\n%.3000s\nwant\n%.3000s", i, got, want)
		}
	}
}

// A float JSON cannot hold is an error, wherever it sits, as with
// json.Marshal (the HTTP handler then answers 500, not a broken body).
func TestAppendJSONRefusesNaN(t *testing.T) {
	for i, r := range []*Result{
		{Assignments: []Assignment{{Score: math.NaN()}}},
		{Unplaced: []Unplaced{{Shortfalls: []Shortfall{{Free: math.Inf(-1)}}}}},
		{Machines: []MachineFree{{Free: map[string]float64{"cpu": math.Inf(1)}}}},
		{Knobs: KnobsOut{RemotePenalty: math.NaN()}},
	} {
		if _, err := json.Marshal(r); err == nil {
			t.Fatalf("case %d: json.Marshal accepted it", i)
		}
		if _, err := r.AppendJSON(nil); err == nil {
			t.Errorf("case %d: AppendJSON accepted a float JSON cannot hold", i)
		}
	}
}
