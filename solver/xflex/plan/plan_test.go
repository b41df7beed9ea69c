package plan_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/problems"
	"github.com/xflex/xflex/solver/solvertest"
	"github.com/xflex/xflex/solver/xflex/plan"
)

// elapsed matches the only field allowed to differ between two answers
// to the same request (every stage's meta has one).
var elapsed = regexp.MustCompile(`"elapsed_ms":[0-9.eE+-]+`)

// testdata lists the plan's testdata requests.
func testdata(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	return files
}

// planned is a plan's answer as a test reads it.
type planned struct {
	Result struct {
		Stages map[string]json.RawMessage `json:"stages"`
		Mix    *plan.Mix                  `json:"mix"`
		Trace  plan.TraceInfo             `json:"trace"`
	} `json:"result"`
	Meta solver.Meta `json:"meta"`
}

// stageOf decodes one stage of a plan's answer.
func stageOf(t *testing.T, p *planned, name string) *plan.StageRun {
	t.Helper()
	raw, ok := p.Result.Stages[name]
	if !ok {
		t.Fatalf("stage %s did not run", name)
	}
	var run plan.StageRun
	if err := json.Unmarshal(raw, &run); err != nil {
		t.Fatal(err)
	}
	return &run
}

// TestTestdata: each testdata plan is answered twice the same bytes
// (elapsed aside), and the answer validates against the response schema.
func TestTestdata(t *testing.T) {
	for _, f := range testdata(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out := solvertest.Check(t, plan.Problem(), raw)
			if st := out["meta"].(map[string]any)["status"]; st != "feasible" {
				t.Fatalf("status %v, want feasible", st)
			}
		})
	}
}

// TestStagesMatchEndpoints runs each testdata plan and then, through a
// Runner serving every problem (as the HTTP API and `xflex solve` do),
// each stage's endpoint on the stage request the plan reports: the
// answers must be the same bytes, meta.elapsed_ms aside.
func TestStagesMatchEndpoints(t *testing.T) {
	r, err := solver.NewRunner(problems.All(), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range testdata(t) {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := r.Run(context.Background(), "xflex/plan", raw)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var p planned
		if err := json.Unmarshal(resp.Wire, &p); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"xsize", "xselect", "simulate"} {
			run := stageOf(t, &p, name)
			endpoint := run.Endpoint[len("/v1/"):]
			direct, err := r.Run(context.Background(), endpoint, run.Request)
			if err != nil {
				t.Fatalf("%s: %s refuses the plan's request: %v", f, endpoint, err)
			}
			want := elapsed.ReplaceAll(bytes.TrimSuffix(direct.Wire, []byte("\n")), nil)
			got := elapsed.ReplaceAll(run.Response, nil)
			if !bytes.Equal(got, want) {
				t.Fatalf("%s: stage %s answer differs from POST %s:\nplan:     %.600s\nendpoint: %.600s", f, name, run.Endpoint, got, want)
			}
		}
	}
}

// TestGenerate: the generator is deterministic, refuses parameters out of
// range, and its plans are accepted with the trace size asked for.
func TestGenerate(t *testing.T) {
	a, err := plan.Generate(4, map[string]string{"nodes": "30", "requests": "500"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := plan.Generate(4, map[string]string{"nodes": "30", "requests": "500"})
	ra, _ := json.Marshal(a)
	rb, _ := json.Marshal(b)
	if !bytes.Equal(ra, rb) {
		t.Fatal("the same seed generated two plans")
	}
	for _, bad := range []map[string]string{{"dims": "5"}, {"nodes": "0"}, {"garbo": "9", "apps": "3"}, {"load": "-1"}, {"k": "x"}} {
		if _, err := plan.Generate(1, bad); err == nil {
			t.Errorf("Generate(%v) accepted", bad)
		}
	}
	out := solvertest.Check(t, plan.Problem(), ra)
	n := out["result"].(map[string]any)["trace"].(map[string]any)["requests"].(float64)
	if n < 400 || n > 600 {
		t.Fatalf("trace of %v requests, want about 500", n)
	}
}
