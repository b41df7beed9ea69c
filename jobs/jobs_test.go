package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/xflex/xflex/jobs/jobtest"
	"github.com/xflex/xflex/schemas"
	"github.com/xflex/xflex/solver"
)

func sleepInput(ms int, value float64, extra ...string) map[string]any {
	in := map[string]any{"ms": ms, "value": value, "budget_ms": 60000}
	for i := 0; i+1 < len(extra); i += 2 {
		var v any
		if err := json.Unmarshal([]byte(extra[i+1]), &v); err != nil {
			panic(err)
		}
		in[extra[i]] = v
	}
	return in
}

func job(input map[string]any) map[string]any {
	return map[string]any{"problem": jobtest.Name, "input": input}
}

// checkSchema validates a response body against one of the embedded job
// schemas, so the documented wire format and the code agree.
func checkSchema(t *testing.T, name string, body []byte) {
	t.Helper()
	set, err := schemas.Load()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := solver.DecodeAny(body)
	if err != nil {
		t.Fatal(err)
	}
	if vs := set.Validate(name, doc); len(vs) > 0 {
		t.Errorf("%s does not match %s: %v", body, name, vs)
	}
}

// TestResultMatchesSynchronous: a job's result is the body POST
// /v1/{problem} returns for the same input, for a success and a failure.
func TestResultMatchesSynchronous(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, store string) {
		h := newHarness(t, store, Config{})
		ok := sleepInput(30, 2.5, "nodes", `[{"name":"a","cap":3},{"name":"b","cap":1}]`)
		bad := sleepInput(0, 1, "fail", "true")
		for name, in := range map[string]map[string]any{"ok": ok, "infeasible": bad} {
			id := h.submit(job(in))
			j := h.waitTerminal(id)
			async := h.do("GET", "/v1/jobs/"+id+"/result", nil)
			sync := h.do("POST", "/v1/"+jobtest.Name, in)
			if async.status != sync.status {
				t.Fatalf("%s: result status %d, synchronous %d (%s)", name, async.status, sync.status, async.body)
			}
			if name == "ok" {
				if j.State != StateSucceeded || j.Error != nil || j.StartedAt == nil || j.FinishedAt == nil || j.ExpiresAt == nil {
					t.Errorf("ok: job %+v", j)
				}
				if stripElapsed(async.body) != stripElapsed(sync.body) {
					t.Errorf("result differs from synchronous solve:\n%s\n%s", async.body, sync.body)
				}
				continue
			}
			if j.State != StateFailed || j.Error == nil || j.Error.Status != http.StatusUnprocessableEntity {
				t.Fatalf("infeasible: job %+v", j)
			}
			a, s := async.json(t), sync.json(t)
			delete(a, "request_id")
			delete(s, "request_id")
			ab, _ := json.Marshal(a)
			sb, _ := json.Marshal(s)
			if string(ab) != string(sb) {
				t.Errorf("error differs from synchronous solve:\n%s\n%s", ab, sb)
			}
			if ct := async.header.Get("Content-Type"); ct != "application/problem+json" {
				t.Errorf("failed result Content-Type %q", ct)
			}
		}
		checkSchema(t, "jobs.job.json", h.do("GET", "/v1/jobs/"+h.submit(job(ok)), nil).body)
	})
}

