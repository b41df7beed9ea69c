package jobs

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xflex/xflex/jobs/jobtest"
)

// as returns the test headers of a request acting for tenant (with the
// admin scope when admin is set), followed by more header pairs.
func as(tenant string, admin bool, more ...string) []string {
	h := []string{tenantHeader, tenant}
	if admin {
		h = append(h, adminHeader, "1")
	}
	return append(h, more...)
}

// listIDs lists the ids GET path returns (one page).
func (h *harness) listIDs(path string, hdr ...string) []string {
	h.t.Helper()
	r := h.do("GET", path, nil, hdr...)
	if r.status != http.StatusOK {
		h.t.Fatalf("GET %s: %d %s", path, r.status, r.body)
	}
	var l JobList
	if err := json.Unmarshal(r.body, &l); err != nil {
		h.t.Fatal(err)
	}
	ids := []string{}
	for _, j := range l.Jobs {
		ids = append(ids, j.ID)
	}
	return ids
}

// TestTenantIsolation: a tenant cannot get, cancel, read the result or a
// variant's result of another tenant's job (404, like an unknown id) nor
// list it; admin sees every job and filters by tenant.
func TestTenantIsolation(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, store string) {
		h := newHarness(t, store, Config{})
		solve := h.submit(job(sleepInput(0, 1)), as("a", false)...)
		scenario := h.submit(map[string]any{"problem": jobtest.Name, "input": sleepInput(0, 1),
			"variants": []any{map[string]any{"name": "v", "patch": map[string]any{"value": 2}}}}, as("a", false)...)
		running := h.submit(job(sleepInput(50000, 1)), as("a", false)...)
		other := h.submit(job(sleepInput(0, 3)), as("b", false)...)
		h.waitTerminal(solve)
		h.waitTerminal(scenario)
		h.waitTerminal(other)
		if j := h.job(solve); j.Tenant != "a" || j.Client != "a" {
			t.Errorf("job of tenant a reads tenant %q client %q", j.Tenant, j.Client)
		}
		for _, p := range []string{"/v1/jobs/" + solve, "/v1/jobs/" + solve + "/result", "/v1/jobs/" + scenario,
			"/v1/jobs/" + scenario + "/result", "/v1/jobs/" + scenario + "/variants/v/result",
			"/v1/jobs/" + scenario + "/variants/base/result", "/v1/jobs/" + running} {
			if r := h.do("GET", p, nil, as("a", false)...); r.status != http.StatusOK && r.status != http.StatusConflict {
				t.Errorf("tenant a GET %s: %d %s", p, r.status, r.body)
			}
			r := h.do("GET", p, nil, as("b", false)...)
			if r.status != http.StatusNotFound || !strings.Contains(string(r.body), "/not_found") {
				t.Errorf("tenant b GET %s of tenant a's job: %d %s, want 404 not_found", p, r.status, r.body)
			}
		}
		if r := h.do("DELETE", "/v1/jobs/"+running, nil, as("b", false)...); r.status != http.StatusNotFound {
			t.Errorf("tenant b DELETE of tenant a's job: %d %s, want 404", r.status, r.body)
		}
		if j := h.job(running); j.CancelRequested || j.State.Terminal() {
			t.Errorf("tenant b's DELETE touched tenant a's job: %+v", j)
		}
		if r := h.do("DELETE", "/v1/jobs/"+running, nil, as("a", false)...); r.status != http.StatusAccepted && r.status != http.StatusOK {
			t.Errorf("tenant a DELETE of its job: %d %s", r.status, r.body)
		}
		h.waitTerminal(running)
		for _, c := range []struct {
			path string
			hdr  []string
			want []string
		}{
			{"/v1/jobs", as("a", false), []string{running, scenario, solve}},
			{"/v1/jobs?tenant=a", as("a", false), []string{running, scenario, solve}},
			{"/v1/jobs?tenant=b", as("a", false), []string{}},
			{"/v1/jobs?client=b", as("a", false), []string{}},
			{"/v1/jobs", as("b", false), []string{other}},
			{"/v1/jobs", as("ops", true), []string{other, running, scenario, solve}},
			{"/v1/jobs?tenant=a", as("ops", true), []string{running, scenario, solve}},
			{"/v1/jobs?tenant=b", as("ops", true), []string{other}},
			{"/v1/jobs?tenant=ops", as("ops", true), []string{}},
			// No principal: the local tenant with every scope (no auth).
			{"/v1/jobs?tenant=b", nil, []string{other}},
		} {
			if got := h.listIDs(c.path, c.hdr...); strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("GET %s as %v: %v, want %v", c.path, c.hdr, got, c.want)
			}
		}
		for _, p := range []string{"/v1/jobs/" + solve, "/v1/jobs/" + scenario + "/variants/v/result"} {
			if r := h.do("GET", p, nil, as("ops", true)...); r.status != http.StatusOK {
				t.Errorf("admin GET %s: %d %s", p, r.status, r.body)
			}
		}
		if r := h.do("DELETE", "/v1/jobs/"+other, nil, as("ops", true)...); r.status != http.StatusConflict {
			t.Errorf("admin DELETE of another tenant's finished job: %d %s, want 409", r.status, r.body)
		}
	})
}

