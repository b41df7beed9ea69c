package problems_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/problems"
)

var update = flag.Bool("update", false, "rewrite testdata/responses/*")

// elapsedMS matches meta.elapsed_ms, the one field of a response that
// differs between two runs of the same request.
var elapsedMS = regexp.MustCompile(`"elapsed_ms":[0-9.eE+-]+`)

// storedRequest is one request the stored-responses test runs: where it
// came from and the golden file that holds its answer.
type storedRequest struct {
	problem string // the problem's CLI name
	source  string // the request file
	golden  string // testdata/responses/PROBLEM/NAME.json
}

// storedRequests lists every example request (examples/PROBLEM.json), every
// problem's testdata requests, the robustness corpus's requests and the
// bad requests kept here (testdata/requests/PROBLEM-*.json), sorted.
func storedRequests(t *testing.T, ps []solver.Problem) []storedRequest {
	t.Helper()
	var out []storedRequest
	add := func(p solver.Problem, prefix, pattern string) {
		files, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			name := prefix + strings.TrimSuffix(filepath.Base(f), ".json")
			out = append(out, storedRequest{problem: p.Command(), source: f,
				golden: filepath.Join("testdata", "responses", p.Command(), name+".json")})
		}
	}
	for _, p := range ps {
		add(p, "example-", filepath.Join("..", "..", "examples", p.Command()+".json"))
		add(p, "testdata-", filepath.Join("..", filepath.FromSlash(p.Name), "testdata", "*.json"))
		add(p, "robust-", filepath.Join("..", "robust", "testdata", p.Command()+"-*.json"))
		add(p, "bad-", filepath.Join("testdata", "requests", p.Command()+"-*.json"))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].golden < out[j].golden })
	return out
}

// answer is what `xflex solve PROBLEM FILE` prints for raw: the response
// body, or the problem+json document of the error, with meta.elapsed_ms
// zeroed.
func answer(t *testing.T, r *solver.Runner, p solver.Problem, raw []byte) []byte {
	t.Helper()
	resp, err := r.Run(context.Background(), p.Name, raw)
	if err != nil {
		var xe *solver.Error
		if !errors.As(err, &xe) {
			t.Fatalf("untyped error %v", err)
		}
		return httpapi.FromError(xe, "/v1/"+p.Name, "").Encode()
	}
	return elapsedMS.ReplaceAll(resp.Wire, []byte(`"elapsed_ms":0`))
}

// Every example and test request answers with the stored bytes (elapsed_ms
// zeroed): refactoring a problem's front door (decode, validate, build,
// solve, encode) must not change one byte of any answer or error. Run
// with -update to rewrite the stored responses after a deliberate change.
func TestStoredResponses(t *testing.T) {
	r, err := solver.NewRunner(problems.All(), 0)
	if err != nil {
		t.Fatal(err)
	}
	reqs := storedRequests(t, r.Problems())
	if len(reqs) < 60 {
		t.Fatalf("found %d requests; the examples and testdata hold more", len(reqs))
	}
	seen := map[string]bool{}
	for _, sr := range reqs {
		seen[sr.golden] = true
		t.Run(strings.TrimSuffix(strings.TrimPrefix(sr.golden, filepath.Join("testdata", "responses")+string(filepath.Separator)), ".json"), func(t *testing.T) {
			raw, err := os.ReadFile(sr.source)
			if err != nil {
				t.Fatal(err)
			}
			p, _ := r.Lookup(sr.problem)
			got := answer(t, r, p, raw)
			if *update {
				if err := os.MkdirAll(filepath.Dir(sr.golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(sr.golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(sr.golden)
			if err != nil {
				t.Fatalf("%v (run with -update to store it)", err)
			}
			if clockBound(want) {
				if !finished(got) {
					t.Errorf("%s: a timeout's answer is now neither a timeout nor a finished solve: %.300s", sr.source, got)
				}
				if g, w := outline(t, got), outline(t, want); g != w {
					t.Errorf("%s: a timeout's outline differs from %s:\ngot  %.600s\nwant %.600s", sr.source, sr.golden, g, w)
				}
				return
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: answer differs from %s at byte %d:\ngot  %.600s\nwant %.600s", sr.source, sr.golden, firstDiff(got, want), got, want)
			}
		})
	}
	stale, _ := filepath.Glob(filepath.Join("testdata", "responses", "*", "*.json"))
	for _, f := range stale {
		if !seen[f] {
			t.Errorf("%s answers no request any more; delete it", f)
		}
	}
}

// firstDiff is the index of the first byte where a and b differ.
func firstDiff(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// clockBound reports whether a stored answer is a timeout: how much work
// fit in its budget (trials run, moves tried) depends on the machine's
// load, so its values differ from run to run.
func clockBound(answer []byte) bool {
	return bytes.Contains(answer, []byte(`"status":"timeout"`))
}

// finished reports whether an answer is a solve that returned: a timeout,
// or, on a machine quiet enough to finish within the budget, feasible or
// optimal.
func finished(answer []byte) bool {
	for _, st := range []string{"timeout", "feasible", "optimal"} {
		if bytes.Contains(answer, []byte(`"status":"`+st+`"`)) {
			return true
		}
	}
	return false
}

// outline is what a timeout's answer keeps from run to run: meta's
// solver, input_sha256, budget_ms and seed, and the answer's keys. Not its
// status (the same request may finish within its
// budget on a quiet machine and time out on a loaded one; finished checks
// it) nor the result's shape: how much of a result a clock-bound solve
// writes depends on how far it got (fairshare's compare lists the policies
// it finished, each with its own fields; a bound and gap come with some
// stopping points and not others).
func outline(t *testing.T, answer []byte) string {
	t.Helper()
	doc, err := solver.DecodeAny(answer)
	if err != nil {
		t.Fatalf("answer is not JSON: %v", err)
	}
	m, _ := doc.(map[string]any)
	meta, _ := m["meta"].(map[string]any)
	var b strings.Builder
	for _, k := range []string{"solver", "input_sha256", "budget_ms", "seed"} {
		fmt.Fprintf(&b, "%s=%v ", k, meta[k])
	}
	return b.String() + keys(m)
}

// keys lists m's keys, sorted.
func keys(m map[string]any) string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return fmt.Sprint(ks)
}