// TestProgressAndCancel: a running job reports the solver's progress, and
// DELETE stops it promptly with the best answer so far kept as its result.
func TestProgressAndCancel(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, store string) {
		h := newHarness(t, store, Config{})
		id := h.submit(job(sleepInput(50000, 4)))
		j := h.waitFor(id, "reporting progress", func(j Job) bool {
			return j.State == StateRunning && j.Progress.Phase == "sleeping" && j.Progress.Fraction != nil && *j.Progress.Fraction > 0
		})
		if j.Progress.Bound == nil || *j.Progress.Bound != 4 || j.Progress.Objective == nil || j.Progress.BudgetUsed == nil {
			t.Errorf("progress %+v: want bound 4, an objective and budget_used", j.Progress)
		}
		if j.StartedAt == nil || j.FinishedAt != nil {
			t.Errorf("running job timestamps: %+v", j)
		}
		if r := h.do("GET", "/v1/jobs/"+id+"/result", nil); r.status != http.StatusConflict {
			t.Errorf("result of a running job: %d, want 409", r.status)
		}
		r := h.do("DELETE", "/v1/jobs/"+id, nil)
		if r.status != http.StatusAccepted && r.status != http.StatusOK {
			t.Fatalf("cancel: %d %s", r.status, r.body)
		}
		j = h.waitTerminal(id)
		if j.State != StateCancelled {
			t.Fatalf("state %s, want cancelled", j.State)
		}
		res := h.do("GET", "/v1/jobs/"+id+"/result", nil)
		if res.status != http.StatusOK {
			t.Fatalf("result of cancelled job: %d %s", res.status, res.body)
		}
		var resp solver.Response
		if err := json.Unmarshal(res.body, &resp); err != nil {
			t.Fatal(err)
		}
		if resp.Meta.Status != solver.StatusCancelled || resp.Meta.Objective == nil || *resp.Meta.Objective >= 4 {
			t.Errorf("cancelled solve kept %+v, want status cancelled with a partial objective", resp.Meta)
		}
		if r := h.do("DELETE", "/v1/jobs/"+id, nil); r.status != http.StatusOK {
			t.Errorf("second cancel: %d, want 200", r.status)
		}
	})
}

// TestCancelQueued: a queued job is cancelled at once and never runs.
func TestCancelQueued(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, store string) {
		h := newHarness(t, store, Config{Workers: 1})
		first := h.submit(job(sleepInput(50000, 1)))
		h.waitFor(first, "running", func(j Job) bool { return j.State == StateRunning })
		second := h.submit(job(sleepInput(0, 1)))
		r := h.do("DELETE", "/v1/jobs/"+second, nil)
		if r.status != http.StatusOK {
			t.Fatalf("cancel queued: %d %s", r.status, r.body)
		}
		var j Job
		_ = json.Unmarshal(r.body, &j)
		if j.State != StateCancelled || j.StartedAt != nil {
			t.Fatalf("cancelled queued job: %+v", j)
		}
		if res := h.do("GET", "/v1/jobs/"+second+"/result", nil); res.status != http.StatusConflict ||
			!strings.Contains(string(res.body), "no_result") {
			t.Errorf("result of job cancelled while queued: %d %s", res.status, res.body)
		}
		h.do("DELETE", "/v1/jobs/"+first, nil)
		h.waitTerminal(first)
		if j := h.job(second); j.State != StateCancelled || j.Attempts != 0 {
			t.Errorf("cancelled queued job ran: %+v", j)
		}
		done := h.submit(job(sleepInput(0, 1)))
		h.waitTerminal(done)
		if r := h.do("DELETE", "/v1/jobs/"+done, nil); r.status != http.StatusConflict {
			t.Errorf("cancel of a succeeded job: %d, want 409", r.status)
		}
		if r := h.do("DELETE", "/v1/jobs/nope", nil); r.status != http.StatusNotFound {
			t.Errorf("cancel of an unknown job: %d, want 404", r.status)
		}
	})
}