// refused checks that r is a 429 of the named limit with a Retry-After.
func refused(t *testing.T, what, limit string, r reply) {
	t.Helper()
	ra, err := strconv.Atoi(r.header.Get("Retry-After"))
	if r.status != http.StatusTooManyRequests || err != nil || ra < 1 ||
		!strings.Contains(string(r.body), `"type":"https://xflex.dev/problems/`+limit+`"`) {
		t.Errorf("%s: %d Retry-After %q %s, want 429 %s", what, r.status, r.header.Get("Retry-After"), r.body, limit)
	}
}

// TestTenantQuotas: the tenant job limit, the tenant byte quota and the
// global queue limit each answer 429 with Retry-After and a problem typed
// by the limit, while another tenant still gets 202 (the global limit
// aside, which is everyone's); a rotating X-Client-Id changes nothing.
func TestTenantQuotas(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, store string) {
		h := newHarness(t, store, Config{Workers: 2, MaxRunningPerClient: 1, MaxQueuedPerClient: 1, MaxQueued: 3})
		long := job(sleepInput(50000, 1))
		a1 := h.submit(long, as("a", false)...)
		a2 := h.submit(long, as("a", false)...)
		refused(t, "third job of tenant a", "too_many_jobs", h.do("POST", "/v1/jobs", long, as("a", false)...))
		for i := range 20 {
			r := h.do("POST", "/v1/jobs", long, as("a", false, "X-Client-Id", fmt.Sprintf("rotated-%d", i))...)
			if r.status != http.StatusTooManyRequests {
				t.Fatalf("tenant a with X-Client-Id rotated-%d: %d %s, want 429", i, r.status, r.body)
			}
		}
		b1 := h.submit(long, as("b", false)...)
		if r := h.do("POST", "/v1/jobs", long, as("c", false)...); r.status != http.StatusTooManyRequests {
			t.Fatalf("fourth job on a server holding 3: %d %s", r.status, r.body)
		} else {
			refused(t, "fourth job on the server", "queue_full", r)
			if !strings.Contains(string(r.body), "--job-queue") {
				t.Errorf("queue_full does not name its flag: %s", r.body)
			}
		}
		h.do("DELETE", "/v1/jobs/"+b1, nil)
		h.waitTerminal(b1)
		h.waitTerminal(h.submit(job(sleepInput(0, 1)), as("c", false)...))
		for _, id := range []string{a1, a2} {
			h.do("DELETE", "/v1/jobs/"+id, nil)
			h.waitTerminal(id)
		}
		var n int
		if err := h.svc.st.db.QueryRow(h.svc.st.d.rebind(`SELECT COUNT(*) FROM xflex_job WHERE tenant = ?`), "a").Scan(&n); err != nil || n != 2 {
			t.Errorf("tenant a has %d jobs stored (%v), want 2", n, err)
		}
		// Concurrent submissions (several connections on PostgreSQL, as
		// replicas have) get exactly the limit's worth.
		var wg sync.WaitGroup
		var mu sync.Mutex
		var accepted []string
		for range 8 {
			wg.Go(func() {
				r := h.do("POST", "/v1/jobs", long, as("d", false)...)
				if r.status == http.StatusAccepted {
					mu.Lock()
					accepted = append(accepted, r.json(t)["id"].(string))
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if len(accepted) != 2 {
			t.Errorf("8 concurrent submissions of tenant d: %d accepted, want its limit of 2", len(accepted))
		}
		for _, id := range accepted {
			h.do("DELETE", "/v1/jobs/"+id, nil)
			h.waitTerminal(id)
		}
	})
	forEachStore(t, func(t *testing.T, store string) {
		// Each input is about 1 KB; its result is smaller.
		nodes := make([]string, 20)
		for i := range nodes {
			nodes[i] = fmt.Sprintf(`{"name":"node-with-a-long-name-%03d","cap":1}`, i)
		}
		in := job(sleepInput(0, 1, "nodes", "["+strings.Join(nodes, ",")+"]"))
		h := newHarness(t, store, Config{MaxBytesPerTenant: 2500})
		h.waitTerminal(h.submit(in, as("a", false)...))
		h.waitTerminal(h.submit(job(sleepInput(0, 1)), as("a", false)...))
		r := h.do("POST", "/v1/jobs", in, as("a", false)...)
		refused(t, "tenant a over its bytes", "tenant_bytes_quota", r)
		// The first job expires after the default retention of 24 h.
		if ra, _ := strconv.Atoi(r.header.Get("Retry-After")); ra < 23*3600 || ra > 24*3600 {
			t.Errorf("Retry-After %d s, want when tenant a's first job expires (about 86400)", ra)
		}
		if !strings.Contains(string(r.body), "--job-tenant-bytes") {
			t.Errorf("tenant_bytes_quota does not name its flag: %s", r.body)
		}
		h.waitTerminal(h.submit(in, as("b", false)...))
	})
}

// submitKeyed posts body with an Idempotency-Key as tenant.
func (h *harness) submitKeyed(tenant, key string, body any) reply {
	h.t.Helper()
	return h.do("POST", "/v1/jobs", body, as(tenant, false, "Idempotency-Key", key)...)
}

// TestIdempotency: the same key and body return the first job (200 with
// its Location), also when the body differs only in white space and key
// order, after a restart, and when the tenant is at its quota; another
// body is a 422 naming the key; keys are per tenant; concurrent
// submissions with one key create one job; a key older than 24 h names a
// new job.
func TestIdempotency(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, store string) {
		h := newHarness(t, store, Config{MaxRunningPerClient: 1, MaxQueuedPerClient: 1})
		body := `{"problem":"test/sleep","input":{"ms":50000,"value":1,"budget_ms":60000}}`
		same := "{ \"input\": {\"value\": 1, \"budget_ms\": 60000, \"ms\": 50000},\n \"problem\": \"test/sleep\" }"
		first := h.submitKeyed("a", "k-1", body)
		if first.status != http.StatusAccepted {
			t.Fatalf("first submission: %d %s", first.status, first.body)
		}
		id := first.json(t)["id"].(string)
		check := func(what string, r reply, want string) {
			t.Helper()
			var j Job
			_ = json.Unmarshal(r.body, &j)
			if r.status != http.StatusOK || j.ID != want || r.header.Get("Location") != "/v1/jobs/"+want ||
				r.header.Get("Idempotent-Replayed") != "true" {
				t.Errorf("%s: %d Location %q %s, want 200 with job %s", what, r.status, r.header.Get("Location"), r.body, want)
			}
		}
		check("same key and body", h.submitKeyed("a", "k-1", body), id)
		check("same key, body reformatted", h.submitKeyed("a", "k-1", same), id)
		// Tenant a is at its limit of 2 now: a replay is still answered.
		h.submit(job(sleepInput(50000, 2)), as("a", false)...)
		check("replay at the quota", h.submitKeyed("a", "k-1", body), id)
		r := h.submitKeyed("a", "k-1", `{"problem":"test/sleep","input":{"ms":50000,"value":2}}`)
		if r.status != http.StatusUnprocessableEntity || !strings.Contains(string(r.body), `\"k-1\"`) ||
			!strings.Contains(string(r.body), "idempotency_key_reused") {
			t.Errorf("same key, other body: %d %s, want 422 naming the key", r.status, r.body)
		}
		other := h.submitKeyed("b", "k-1", body)
		if other.status != http.StatusAccepted || other.json(t)["id"] == id {
			t.Errorf("same key in tenant b: %d %s, want a new job", other.status, other.body)
		}
		// Concurrent submissions with one key: one job, the same answer.
		const n = 8
		ids := make([]string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				var j Job
				r := h.do("POST", "/v1/jobs", job(sleepInput(0, 1)), as("c", false, "Idempotency-Key", "race")...)
				_ = json.Unmarshal(r.body, &j)
				ids[i] = fmt.Sprint(r.status, " ", j.ID)
			})
		}
		wg.Wait()
		created := 0
		for _, s := range ids {
			status, jid, _ := strings.Cut(s, " ")
			if status == "202" {
				created++
			}
			if jid != strings.SplitN(ids[0], " ", 2)[1] || (status != "202" && status != "200") {
				t.Errorf("concurrent submissions with one key answered %v", ids)
				break
			}
		}
		var rows int
		if err := h.svc.st.db.QueryRow(h.svc.st.d.rebind(`SELECT COUNT(*) FROM xflex_job WHERE tenant = ?`), "c").Scan(&rows); err != nil ||
			created != 1 || rows != 1 {
			t.Errorf("concurrent submissions with one key: %d created, %d stored (%v), want 1", created, rows, err)
		}
		// A restart: the key is stored. (Cancel the sleeping solves first,
		// so the stop does not wait for them.)
		for _, jid := range h.listIDs("/v1/jobs?state=queued,running") {
			h.do("DELETE", "/v1/jobs/"+jid, nil)
			h.waitTerminal(jid)
		}
		h.srv.Close()
		if err := h.svc.Stop(t.Context()); err != nil {
			t.Fatal(err)
		}
		h = newHarness(t, store, Config{MaxRunningPerClient: 1, MaxQueuedPerClient: 1})
		check("same key after a restart", h.submitKeyed("a", "k-1", body), id)
		// Past the window the key is free for a new job.
		if _, err := h.svc.st.db.Exec(h.svc.st.d.rebind(`UPDATE xflex_idempotency SET created_at = created_at - ?`),
			(idempotencyWindow + time.Minute).Microseconds()); err != nil {
			t.Fatal(err)
		}
		r = h.submitKeyed("b", "k-1", job(sleepInput(0, 5)))
		if r.status != http.StatusAccepted || r.json(t)["id"] == other.json(t)["id"] {
			t.Fatalf("key older than the window: %d %s, want a new job", r.status, r.body)
		}
		h.waitTerminal(r.json(t)["id"].(string))
	})
}

// TestJobHeaders: every job response, results included, is marked
// no-store and nosniff.
func TestJobHeaders(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storeURL(t, "sqlite"), Config{})
	id := h.submit(job(sleepInput(0, 1)))
	h.waitTerminal(id)
	for _, c := range []struct{ method, path string }{
		{"GET", "/v1/jobs/" + id}, {"GET", "/v1/jobs/" + id + "/result"}, {"GET", "/v1/jobs"},
		{"GET", "/v1/jobs/nope/result"}, {"DELETE", "/v1/jobs/" + id}, {"POST", "/v1/jobs"},
	} {
		var body any
		if c.method == "POST" {
			body = job(sleepInput(0, 1))
		}
		r := h.do(c.method, c.path, body)
		if r.header.Get("Cache-Control") != "no-store" || r.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s %s (%d): Cache-Control %q, X-Content-Type-Options %q", c.method, c.path, r.status,
				r.header.Get("Cache-Control"), r.header.Get("X-Content-Type-Options"))
		}
	}
}
