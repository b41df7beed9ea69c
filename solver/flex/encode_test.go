package flex

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/xflex/xflex/solver"
)

// solveFile solves a request file with a generous budget.
func solveFile(t *testing.T, path string) *Result {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var req Request
	if err := solver.Decode(raw, &req); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return solveReq(t, &req)
}

func solveReq(t *testing.T, req *Request) *Result {
	t.Helper()
	in, err := Build(req)
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := run(context.Background(), in, req, solver.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// AppendJSON writes exactly json.Marshal's bytes on every testdata and
// example response, on random instances of every metric and aggregate
// (cut and uncut interval lists), and on hand-made results with nil
// slices and maps, strings that need escaping and floats in exponent form.
func TestAppendJSONMatchesMarshal(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.json")
	files = append(files, filepath.Join("..", "..", "examples", "flex.json"))
	var results []*Result
	for _, f := range files {
		results = append(results, solveFile(t, f))
	}
	rng := rand.New(rand.NewPCG(17, 17))
	for it := 0; it < 40; it++ {
		params := map[string]string{
			"jobs":    strconv.Itoa(1 + rng.IntN(30)),
			"slots":   strconv.Itoa(1 + rng.IntN(200)),
			"metric":  metricNames[rng.IntN(len(metricNames))],
			"weights": []string{"unit", "uniform"}[rng.IntN(2)],
		}
		if rng.IntN(2) == 0 {
			params["objective"] = []string{"sum", "max"}[rng.IntN(2)]
		}
		raw, err := Generate(rng.Int64(), params)
		if err != nil {
			t.Fatal(err)
		}
		req := raw.(*Request)
		if rng.IntN(3) == 0 {
			k := rng.IntN(4)
			req.MaxIntervals = &k
		}
		results = append(results, solveReq(t, req))
	}
	ratio, two := 1e-7, 2.0
	results = append(results,
		&Result{},
		&Result{Ordering: []string{}, Intervals: []IntervalOut{{Slots: Slots{}}, {Start: 1e21, End: 5e-324}}, Jobs: []JobOut{}, Candidates: []CandOut{}},
		&Result{Objective: -0.0, Metric: "t<&>\"\\\u2028\xff", Ordering: []string{"é", "a\nb"},
			Intervals:  []IntervalOut{{Slots: Slots{{"<", math.MaxInt}, {"a", -2}, {"z", 1}, {"é", 3}}}},
			Jobs:       []JobOut{{ID: "\x00", Completion: 123456789012345678901234.0, Penalty: 1e-300}},
			Baselines:  Baselines{FIFO: Baseline{Objective: &two, Ratio: &ratio}, Fair: Baseline{Skipped: true}},
			Candidates: []CandOut{{Source: "rap", Objective: 1e20}}, IntervalsCut: true, Optimal: true, MPSOptimal: true},
		nil,
	)
	for i, r := range results {
		if r != nil {
			slotsMatchMap(t, r.Intervals)
		}
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

// slotsMatchMap checks that each interval's Slots encode as the
// map[string]int of the same entries (the type the field had before).
func slotsMatchMap(t *testing.T, ivs []IntervalOut) {
	t.Helper()
	for _, iv := range ivs {
		var m map[string]int
		if iv.Slots != nil {
			m = map[string]int{}
			for _, e := range iv.Slots {
				m[e.ID] = e.Slots
			}
		}
		want, _ := json.Marshal(m)
		if got := iv.Slots.appendJSON(nil); !bytes.Equal(got, want) {
			t.Fatalf("slots %s, as a map %s", got, want)
		}
	}
}

// A float JSON cannot hold is an error, wherever it sits, as with
// json.Marshal.
func TestAppendJSONRefusesNaN(t *testing.T) {
	inf := math.Inf(1)
	for i, r := range []*Result{
		{Objective: math.NaN()},
		{Intervals: []IntervalOut{{End: math.Inf(1)}}},
		{Jobs: []JobOut{{Penalty: math.NaN()}}},
		{Baselines: Baselines{Fair: Baseline{Ratio: &inf}}},
		{Candidates: []CandOut{{Objective: math.Inf(-1)}}},
	} {
		if _, err := json.Marshal(r); err == nil {
			t.Fatalf("case %d: json.Marshal accepted it", i)
		}
		if _, err := r.AppendJSON(nil); err == nil {
			t.Errorf("case %d: AppendJSON accepted a float JSON cannot hold", i)
		}
	}
}