// TestSubmitValidation: bad submissions are refused up front with the
// pointer of what is wrong.
func TestSubmitValidation(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storeURL(t, "sqlite"), Config{MaxVariants: 2})
	cases := []struct {
		name    string
		body    string
		hdr     []string
		status  int
		pointer string
	}{
		{"malformed", `{"problem":`, nil, 400, ""},
		{"no input", `{"problem":"test/sleep"}`, nil, 422, ""},
		{"extra field", `{"problem":"test/sleep","input":{"ms":1,"value":1},"x":1}`, nil, 422, ""},
		{"unknown problem", `{"problem":"nope","input":{}}`, nil, 422, "/problem"},
		{"input schema", `{"problem":"test/sleep","input":{"ms":-1,"value":1}}`, nil, 422, "/input/ms"},
		{"patch schema", `{"problem":"test/sleep","input":{"ms":1,"value":1},"variants":[{"name":"v","patch":{"value":"x"}}]}`, nil, 422, "/variants/0/patch/value"},
		{"patch removes required", `{"problem":"test/sleep","input":{"ms":1,"value":1},"variants":[{"name":"v","patch":{"value":null}}]}`, nil, 422, "/variants/0/patch"},
		{"duplicate variant", `{"problem":"test/sleep","input":{"ms":1,"value":1},"variants":[{"name":"v","patch":{}},{"name":"v","patch":{}}]}`, nil, 422, "/variants/1/name"},
		{"base name", `{"problem":"test/sleep","input":{"ms":1,"value":1},"variants":[{"name":"base","patch":{}}]}`, nil, 422, "/variants/0/name"},
		{"too many variants", `{"problem":"test/sleep","input":{"ms":1,"value":1},"variants":[{"name":"a","patch":{}},{"name":"b","patch":{}},{"name":"c","patch":{}}]}`, nil, 422, "/variants"},
		{"bad idempotency key", `{"problem":"test/sleep","input":{"ms":1,"value":1}}`, []string{"Idempotency-Key", "a b"}, 400, ""},
		{"empty idempotency key", `{"problem":"test/sleep","input":{"ms":1,"value":1}}`, []string{"Idempotency-Key", ""}, 400, ""},
	}
	for _, c := range cases {
		r := h.do("POST", "/v1/jobs", c.body, c.hdr...)
		if r.status != c.status {
			t.Errorf("%s: status %d, want %d (%s)", c.name, r.status, c.status, r.body)
			continue
		}
		if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
			t.Errorf("%s: Content-Type %q", c.name, ct)
		}
		if c.pointer != "" && !strings.Contains(string(r.body), `"pointer":"`+c.pointer) {
			t.Errorf("%s: no violation at %s in %s", c.name, c.pointer, r.body)
		}
	}
	req, _ := http.NewRequest("POST", h.srv.URL+"/v1/jobs", strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "text/plain")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain: %d, want 415", resp.StatusCode)
	}
	for _, p := range []string{"/v1/jobs/nope", "/v1/jobs/nope/result", "/v1/jobs/nope/variants/base/result"} {
		if r := h.do("GET", p, nil); r.status != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", p, r.status)
		}
	}
}

// TestTenantLimits: a tenant gets MaxRunningPerClient solves at once and
// MaxQueuedPerClient more in the queue; beyond that 429, while other
// tenants are unaffected.
func TestTenantLimits(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, store string) {
		h := newHarness(t, store, Config{Workers: 3, MaxRunningPerClient: 1, MaxQueuedPerClient: 1})
		a := []string{tenantHeader, "team-a"}
		j1 := h.submit(job(sleepInput(50000, 1)), a...)
		j2 := h.submit(job(sleepInput(50000, 1)), a...)
		r := h.do("POST", "/v1/jobs", job(sleepInput(0, 1)), a...)
		if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" {
			t.Fatalf("third job of team-a: %d (Retry-After %q), want 429", r.status, r.header.Get("Retry-After"))
		}
		if n, _ := gaugeOf(h.scrape(), "xflex_http_refused_total", map[string]string{"route": "/v1/jobs", "code": "429"}); n != 1 {
			t.Errorf("xflex_http_refused_total{route=/v1/jobs,code=429} = %v, want 1", n)
		}
		b := h.submit(job(sleepInput(0, 1)), tenantHeader, "team-b")
		if j := h.waitTerminal(b); j.State != StateSucceeded || j.Client != "team-b" || j.Tenant != "team-b" {
			t.Errorf("team-b job: %+v", j)
		}
		// Either of team-a's jobs may start first; the other waits, though
		// three workers are free: one running solve per client. Sample it
		// across several worker polls.
		var first, second string
		deadline := time.Now().Add(waitLimit)
		for first == "" {
			switch {
			case h.job(j1).State == StateRunning:
				first, second = j1, j2
			case h.job(j2).State == StateRunning:
				first, second = j2, j1
			case time.Now().After(deadline):
				t.Fatalf("neither of team-a's jobs runs: %s", h.riverState(j1))
			default:
				time.Sleep(10 * time.Millisecond)
			}
		}
		for i := 0; i < 10; i++ {
			if j := h.job(second); j.State != StateQueued {
				t.Fatalf("team-a's other job is %s while one runs; want queued", j.State)
			}
			time.Sleep(2 * testPoll)
		}
		h.do("DELETE", "/v1/jobs/"+first, nil)
		h.waitFor(second, "running", func(j Job) bool { return j.State == StateRunning })
		h.do("DELETE", "/v1/jobs/"+second, nil)
		h.waitTerminal(second)
		h.submit(job(sleepInput(0, 1)), a...)
	})
}

