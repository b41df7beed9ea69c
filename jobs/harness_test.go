package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/jobs/jobtest"
	"github.com/xflex/xflex/solver"
)

// storeURL returns a fresh store of the given kind.
func storeURL(t *testing.T, kind string) string { return jobtest.Store(t, kind) }

// forEachStore runs f as a subtest against SQLite and PostgreSQL, both at
// once. The subtests run from goroutines (t.Run allows that) rather than
// as parallel subtests, so they do not wait for one of go test's few
// -parallel slots: most of their time is spent waiting on solves.
func forEachStore(t *testing.T, f func(t *testing.T, store string)) {
	var wg sync.WaitGroup
	for _, kind := range jobtest.StoreKinds() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(kind, func(t *testing.T) { f(t, storeURL(t, kind)) })
		}()
	}
	wg.Wait()
}

// testPoll keeps the tests quick: workers look for jobs every 20 ms.
const testPoll = 20 * time.Millisecond

// waitLimit bounds every wait in these tests; reaching it is a failure (a
// hung job), not a timing assertion.
const waitLimit = 30 * time.Second

type harness struct {
	t    testing.TB
	svc  *Service
	srv  *httptest.Server
	api  *httpapi.Server
	logs *syncBuffer // the service's log
}

func newHarness(t testing.TB, store string, cfg Config) *harness {
	t.Helper()
	return newHarnessAPI(t, store, cfg, httpapi.Config{})
}

// newHarnessAPI is newHarness with the API server's limits.
func newHarnessAPI(t testing.TB, store string, cfg Config, apiCfg httpapi.Config) *harness {
	t.Helper()
	runner, err := jobtest.Runner(time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return newHarnessWith(t, store, cfg, runner, apiCfg)
}

// newHarnessWith is newHarnessAPI serving runner's problems.
func newHarnessWith(t testing.TB, store string, cfg Config, runner *solver.Runner, apiCfg httpapi.Config) *harness {
	t.Helper()
	api := httpapi.New(apiCfg, runner, zerolog.Nop())
	cfg.Store = store
	if cfg.PollInterval == 0 {
		cfg.PollInterval = testPoll
	}
	ctx := context.Background()
	logs := &syncBuffer{}
	svc, err := Open(ctx, cfg, runner, zerolog.New(logs))
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	svc.Mount(api)
	srv := httptest.NewServer(testPrincipal(api.Handler()))
	t.Cleanup(func() {
		srv.Close()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := svc.Stop(sctx); err != nil {
			t.Logf("stop: %v", err)
		}
	})
	return &harness{t: t, svc: svc, srv: srv, api: api, logs: logs}
}

// The test-only headers testPrincipal reads: the tenant a request acts
// for, and (any value) whether it also holds the admin scope.
const (
	tenantHeader = "X-Test-Tenant"
	adminHeader  = "X-Test-Admin"
)

// testPrincipal stands in for the auth middleware: a request with
// tenantHeader acts for that tenant with the jobs scope (and admin with
// adminHeader); one without is local with every scope, as on a server
// without an auth file.
func testPrincipal(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if t := r.Header.Get(tenantHeader); t != "" {
			p := httpapi.Principal{Tenant: t, Scopes: []httpapi.Scope{httpapi.ScopeJobs}}
			if r.Header.Get(adminHeader) != "" {
				p.Scopes = append(p.Scopes, httpapi.ScopeAdmin)
			}
			r = r.WithContext(httpapi.WithPrincipal(r.Context(), p))
		}
		next.ServeHTTP(w, r)
	})
}

type reply struct {
	status int
	header http.Header
	body   []byte
}

func (r reply) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
	return m
}

func (h *harness) do(method, path string, body any, hdr ...string) reply {
	h.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewReader([]byte(b))
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			h.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, h.srv.URL+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: b}
}

// submit posts a job and returns its id, failing unless the answer is 202.
func (h *harness) submit(body any, hdr ...string) string {
	h.t.Helper()
	r := h.do("POST", "/v1/jobs", body, hdr...)
	if r.status != http.StatusAccepted {
		h.t.Fatalf("submit: %d %s", r.status, r.body)
	}
	j := r.json(h.t)
	id, _ := j["id"].(string)
	if loc := r.header.Get("Location"); loc != "/v1/jobs/"+id {
		h.t.Fatalf("Location %q, want /v1/jobs/%s", loc, id)
	}
	return id
}

func (h *harness) job(id string) Job {
	h.t.Helper()
	r := h.do("GET", "/v1/jobs/"+id, nil)
	if r.status != http.StatusOK {
		h.t.Fatalf("get job %s: %d %s", id, r.status, r.body)
	}
	var j Job
	if err := json.Unmarshal(r.body, &j); err != nil {
		h.t.Fatal(err)
	}
	return j
}

// waitFor polls the job until cond holds.
func (h *harness) waitFor(id string, what string, cond func(Job) bool) Job {
	h.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		j := h.job(id)
		if cond(j) {
			return j
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("job %s: still not %s after %s: %+v\nriver: %s", id, what, waitLimit, j, h.riverState(id))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (h *harness) waitTerminal(id string) Job {
	h.t.Helper()
	return h.waitFor(id, "finished", func(j Job) bool { return j.State.Terminal() })
}

var elapsedRE = regexp.MustCompile(`"elapsed_ms":[0-9.eE+-]+`)

func stripElapsed(b []byte) string { return elapsedRE.ReplaceAllString(string(b), "") }

// riverState describes a job's River rows, for failure messages.
func (h *harness) riverState(id string) string {
	var out []string
	rows, err := h.svc.st.db.Query(h.svc.st.d.rebind(`SELECT r.id, r.state, r.attempt, r.max_attempts, r.scheduled_at, r.errors
		FROM river_job r JOIN xflex_job x ON x.river_id = r.id WHERE x.id = ? OR x.parent_id = ?`), id, id)
	if err != nil {
		return err.Error()
	}
	defer rows.Close()
	for rows.Next() {
		var rid, state, attempt, maxAttempts, scheduled, errs any
		if err := rows.Scan(&rid, &state, &attempt, &maxAttempts, &scheduled, &errs); err != nil {
			return err.Error()
		}
		out = append(out, fmt.Sprintf("river job %v: %s attempt %v/%v scheduled %v errors %s", rid, state, attempt, maxAttempts, scheduled, errs))
	}
	xr, err := h.svc.st.db.Query(`SELECT id, state, client, river_id, cancel_requested, attempts FROM xflex_job ORDER BY created_at`)
	if err == nil {
		for xr.Next() {
			var a, b, c, d, e, f any
			_ = xr.Scan(&a, &b, &c, &d, &e, &f)
			out = append(out, fmt.Sprintf("row %v %v client %v river %v cancel %v attempts %v", a, b, c, d, e, f))
		}
		xr.Close()
	}
	rr, err := h.svc.st.db.Query(`SELECT id, state, attempt, args FROM river_job ORDER BY id`)
	if err == nil {
		for rr.Next() {
			var a, b, c, d any
			_ = rr.Scan(&a, &b, &c, &d)
			out = append(out, fmt.Sprintf("river %v %v attempt %v args %s", a, b, c, d))
		}
		rr.Close()
	}
	var leader any
	_ = h.svc.st.db.QueryRow(`SELECT leader_id FROM river_leader`).Scan(&leader)
	out = append(out, fmt.Sprintf("leader %v, now %s", leader, time.Now().UTC()))
	return strings.Join(out, "; ")
}
