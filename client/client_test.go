package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/problems"
)

// TestClientSolvesEveryExample: the typed layer decodes every problem's
// example into its typed request, solves it, and draws its picture.
func TestClientSolvesEveryExample(t *testing.T) {
	ts := httptest.NewServer(newServer(t).Handler())
	defer ts.Close()
	api, err := New(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	calls := solves(api)
	if len(calls) != len(problems.All()) {
		t.Errorf("the test calls %d problems, the server has %d: add the new one to solves", len(calls), len(problems.All()))
	}
	for example, call := range calls {
		raw, err := os.ReadFile(filepath.Join("..", "examples", example+".json"))
		if err != nil {
			t.Fatal(err)
		}
		meta, svg, err := call(context.Background(), raw)
		switch {
		case err != nil:
			t.Errorf("%s: %v", example, err)
		case !slices.Contains([]string{"optimal", "feasible", "timeout"}, string(meta.Status)):
			t.Errorf("%s: meta %+v", example, meta)
		case meta.InputSha256 != canonicalHash(t, raw):
			t.Errorf("%s: the server hashed another request than the example: the typed request lost or changed a field", example)
		case !bytes.HasPrefix(svg, []byte("<svg")) && !bytes.HasPrefix(svg, []byte("<?xml")):
			t.Errorf("%s: picture %.40q", example, svg)
		}
	}
}

// canonicalHash is meta.input_sha256 of raw as the server computes it
// (budget_ms left out).
func canonicalHash(t *testing.T, raw []byte) string {
	t.Helper()
	doc, err := solver.DecodeAny(raw)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := solver.CanonicalHash(doc)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// solveFunc solves one example through a typed method and draws it: the
// typed answer's meta and the picture.
type solveFunc func(ctx context.Context, raw []byte) (CommonMeta, []byte, error)

// solves maps every example (examples/NAME.json) to its problem's typed
// methods.
func solves(a *API) map[string]solveFunc {
	return map[string]solveFunc{
		"cmmf":               typed(a.Cmmf, a.CmmfPicture, func(r *CmmfResponse) CommonMeta { return r.Meta }),
		"flex":               typed(a.Flex, a.FlexPicture, func(r *FlexResponse) CommonMeta { return r.Meta }),
		"fairshare":          typed(a.Fairshare, a.FairsharePicture, func(r *FairshareResponse) CommonMeta { return r.Meta }),
		"xsize":              typed(a.Xsize, a.XsizePicture, func(r *XsizeResponse) CommonMeta { return r.Meta }),
		"xselect":            typed(a.Xselect, a.XselectPicture, func(r *XselectResponse) CommonMeta { return r.Meta }),
		"tetris-assign":      typed(a.TetrisAssign, a.TetrisAssignPicture, func(r *TetrisAssignResponse) CommonMeta { return r.Meta }),
		"tetris-simulate":    typed(a.TetrisSimulate, a.TetrisSimulatePicture, func(r *TetrisSimulateResponse) CommonMeta { return r.Meta }),
		"xschedule-assign":   typed(a.XscheduleAssign, a.XscheduleAssignPicture, func(r *XscheduleAssignResponse) CommonMeta { return r.Meta }),
		"xschedule-simulate": typed(a.XscheduleSimulate, a.XscheduleSimulatePicture, func(r *XscheduleSimulateResponse) CommonMeta { return r.Meta }),
		"xflex-plan":         typed(a.XflexPlan, a.XflexPlanPicture, func(r *XflexPlanResponse) CommonMeta { return r.Meta }),
	}
}

// typed decodes the example into its typed request (so the generated
// types must hold it), solves it and draws it.
func typed[Req, Resp any](solve func(context.Context, Req) (*Resp, error), draw func(context.Context, Req) ([]byte, error),
	meta func(*Resp) CommonMeta) solveFunc {
	return func(ctx context.Context, raw []byte) (CommonMeta, []byte, error) {
		var req Req
		if err := json.Unmarshal(raw, &req); err != nil {
			return CommonMeta{}, nil, err
		}
		resp, err := solve(ctx, req)
		if err != nil {
			return CommonMeta{}, nil, err
		}
		svg, err := draw(ctx, req)
		return meta(resp), svg, err
	}
}

// TestClientRunsAJob: the typed layer submits the cmmf example as a job
// and as a scenario with a typed patch, waits for them and reads their
// answers and pictures.
func TestClientRunsAJob(t *testing.T) {
	ts := httptest.NewServer(newServer(t).Handler())
	defer ts.Close()
	api, err := New(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join("..", "examples", "cmmf.json"))
	if err != nil {
		t.Fatal(err)
	}
	var input CmmfRequest
	if err := json.Unmarshal(raw, &input); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	job, err := api.SubmitCmmf(ctx, JobsSubmitCmmf{Input: input})
	if err != nil {
		t.Fatal(err)
	}
	if job, err = api.Wait(ctx, job.Id); err != nil || job.State != JobsJobStateSucceeded {
		t.Fatalf("wait: %v %+v", err, job)
	}
	answer, err := Result[CmmfResponse](ctx, api, job.Id)
	if err != nil || answer.Meta.InputSha256 != canonicalHash(t, raw) || len(answer.Result.Users) == 0 {
		t.Errorf("the job's answer: %v %+v", err, answer)
	}
	if svg, err := api.JobPicture(ctx, job.Id); err != nil || !bytes.Contains(svg, []byte("<svg")) {
		t.Errorf("the job's picture: %v %.40q", err, svg)
	}

	// A scenario: the typed patch flips the divisible flag (default true).
	div := !(input.Divisible == nil || *input.Divisible)
	scen := JobsSubmitCmmf{Input: input}
	scen.Variants = &[]struct {
		Description *string       `json:"description,omitempty"`
		Name        CommonName    `json:"name"`
		Patch       JobsPatchCmmf `json:"patch"`
	}{{Name: "flipped", Patch: JobsPatchCmmf{Divisible: &div}}}
	sj, err := api.SubmitCmmf(ctx, scen, WithIdempotencyKey("scenario-1"))
	if err != nil {
		t.Fatal(err)
	}
	again, err := api.SubmitCmmf(ctx, scen, WithIdempotencyKey("scenario-1"))
	if err != nil || again.Id != sj.Id {
		t.Errorf("the same Idempotency-Key and body made another job: %v %s %s", err, sj.Id, again.Id)
	}
	if sj, err = api.Wait(ctx, sj.Id); err != nil || sj.State != JobsJobStateSucceeded {
		t.Fatalf("scenario: %v %+v", err, sj)
	}
	cmp, err := Result[JobsComparison](ctx, api, sj.Id)
	if err != nil || len(cmp.Rows) == 0 {
		t.Errorf("the scenario's comparison: %v %+v", err, cmp)
	}
}

// TestClientError: a refused request is an *Error carrying the problem
// document's pointers.
func TestClientError(t *testing.T) {
	ts := httptest.NewServer(newServer(t).Handler())
	defer ts.Close()
	api, err := New(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	_, err = api.Cmmf(context.Background(), CmmfRequest{})
	var e *Error
	if !errors.As(err, &e) || e.Status != 422 || e.Problem == nil || e.Problem.Errors == nil || len(*e.Problem.Errors) == 0 {
		t.Fatalf("an empty cmmf request: %v", err)
	}
}