// TestListPaginationAndFilters pages through jobs newest first without
// gaps or repeats and filters by state, problem, kind and client.
func TestListPaginationAndFilters(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, store string) {
		h := newHarness(t, store, Config{})
		var ids []string
		for i := 0; i < 5; i++ {
			ids = append(ids, h.submit(job(sleepInput(0, float64(i))), tenantHeader, fmt.Sprintf("c%d", i%2)))
		}
		failed := h.submit(job(sleepInput(0, 1, "fail", "true")), tenantHeader, "c0")
		for _, id := range append(ids, failed) {
			h.waitTerminal(id)
		}
		var got []string
		next := "/v1/jobs?limit=2"
		pages := 0
		for next != "" {
			r := h.do("GET", next, nil)
			if r.status != 200 {
				t.Fatalf("list %s: %d %s", next, r.status, r.body)
			}
			checkSchema(t, "jobs.list.json", r.body)
			var l JobList
			if err := json.Unmarshal(r.body, &l); err != nil {
				t.Fatal(err)
			}
			for _, j := range l.Jobs {
				got = append(got, j.ID)
			}
			next = l.Next
			pages++
		}
		want := []string{failed}
		for i := len(ids) - 1; i >= 0; i-- {
			want = append(want, ids[i])
		}
		if strings.Join(got, ",") != strings.Join(want, ",") || pages != 3 {
			t.Errorf("pages %d listed %v, want %v", pages, got, want)
		}
		count := func(q string) int {
			r := h.do("GET", "/v1/jobs?"+q, nil)
			if r.status != 200 {
				t.Fatalf("list ?%s: %d %s", q, r.status, r.body)
			}
			var l JobList
			_ = json.Unmarshal(r.body, &l)
			return len(l.Jobs)
		}
		for q, n := range map[string]int{
			"state=succeeded":                     5,
			"state=failed":                        1,
			"state=failed,succeeded":              6,
			"state=queued":                        0,
			"client=c1":                           2,
			"client=c0&state=succeeded":           3,
			"tenant=c1":                           2,
			"tenant=c0&state=failed":              1,
			"problem=test/sleep":                  6,
			"problem=test-sleep":                  6,
			"kind=scenario":                       0,
			"created_after=2000-01-01T00:00:00Z":  6,
			"created_before=2000-01-01T00:00:00Z": 0,
		} {
			if got := count(q); got != n {
				t.Errorf("?%s: %d jobs, want %d", q, got, n)
			}
		}
		for _, q := range []string{"state=done", "limit=0", "limit=x", "cursor=@@", "kind=x", "created_after=yesterday"} {
			if r := h.do("GET", "/v1/jobs?"+q, nil); r.status != http.StatusUnprocessableEntity {
				t.Errorf("?%s: %d, want 422", q, r.status)
			}
		}
	})
}

// TestRetention: finished jobs disappear once their retention passes;
// unfinished ones stay.
func TestRetention(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, store string) {
		h := newHarness(t, store, Config{Retention: 50 * time.Millisecond})
		id := h.submit(job(sleepInput(0, 1)), "Idempotency-Key", "kept-with-its-job")
		sc := h.submit(map[string]any{"problem": jobtest.Name, "input": sleepInput(0, 1),
			"variants": []any{map[string]any{"name": "v", "patch": map[string]any{"value": 2}}}})
		h.waitTerminal(id)
		h.waitTerminal(sc)
		deadline := time.Now().Add(waitLimit)
		for h.do("GET", "/v1/jobs/"+id, nil).status != http.StatusNotFound ||
			h.do("GET", "/v1/jobs/"+sc, nil).status != http.StatusNotFound {
			if time.Now().After(deadline) {
				t.Fatalf("jobs still present %s after their retention", waitLimit)
			}
			time.Sleep(50 * time.Millisecond)
		}
		var n int
		if err := h.svc.st.db.QueryRow(`SELECT COUNT(*) FROM xflex_job`).Scan(&n); err != nil || n != 0 {
			t.Errorf("%d rows left after retention (%v)", n, err)
		}
		if err := h.svc.st.db.QueryRow(`SELECT COUNT(*) FROM xflex_idempotency`).Scan(&n); err != nil || n != 0 {
			t.Errorf("%d idempotency keys left after their job's retention (%v)", n, err)
		}
	})
}

