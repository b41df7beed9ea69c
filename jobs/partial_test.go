package jobs

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestPartialResult: while a job whose solver offers its incumbents runs,
// GET .../result?partial=true answers the best answer so far, marked
// partial (header and meta.partial, meta.status feasible); without
// partial=true the answer stays 409 not_finished; a solver that offered
// nothing answers 409 no_partial; a bad partial is a 422 naming it; once
// finished (here: cancelled, keeping its best answer), partial=true
// answers the final result, unmarked, and the partial answer is gone
// from the store.
func TestPartialResult(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, store string) {
		h := newHarness(t, store, Config{Workers: 2})
		offering := h.submit(job(sleepInput(60000, 10, "offer", "true")))
		silent := h.submit(job(sleepInput(60000, 10)))
		h.waitFor(silent, "running", func(j Job) bool { return j.State == StateRunning })

		if r := h.do("GET", "/v1/jobs/"+offering+"/result?partial=maybe", nil); r.status != http.StatusUnprocessableEntity ||
			!strings.Contains(string(r.body), `"/query/partial"`) {
			t.Errorf("bad partial: %d %s", r.status, r.body)
		}
		if r := h.do("GET", "/v1/jobs/"+silent+"/result?partial=true", nil); r.status != http.StatusConflict ||
			!strings.Contains(string(r.body), "no_partial") {
			t.Errorf("silent solver: %d %s", r.status, r.body)
		}
		r := h.waitPartial(offering)
		{
			var body struct {
				Result struct {
					Lambda float64 `json:"lambda"`
				} `json:"result"`
				Meta map[string]any `json:"meta"`
			}
			if err := json.Unmarshal(r.body, &body); err != nil {
				t.Fatal(err)
			}
			if r.header.Get("X-Xflex-Partial") != "true" || body.Meta["partial"] != true || body.Meta["status"] != "feasible" ||
				body.Meta["solver"] != "test/sleep" || body.Meta["input_sha256"] == "" || body.Result.Lambda <= 0 || body.Result.Lambda > 10 {
				t.Errorf("partial answer: %v %s", r.header, r.body)
			}
			if r := h.do("GET", "/v1/jobs/"+offering+"/result", nil); r.status != http.StatusConflict || !strings.Contains(string(r.body), "not_finished") {
				t.Errorf("without partial=true: %d %s", r.status, r.body)
			}
		}
		// Cancelled, the job keeps its best answer as its result.
		h.do("DELETE", "/v1/jobs/"+offering, nil)
		h.waitTerminal(offering)
		final := h.do("GET", "/v1/jobs/"+offering+"/result", nil)
		again := h.do("GET", "/v1/jobs/"+offering+"/result?partial=true", nil)
		if final.status != http.StatusOK || again.status != http.StatusOK || string(final.body) != string(again.body) ||
			again.header.Get("X-Xflex-Partial") != "" || strings.Contains(string(again.body), `"partial"`) {
			t.Errorf("finished job with partial=true: %d %v %s; without: %d %s", again.status, again.header, again.body, final.status, final.body)
		}
		if b, err := h.svc.st.partial(context.Background(), offering); err != nil || b != nil {
			t.Errorf("partial answer kept after the finish: %s %v", b, err)
		}
		h.do("DELETE", "/v1/jobs/"+silent, nil)
		h.waitTerminal(silent)
	})
}

// waitPartial polls .../result?partial=true until it answers 200 (the
// monitor stores an offer at its next tick).
func (h *harness) waitPartial(id string) reply {
	h.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		r := h.do("GET", "/v1/jobs/"+id+"/result?partial=true", nil)
		if r.status == http.StatusOK {
			if r.header.Get("X-Job-State") != string(StateRunning) {
				h.t.Fatalf("job %s answered partial=true while %s", id, r.header.Get("X-Job-State"))
			}
			return r
		}
		if r.status != http.StatusConflict || time.Now().After(deadline) {
			h.t.Fatalf("partial answer of %s: %d %s", id, r.status, r.body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
