// Package solvertest has helpers for testing problems end to end through the
// same Runner the HTTP API and CLI use: schema validation of the request,
// solving, schema validation of the response, and determinism.
package solvertest

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"testing"
	"time"

	"github.com/xflex/xflex/solver"
)

// elapsed matches the only field allowed to differ between two runs.
var elapsed = regexp.MustCompile(`"elapsed_ms":[0-9.eE+-]+`)

// Run solves raw through a Runner holding only p and returns the response
// marshalled to JSON, or the *solver.Error.
func Run(t testing.TB, p solver.Problem, raw []byte) ([]byte, *solver.Error) {
	t.Helper()
	r, err := solver.NewRunner([]solver.Problem{p}, 0)
	if err != nil {
		t.Fatalf("NewRunner: %v", err)
	}
	resp, err := r.Run(context.Background(), p.Name, raw)
	if err != nil {
		xe, ok := err.(*solver.Error)
		if !ok {
			t.Fatalf("Run returned %T, want *solver.Error: %v", err, err)
		}
		return nil, xe
	}
	b, err := json.Marshal(resp)
	if err != nil {
		t.Fatalf("marshal response: %v", err)
	}
	// The wire encoder (Response.AppendJSON, which results may implement
	// by hand) must write exactly json.Marshal's bytes.
	if c, err := resp.AppendJSON(nil); err != nil || !bytes.Equal(c, b) {
		t.Fatalf("Response.AppendJSON differs from json.Marshal (error %v):\n%.2000s\n%.2000s", err, c, b)
	}
	// What the front ends write is the same bytes and a newline.
	if !bytes.Equal(resp.Wire, append(b, '\n')) {
		t.Fatalf("Response.Wire differs from json.Marshal:\n%.2000s\n%.2000s", resp.Wire, b)
	}
	return b, nil
}

// Check runs raw twice, fails the test on any error, validates the response
// against p.ResponseSchema, checks that both runs are byte-identical apart
// from meta.elapsed_ms, and returns the decoded response.
func Check(t testing.TB, p solver.Problem, raw []byte) map[string]any {
	t.Helper()
	a, xe := Run(t, p, raw)
	if xe != nil {
		t.Fatalf("solve failed: %v", xe)
	}
	b, xe := Run(t, p, raw)
	if xe != nil {
		t.Fatalf("second solve failed: %v", xe)
	}
	if !bytes.Equal(elapsed.ReplaceAll(a, nil), elapsed.ReplaceAll(b, nil)) {
		t.Fatalf("two runs of the same input differ:\n%s\n%s", a, b)
	}
	r, _ := solver.NewRunner(nil, 0)
	doc, err := solver.DecodeAny(a)
	if err != nil {
		t.Fatalf("response is not JSON: %v", err)
	}
	if vs := r.Schemas().Validate(p.ResponseSchema, doc); len(vs) > 0 {
		t.Fatalf("response violates %s: %+v\n%s", p.ResponseSchema, vs, a)
	}
	var out map[string]any
	if err := json.Unmarshal(a, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// ExpectError runs raw and fails unless it is rejected with the given kind;
// it returns the error for further checks (e.g. on Violations' pointers).
func ExpectError(t testing.TB, p solver.Problem, raw []byte, kind solver.Kind) *solver.Error {
	t.Helper()
	_, xe := Run(t, p, raw)
	if xe == nil {
		t.Fatalf("expected a %s error, got success", kind)
	}
	if xe.Kind != kind {
		t.Fatalf("expected a %s error, got %s: %v", kind, xe.Kind, xe)
	}
	return xe
}

// SolveExpired runs p's Solve on raw with a deadline already past (an
// expired budget, deterministically) and checks the answer a solver owes
// then: status timeout with an objective, a proven bound no better than
// it (maximisation: objective ≤ bound) and their RelGap; a gap of 0 only
// with ObjectiveProven and a note. It returns the result and meta.
func SolveExpired(t testing.TB, p solver.Problem, raw []byte) (any, solver.Meta) {
	t.Helper()
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	out, meta, err := p.Solve(ctx, raw, solver.Options{Budget: time.Millisecond, Start: time.Now()})
	if err != nil {
		t.Fatalf("expired budget: %v", err)
	}
	if meta.Status != solver.StatusTimeout || meta.Objective == nil || meta.Bound == nil || meta.Gap == nil {
		t.Fatalf("meta %+v, want timeout with objective, bound and gap", meta)
	}
	if *meta.Objective > *meta.Bound || *meta.Gap != solver.RelGap(*meta.Objective, *meta.Bound) {
		t.Fatalf("objective %v, bound %v, gap %v inconsistent", *meta.Objective, *meta.Bound, *meta.Gap)
	}
	if *meta.Gap == 0 && (!meta.ObjectiveProven || len(meta.Notes) == 0) {
		t.Fatalf("gap 0 on a timeout without proving the objective and saying so: %q", meta.Notes)
	}
	return out, meta
}