// TestScenario: a base and variants are solved and compared side by side;
// a variant that fails shows its error without failing the others, and
// each variant's full result matches a synchronous solve of the patched
// input.
func TestScenario(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, store string) {
		h := newHarness(t, store, Config{})
		base := sleepInput(20, 3, "nodes", `[{"name":"a","cap":5},{"name":"b","cap":2},{"name":"c","cap":1}]`)
		body := map[string]any{"problem": jobtest.Name, "input": base, "variants": []any{
			map[string]any{"name": "cheaper", "description": "lower value", "patch": map[string]any{"value": 1.5}},
			map[string]any{"name": "same", "patch": map[string]any{}},
			map[string]any{"name": "broken", "patch": map[string]any{"nodes": []any{
				map[string]any{"name": "a", "cap": 1}, map[string]any{"name": "a", "cap": 1}}}},
		}}
		id := h.submit(body)
		j := h.waitTerminal(id)
		if j.State != StateSucceeded || j.Kind != kindScenario || len(j.Variants) != 4 {
			t.Fatalf("scenario job: %+v", j)
		}
		r := h.do("GET", "/v1/jobs/"+id+"/result", nil)
		if r.status != 200 {
			t.Fatalf("scenario result: %d %s", r.status, r.body)
		}
		checkSchema(t, "jobs.comparison.json", r.body)
		var c Comparison
		if err := json.Unmarshal(r.body, &c); err != nil {
			t.Fatal(err)
		}
		if len(c.Rows) != 4 || c.Rows[0].Variant != BaseVariant || c.Rows[1].Variant != "cheaper" {
			t.Fatalf("rows: %+v", c.Rows)
		}
		cheaper, same, broken := c.Rows[1], c.Rows[2], c.Rows[3]
		if *cheaper.Objective != 1.5 || cheaper.Delta["objective"] != -1.5 || cheaper.Figures["lambda"] != 1.5 ||
			cheaper.Description != "lower value" {
			t.Errorf("cheaper row: %+v", cheaper)
		}
		// value 3 -> 1.5: node b (cap 2) becomes big; a stays big, c small.
		if got := strings.Join(cheaper.Changed.Paths, ","); got != "/assign/b/class,/lambda" || cheaper.Changed.Count != 2 {
			t.Errorf("cheaper changed %v", cheaper.Changed)
		}
		if same.Changed == nil || same.Changed.Count != 0 || same.Delta["objective"] != 0 {
			t.Errorf("unchanged variant: %+v", same)
		}
		if broken.State != StateFailed || broken.Error == nil || broken.Error.Status != 422 || broken.Objective != nil {
			t.Errorf("broken variant: %+v", broken)
		}
		table := c.Table()
		for _, want := range []string{"cheaper", "lambda", "1.5", "failed"} {
			if !strings.Contains(table, want) {
				t.Errorf("table lacks %q:\n%s", want, table)
			}
		}
		patched := sleepInput(20, 1.5, "nodes", `[{"name":"a","cap":5},{"name":"b","cap":2},{"name":"c","cap":1}]`)
		vr := h.do("GET", "/v1/jobs/"+id+"/variants/cheaper/result", nil)
		sync := h.do("POST", "/v1/"+jobtest.Name, patched)
		if vr.status != 200 || stripElapsed(vr.body) != stripElapsed(sync.body) {
			t.Errorf("variant result %d %s\nsynchronous %s", vr.status, vr.body, sync.body)
		}
		if r := h.do("GET", "/v1/jobs?kind=scenario", nil); !strings.Contains(string(r.body), id) || strings.Contains(string(r.body), id+".") {
			t.Errorf("list shows children or misses the scenario: %s", r.body)
		}
		if r := h.do("GET", "/v1/jobs/"+id+".1", nil); r.status != http.StatusNotFound {
			t.Errorf("a variant is not a job of its own: %d", r.status)
		}
	})
}

