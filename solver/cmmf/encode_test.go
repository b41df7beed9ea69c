package cmmf

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"testing"

	"github.com/xflex/xflex/solver"
)

// TestAppendJSONMatchesMarshal: the reflection-free encoder writes
// json.Marshal's bytes for solved, timed-out and hand-made results
// (nil and empty slices, omitted members, escaped names).
func TestAppendJSONMatchesMarshal(t *testing.T) {
	var results []*Result
	for seed := int64(0); seed < 12; seed++ {
		p := GenParams{Users: 1 + int(seed)*7, Types: 1 + int(seed%5), Machines: 40, Weighted: seed%2 == 0,
			Divisible: seed%3 == 0, Individual: seed%4 == 1, CappedFrac: 0.3}
		in, err := Build(GenerateRequest(seed, p))
		if err != nil {
			t.Fatal(err)
		}
		res, _, err := SolveInstance(context.Background(), in, MethodFlow, seed)
		if err != nil {
			t.Fatal(err)
		}
		expired, cancel := context.WithCancel(context.Background())
		cancel()
		quick, _ := timeoutAnswer(expired, in, MethodFlow, solver.Options{})
		results = append(results, res, quick)
	}
	results = append(results, &Result{}, nil,
		&Result{Users: []UserResult{{Name: "u<&>\"\u2028\xff", Allocation: map[string]float64{"z": 1e-7, "a": 1e21, "é": 0}}, {Name: "v"}},
			Rounds:     []RoundOut{{Level: 0.5}, {Frozen: []string{"a"}, Capped: []string{"b\n"}}, {Frozen: []string{}, Capped: []string{}}},
			Assignment: map[string]string{"m2": "u", "m10": "v&"}, Leximin: []float64{}, Moved: 5e-324,
			Choosy: ChoosyOut{Users: []Total{{Name: "x", Total: -1e300}}, Skipped: "too many"}, Independent: IndependentOut{Users: []Total{}, RMSE: math.MaxFloat64}},
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
	if _, err := (&Result{Leximin: []float64{math.NaN()}}).AppendJSON(nil); err == nil {
		t.Fatal("NaN encoded")
	}
}

// TestDecodeBuilds: the Decode hook the Runner runs alongside validation
// builds the instance, so Build is not taken from the budget, and Solve
// uses that instance (here one with a single user, whatever raw says).
func TestDecodeBuilds(t *testing.T) {
	body := []byte(`{"machine_types":[{"name":"a","count":4}],"users":[{"name":"x"}],"divisible":true}`)
	v, err := Problem().Decode(body)
	if err != nil {
		t.Fatal(err)
	}
	other := []byte(`{"machine_types":[{"name":"a","count":4}],"users":[{"name":"x"},{"name":"y"}],"divisible":true}`)
	res, _, err := Solve(context.Background(), other, solver.Options{Decoded: v})
	if err != nil || len(res.(*Result).Users) != 1 {
		t.Fatalf("Solve ignored the instance Decode built: %v, %v", res, err)
	}
}
