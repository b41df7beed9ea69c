package fairshare

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/xflex/xflex/solver"
)

// TestAppendJSONMatchesMarshal: the reflection-free encoder writes
// json.Marshal's bytes for every testdata answer (compare, trials,
// selections), a cut one, and hand-made results (nil and empty maps and
// slices, omitted members, escaped names).
func TestAppendJSONMatchesMarshal(t *testing.T) {
	var results []*Result
	files, _ := filepath.Glob("testdata/*.json")
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		res, _, err := Solve(context.Background(), raw, solver.Options{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		results = append(results, res.(*Result))
		expired, cancel := context.WithCancel(context.Background())
		cancel()
		if res, _, err = Solve(expired, raw, solver.Options{}); err == nil {
			results = append(results, res.(*Result))
		}
	}
	one, tiny := 1.0, 5e-324
	results = append(results, &Result{}, nil,
		&Result{Policy: "p\u2028", Selection: "rrr", Criterion: "tasks", Integer: true, Trials: 3, MeanTotalTasks: &one, SDTotalTasks: &tiny,
			Frameworks: []FrameworkResult{{Name: "f<&>\"\xff", ByServer: map[string]float64{"z": 1e21, "a\n": 1e-7}, MeanByServer: map[string]float64{"s": 2},
				SDByServer: map[string]float64{}, MeanTotal: &one}, {Name: "g", ByServer: map[string]float64{}}},
			Unused: map[string][]float64{"b": {1, 0}, "a\"é": nil, "c": {}}, Objective: &one, Bound: &one, Gap: &tiny, Status: "timeout", ElapsedMS: &one,
			Compare: []*Result{{Policy: "drf", Unused: map[string][]float64{}}, nil}},
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
	for _, r := range []*Result{{Unused: map[string][]float64{"a": {math.NaN()}}}, {Frameworks: []FrameworkResult{{Share: math.Inf(1)}}}} {
		if _, err := r.AppendJSON(nil); err == nil {
			t.Fatal("a float JSON cannot hold was encoded")
		}
	}
}
