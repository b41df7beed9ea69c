package apiclient

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/problems"
)

// TestClientSolvesEveryExample: the generated client decodes every
// problem's example into its typed request, posts it to a server, and
// decodes the typed answer.
func TestClientSolvesEveryExample(t *testing.T) {
	ts := httptest.NewServer(newServer(t).Handler())
	defer ts.Close()
	c, err := NewClientWithResponses(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	calls := solves(c)
	if len(calls) != len(problems.All()) {
		t.Errorf("the test calls %d problems, the server has %d: add the new one to solves", len(calls), len(problems.All()))
	}
	for example, call := range calls {
		raw, err := os.ReadFile(filepath.Join("..", "..", "examples", example+".json"))
		if err != nil {
			t.Fatal(err)
		}
		code, meta, err := call(context.Background(), raw)
		switch {
		case err != nil:
			t.Errorf("%s: %v", example, err)
		case code != http.StatusOK || meta == nil:
			t.Errorf("%s: status %d, typed answer %v", example, code, meta)
		case !slices.Contains([]string{"optimal", "feasible", "timeout"}, string(meta.Status)):
			t.Errorf("%s: meta %+v", example, *meta)
		case meta.InputSha256 != canonicalHash(t, raw):
			t.Errorf("%s: the server hashed another request than the example: the typed request lost or changed a field", example)
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

// solveFunc posts one example through a generated method: the HTTP status
// and the typed answer's meta (nil when it did not decode).
type solveFunc func(ctx context.Context, raw []byte) (int, *CommonMeta, error)

// solves maps every example (examples/NAME.json) to its problem's typed
// generated method.
func solves(c *ClientWithResponses) map[string]solveFunc {
	return map[string]solveFunc{
		"cmmf": typed(c.SolveCmmfWithResponse, func(r *SolveCmmfResponse) *CommonMeta {
			return metaOf(r.JSON200, func(v *CmmfResponse) CommonMeta { return v.Meta })
		}),
		"flex": typed(c.SolveFlexWithResponse, func(r *SolveFlexResponse) *CommonMeta {
			return metaOf(r.JSON200, func(v *FlexResponse) CommonMeta { return v.Meta })
		}),
		"fairshare": typed(c.SolveFairshareWithResponse, func(r *SolveFairshareResponse) *CommonMeta {
			return metaOf(r.JSON200, func(v *FairshareResponse) CommonMeta { return v.Meta })
		}),
		"xsize": typed(c.SolveXsizeWithResponse, func(r *SolveXsizeResponse) *CommonMeta {
			return metaOf(r.JSON200, func(v *XsizeResponse) CommonMeta { return v.Meta })
		}),
		"xselect": typed(c.SolveXselectWithResponse, func(r *SolveXselectResponse) *CommonMeta {
			return metaOf(r.JSON200, func(v *XselectResponse) CommonMeta { return v.Meta })
		}),
		"tetris-assign": typed(c.SolveTetrisAssignWithResponse, func(r *SolveTetrisAssignResponse) *CommonMeta {
			return metaOf(r.JSON200, func(v *TetrisAssignResponse) CommonMeta { return v.Meta })
		}),
		"tetris-simulate": typed(c.SolveTetrisSimulateWithResponse, func(r *SolveTetrisSimulateResponse) *CommonMeta {
			return metaOf(r.JSON200, func(v *TetrisSimulateResponse) CommonMeta { return v.Meta })
		}),
		"xschedule-assign": typed(c.SolveXscheduleAssignWithResponse, func(r *SolveXscheduleAssignResponse) *CommonMeta {
			return metaOf(r.JSON200, func(v *XscheduleAssignResponse) CommonMeta { return v.Meta })
		}),
		"xschedule-simulate": typed(c.SolveXscheduleSimulateWithResponse, func(r *SolveXscheduleSimulateResponse) *CommonMeta {
			return metaOf(r.JSON200, func(v *XscheduleSimulateResponse) CommonMeta { return v.Meta })
		}),
		"xflex-plan": typed(c.SolveXflexPlanWithResponse, func(r *SolveXflexPlanResponse) *CommonMeta {
			return metaOf(r.JSON200, func(v *XflexPlanResponse) CommonMeta { return v.Meta })
		}),
	}
}

// typed wraps a generated SolveXWithResponse: the example is decoded into
// its typed request first, so the generated request types must hold it.
func typed[Req any, Resp interface{ StatusCode() int }](call func(context.Context, Req, ...RequestEditorFn) (Resp, error), meta func(Resp) *CommonMeta) solveFunc {
	return func(ctx context.Context, raw []byte) (int, *CommonMeta, error) {
		var req Req
		if err := json.Unmarshal(raw, &req); err != nil {
			return 0, nil, err
		}
		resp, err := call(ctx, req)
		if err != nil {
			return 0, nil, err
		}
		return resp.StatusCode(), meta(resp), nil
	}
}

// metaOf is the meta of a decoded answer, or nil.
func metaOf[T any](v *T, get func(*T) CommonMeta) *CommonMeta {
	if v == nil {
		return nil
	}
	m := get(v)
	return &m
}

// TestClientRunsAJob: the generated client submits the cmmf example as a
// job, polls it until it finishes and reads its answer through the typed
// union of the result endpoint.
func TestClientRunsAJob(t *testing.T) {
	ts := httptest.NewServer(newServer(t).Handler())
	defer ts.Close()
	c, err := NewClientWithResponses(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join("..", "..", "examples", "cmmf.json"))
	if err != nil {
		t.Fatal(err)
	}
	var input map[string]any
	if err := json.Unmarshal(raw, &input); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sub, err := c.SubmitJobWithResponse(ctx, &SubmitJobParams{}, JobsSubmit{Problem: "cmmf", Input: input})
	if err != nil || sub.JSON202 == nil {
		t.Fatalf("submit: %v %s", err, sub.Body)
	}
	id := sub.JSON202.Id
	state := sub.JSON202.State
	wait := "5s" // the server answers when the state changes
	for deadline := time.Now().Add(30 * time.Second); state != JobsJobStateSucceeded && time.Now().Before(deadline); {
		got, err := c.GetJobWithResponse(ctx, id, &GetJobParams{Wait: &wait})
		if err != nil || got.JSON200 == nil {
			t.Fatalf("get: %v %s", err, got.Body)
		}
		state = got.JSON200.State
	}
	res, err := c.GetJobResultWithResponse(ctx, id, &GetJobResultParams{})
	if err != nil || res.JSON200 == nil {
		t.Fatalf("result of job %s (%s): %v %s", id, state, err, res.Body)
	}
	answer, err := res.JSON200.AsCmmfResponse()
	if err != nil || answer.Meta.InputSha256 != canonicalHash(t, raw) || len(answer.Result.Users) == 0 {
		t.Errorf("the job's answer: %v %+v", err, answer.Meta)
	}
}
