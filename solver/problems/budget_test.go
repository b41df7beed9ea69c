package problems_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/problems"
)

// requests gathers a problem's requests: its testdata, the robustness
// corpus's files for it and two generated instances.
func requests(t *testing.T, p solver.Problem) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	files, _ := filepath.Glob(filepath.Join("..", filepath.FromSlash(p.Name), "testdata", "*.json"))
	robust, _ := filepath.Glob(filepath.Join("..", "robust", "testdata", p.Command()+"-*.json"))
	for _, f := range append(files, robust...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = b
	}
	for _, seed := range []int64{1, 2} {
		v, err := p.Generate(seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out[fmt.Sprintf("generated, seed %d", seed)] = b
	}
	return out
}

// withBudget sets budget_ms in a request object.
func withBudget(t *testing.T, raw []byte, ms int) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	m["budget_ms"], _ = json.Marshal(ms)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every problem, every request, cut at 1 and 10 ms: a cut budget is never
// a 4xx that the uncut request does not also get (issue 15, defect 3), and
// every answer's meta is consistent (defect 4): gap present exactly when
// objective and bound are, equal to RelGap of them; a timeout never claims
// a gap of zero unless its objective is proven (and a note says so); an
// optimum's gap is zero; the body written is AppendJSON's and validates
// against the response schema.
func TestCutBudgetInvariants(t *testing.T) {
	r, err := solver.NewRunner(problems.All(), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Problems() {
		for name, raw := range requests(t, p) {
			var uncut *solver.Error
			uncutDone := false
			for _, ms := range []int{1, 10} {
				body := withBudget(t, raw, ms)
				resp, err := r.Run(context.Background(), p.Name, body)
				if err != nil {
					var xe *solver.Error
					if !errors.As(err, &xe) {
						t.Fatalf("%s %s: untyped error %v", p.Name, name, err)
					}
					if xe.Kind == solver.KindBudget {
						continue
					}
					if !uncutDone {
						_, e := r.Run(context.Background(), p.Name, raw)
						errors.As(e, &uncut)
						uncutDone = true
					}
					if uncut == nil || uncut.Kind != xe.Kind {
						t.Errorf("%s %s at %d ms: %v; uncut: %v", p.Name, name, ms, xe, uncut)
					}
					continue
				}
				checkMeta(t, p.Name+" "+name, resp.Meta)
				b, err := resp.AppendJSON(nil)
				if err != nil || !bytes.Equal(resp.Wire, append(b, '\n')) {
					t.Errorf("%s %s: Wire is not AppendJSON's bytes (%v)", p.Name, name, err)
				}
				doc, err := solver.DecodeAny(b)
				if err != nil {
					t.Fatalf("%s %s: %v", p.Name, name, err)
				}
				if vs := r.Schemas().Validate(p.ResponseSchema, doc); len(vs) > 0 {
					t.Errorf("%s %s at %d ms: response violates its schema: %s: %s", p.Name, name, ms, vs[0].Pointer, vs[0].Message)
				}
			}
		}
	}
}

// optimalGap is the largest gap an optimal answer may carry: the solvers'
// own optimality tolerances are relative 1e-6 at most.
const optimalGap = 1e-6

func checkMeta(t *testing.T, what string, m solver.Meta) {
	t.Helper()
	switch m.Status {
	case solver.StatusOptimal, solver.StatusFeasible, solver.StatusTimeout:
	default:
		t.Errorf("%s: status %q", what, m.Status)
	}
	both := m.Objective != nil && m.Bound != nil
	if both != (m.Gap != nil) {
		t.Errorf("%s: objective %v, bound %v, gap %v: gap must be there exactly when both are", what, m.Objective, m.Bound, m.Gap)
		return
	}
	if !both {
		return
	}
	gap := solver.RelGap(*m.Objective, *m.Bound)
	if math.Abs(*m.Gap-gap) > 1e-12 {
		t.Errorf("%s: gap %v, RelGap(%v, %v) = %v", what, *m.Gap, *m.Objective, *m.Bound, gap)
	}
	if m.Status == solver.StatusTimeout && *m.Gap <= solver.OptimalGap && (!m.ObjectiveProven || len(m.Notes) == 0) {
		t.Errorf("%s: timeout claims gap %v without proving its objective and saying so", what, *m.Gap)
	}
	if m.Status == solver.StatusOptimal && *m.Gap > optimalGap {
		t.Errorf("%s: optimal with gap %v", what, *m.Gap)
	}
}