// TestScenarioCancel: cancelling a scenario cancels its variants and still
// produces the comparison of what finished.
func TestScenarioCancel(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, store string) {
		h := newHarness(t, store, Config{Workers: 1})
		id := h.submit(map[string]any{"problem": jobtest.Name, "input": sleepInput(50000, 3), "variants": []any{
			map[string]any{"name": "v", "patch": map[string]any{"value": 1}}}})
		h.waitFor(id, "running", func(j Job) bool { return j.State == StateRunning })
		if r := h.do("DELETE", "/v1/jobs/"+id, nil); r.status != http.StatusAccepted && r.status != http.StatusOK {
			t.Fatalf("cancel scenario: %d %s", r.status, r.body)
		}
		j := h.waitTerminal(id)
		if j.State != StateCancelled {
			t.Fatalf("scenario state %s", j.State)
		}
		for _, v := range j.Variants {
			if v.State != StateCancelled {
				t.Errorf("variant %s is %s", v.Name, v.State)
			}
		}
		var c Comparison
		r := h.do("GET", "/v1/jobs/"+id+"/result", nil)
		if err := json.Unmarshal(r.body, &c); err != nil || len(c.Rows) != 2 {
			t.Fatalf("cancelled scenario result %d %s", r.status, r.body)
		}
		if c.Rows[0].Status != string(solver.StatusCancelled) {
			t.Errorf("base row of a cancelled scenario: %+v (want the best answer, status cancelled)", c.Rows[0])
		}
	})
}

// TestTwoReplicas: two services on one store share the queue; either
// answers for any job, and a cancel sent to one stops a solve running on
// the other.
func TestTwoReplicas(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, store string) {
		a := newHarness(t, store, Config{Workers: 1})
		b := newHarness(t, store, Config{Workers: 1})
		long := a.submit(job(sleepInput(50000, 2)))
		b.waitFor(long, "running", func(j Job) bool { return j.State == StateRunning })
		var quick []string
		for i := 0; i < 4; i++ {
			quick = append(quick, b.submit(job(sleepInput(10, float64(i)))))
		}
		for _, id := range quick {
			if j := a.waitTerminal(id); j.State != StateSucceeded {
				t.Errorf("job %s: %s", id, j.State)
			}
		}
		sent := false
		for _, h := range []*harness{a, b} {
			h.svc.mu.Lock()
			_, here := h.svc.running[long]
			h.svc.mu.Unlock()
			if here {
				// Cancel through the other replica.
				other := a
				if h == a {
					other = b
				}
				if r := other.do("DELETE", "/v1/jobs/"+long, nil); r.status != http.StatusAccepted {
					t.Fatalf("cancel via the other replica: %d %s", r.status, r.body)
				}
				sent = true
			}
		}
		if !sent {
			t.Fatal("the running job is on neither replica")
		}
		if j := a.waitTerminal(long); j.State != StateCancelled {
			t.Errorf("long job %s after a cancel on the other replica", j.State)
		}
		if r := b.do("GET", "/v1/jobs/"+long+"/result", nil); r.status != http.StatusOK {
			t.Errorf("best answer of the cancelled job via the other replica: %d", r.status)
		}
	})
}

// TestLastAttemptAbandons: on River's last attempt a job that never
// finished is marked failed instead of being solved again, so a job that
// kills its process every time cannot loop or stay running.
func TestLastAttemptAbandons(t *testing.T) {
	t.Parallel()
	runner, err := jobtest.Runner(time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	svc, err := Open(ctx, Config{Store: storeURL(t, "sqlite")}, runner, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer svc.db.Close() // never started: no workers to stop
	rec, _, err := svc.submit(ctx, submission{Tenant: "c", Problem: jobtest.Name,
		Inputs: []variantInput{{Name: BaseVariant, Input: []byte(`{"ms":0,"value":1}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.work(ctx, rec.ID, rec.RiverID, true); err != nil {
		t.Fatal(err)
	}
	got, err := svc.st.get(ctx, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != StateFailed || got.Error == nil || !strings.HasSuffix(got.Error.Type, "/abandoned") || got.Error.Status != 500 {
		t.Errorf("abandoned job: %+v %+v", got, got.Error)
	}
}
