package cmmf

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
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
		&Result{Users: []UserResult{{Name: "u<&>\"\u2028\xff", Allocation: Amounts{{"a", 1e21}, {"z", 1e-7}, {"é", 0}}}, {Name: "w", Allocation: Amounts{}}, {Name: "v"}},
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
	if _, err := (&Result{Users: []UserResult{{Allocation: Amounts{{"a", math.Inf(1)}}}}}).AppendJSON(nil); err == nil {
		t.Fatal("infinite amount encoded")
	}
}

// TestAmountsEncodeAsMap: solved results (types and machines requests,
// many types, names that need escaping or share prefixes) encode each
// user's Amounts as json.Marshal writes the map[string]float64 they
// replace, and read back to the same Amounts.
func TestAmountsEncodeAsMap(t *testing.T) {
	names := []string{"a", "a0", "a<", "a&b", "ab", "a\u00e9", "\u00e9", "Z", "z\n", "\u2028", "m10", "m2", "m1", ""}
	for seed := int64(0); seed < 8; seed++ {
		p := GenParams{Users: 30, Types: 40, Machines: 400, Divisible: seed%2 == 0, Individual: seed%4 == 1}
		req := GenerateRequest(seed, p)
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		for k := range req.MachineTypes {
			req.MachineTypes[k].Name = fmt.Sprintf("%s%d", names[rng.IntN(len(names))], k)
		}
		for k := range req.Machines {
			req.Machines[k].Name = fmt.Sprintf("%s%d", names[rng.IntN(len(names))], k)
		}
		res, _, err := solveRequest(t, req)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		split := 0
		for _, u := range res.Users {
			m := map[string]float64{}
			for _, e := range u.Allocation {
				m[e.Name] = e.Amount
			}
			want, _ := json.Marshal(m)
			got, err := json.Marshal(u.Allocation)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("seed %d user %s: %s (%v), want %s", seed, u.Name, got, err, want)
			}
			var back Amounts
			if err := json.Unmarshal(got, &back); err != nil || !slices.Equal(back, u.Allocation) {
				t.Fatalf("seed %d user %s: read back %v (%v), want %v", seed, u.Name, back, err, u.Allocation)
			}
			if len(u.Allocation) > 1 {
				split++
			}
		}
		if split == 0 {
			t.Fatalf("seed %d: no user holds two types; the test checks no order", seed)
		}
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
