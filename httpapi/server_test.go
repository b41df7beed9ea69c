package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/xflex/xflex/schemas"
	"github.com/xflex/xflex/solver"
)

// selftestSchema is the request schema of a test-only problem that can be
// told to succeed, fail in each way, panic, or block.
const selftestSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://xflex.dev/schemas/selftest.request.json",
  "type": "object",
  "additionalProperties": false,
  "required": ["mode"],
  "properties": {
    "mode": {"enum": ["ok", "invalid", "infeasible", "panic", "block", "error", "nan"]},
    "n": {"type": "integer", "minimum": 0},
    "budget_ms": {"$ref": "common.json#/$defs/budget_ms"},
    "seed": {"$ref": "common.json#/$defs/seed"}
  }
}`

type selftestReq struct {
	Mode     string `json:"mode"`
	N        int    `json:"n"`
	BudgetMS int64  `json:"budget_ms"`
	Seed     int64  `json:"seed"`
}

// harness wires a server around the selftest problem. Blocked solves signal
// on started and wait for release or their context.
type harness struct {
	srv      *Server
	started  chan struct{}
	release  chan struct{}
	canceled chan struct{}
}

func newHarness(t *testing.T, cfg Config) *harness {
	t.Helper()
	return newLoggingHarness(t, cfg, zerolog.Nop())
}

// newLoggingHarness is newHarness with the server logging to log.
func newLoggingHarness(t *testing.T, cfg Config, log zerolog.Logger) *harness {
	t.Helper()
	h := &harness{started: make(chan struct{}, 16), release: make(chan struct{}), canceled: make(chan struct{}, 16)}
	p := solver.Problem{
		Name: "selftest", RequestSchema: "selftest.request.json", ResponseSchema: "selftest.request.json",
		Solve: func(ctx context.Context, raw json.RawMessage, opts solver.Options) (any, solver.Meta, error) {
			var req selftestReq
			if err := solver.Decode(raw, &req); err != nil {
				return nil, solver.Meta{}, err
			}
			switch req.Mode {
			case "invalid":
				return nil, solver.Meta{}, solver.Invalid(solver.Ptr("n"), "n=%d is not allowed", req.N)
			case "infeasible":
				return nil, solver.Meta{}, solver.Infeasible("nothing fits")
			case "panic":
				panic("boom")
			case "error":
				return nil, solver.Meta{}, io.ErrUnexpectedEOF
			case "nan":
				return map[string]float64{"x": math.NaN()}, solver.Meta{Status: solver.StatusFeasible, Solver: "selftest"}, nil
			case "block":
				h.started <- struct{}{}
				select {
				case <-h.release:
				case <-ctx.Done():
					h.canceled <- struct{}{}
					return nil, solver.Meta{}, ctx.Err()
				}
			}
			m := solver.Meta{Status: solver.StatusOptimal, Solver: "selftest"}
			m.SetObjective(float64(req.N))
			m.SetBound(float64(req.N))
			return map[string]int{"n": req.N}, m, nil
		},
	}
	set, err := schemas.LoadWith(map[string][]byte{"selftest.request.json": []byte(selftestSchema)})
	if err != nil {
		t.Fatal(err)
	}
	runner, err := solver.NewRunnerWithSchemas([]solver.Problem{p}, 5*time.Second, set)
	if err != nil {
		t.Fatal(err)
	}
	h.srv = New(cfg, runner, log)
	return h
}

func post(t *testing.T, h http.Handler, path, ctype, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "http://localhost"+path, strings.NewReader(body))
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func decodeProblem(t *testing.T, rec *httptest.ResponseRecorder) ProblemDetails {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("content type %q, want application/problem+json; body %s", ct, rec.Body)
	}
	var p ProblemDetails
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
		t.Fatalf("problem body: %v: %s", err, rec.Body)
	}
	if p.RequestID == "" || p.RequestID != rec.Header().Get("X-Request-Id") {
		t.Fatalf("request id %q does not match header %q", p.RequestID, rec.Header().Get("X-Request-Id"))
	}
	if p.Status != rec.Code {
		t.Fatalf("problem status %d != HTTP %d", p.Status, rec.Code)
	}
	return p
}

func TestSolveStatuses(t *testing.T) {
	h := newHarness(t, Config{MaxBodyBytes: 1024})
	cases := []struct {
		name, ctype, body string
		status            int
		pointers          []string
	}{
		{"ok", "application/json", `{"mode":"ok","n":3}`, 200, nil},
		{"ok with charset", "application/json; charset=utf-8", `{"mode":"ok"}`, 200, nil},
		{"malformed", "application/json", `{"mode":`, 400, nil},
		{"trailing garbage", "application/json", `{"mode":"ok"} x`, 400, nil},
		{"NaN literal", "application/json", `{"mode":"ok","n":NaN}`, 400, nil},
		{"wrong content type", "text/plain", `{"mode":"ok"}`, 415, nil},
		{"no content type", "", `{"mode":"ok"}`, 415, nil},
		{"too large", "application/json", `{"mode":"ok","n":1` + strings.Repeat(" ", 2000) + `}`, 413, nil},
		{"schema: negative", "application/json", `{"mode":"ok","n":-1}`, 422, []string{"/n"}},
		{"schema: two violations", "application/json", `{"mode":"nope","n":1.5}`, 422, []string{"/mode", "/n"}},
		{"schema: unknown field", "application/json", `{"mode":"ok","extra":1}`, 422, []string{"/extra"}},
		{"schema: budget zero", "application/json", `{"mode":"ok","budget_ms":0}`, 422, []string{"/budget_ms"}},
		{"semantic", "application/json", `{"mode":"invalid","n":7}`, 422, []string{"/n"}},
		{"infeasible", "application/json", `{"mode":"infeasible"}`, 422, nil},
		{"internal", "application/json", `{"mode":"error"}`, 500, nil},
		{"panic", "application/json", `{"mode":"panic"}`, 500, nil},
		{"unencodable result", "application/json", `{"mode":"nan"}`, 500, nil},
		{"ok after panic", "application/json", `{"mode":"ok"}`, 200, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := post(t, h.srv.Handler(), "/v1/selftest", c.ctype, c.body)
			if rec.Code != c.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, c.status, rec.Body)
			}
			if c.status == 200 {
				var resp struct {
					Result map[string]int `json:"result"`
					Meta   solver.Meta    `json:"meta"`
				}
				if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
					t.Fatal(err)
				}
				if resp.Meta.Status != solver.StatusOptimal || len(resp.Meta.InputSHA256) != 64 ||
					resp.Meta.Solver != "selftest" || resp.Meta.Version == "" || resp.Meta.BudgetMS != 2000 {
					t.Fatalf("bad meta: %+v", resp.Meta)
				}
				return
			}
			p := decodeProblem(t, rec)
			var got []string
			for _, v := range p.Errors {
				got = append(got, v.Pointer)
				if v.Message == "" {
					t.Errorf("violation at %q has no message", v.Pointer)
				}
			}
			for _, want := range c.pointers {
				found := false
				for _, g := range got {
					found = found || g == want
				}
				if !found {
					t.Errorf("pointers %q lack %q", got, want)
				}
			}
			if c.status == 500 && strings.Contains(rec.Body.String(), "boom") {
				t.Errorf("internal details leaked: %s", rec.Body)
			}
		})
	}
}

func TestInputHashIgnoresBudgetAndKeyOrder(t *testing.T) {
	h := newHarness(t, Config{})
	sum := func(body string) string {
		rec := post(t, h.srv.Handler(), "/v1/selftest", "application/json", body)
		var resp struct{ Meta solver.Meta }
		if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
			t.Fatal(err)
		}
		return resp.Meta.InputSHA256
	}
	a := sum(`{"mode":"ok","n":2}`)
	b := sum(`{ "n": 2, "mode": "ok", "budget_ms": 10 }`)
	c := sum(`{"mode":"ok","n":3}`)
	if a != b || a == c {
		t.Fatalf("hashes: %s %s %s", a, b, c)
	}
}

func TestBudgetCapped(t *testing.T) {
	h := newHarness(t, Config{})
	rec := post(t, h.srv.Handler(), "/v1/selftest", "application/json", `{"mode":"ok","budget_ms":999999}`)
	var resp struct{ Meta solver.Meta }
	_ = json.Unmarshal(rec.Body.Bytes(), &resp)
	if resp.Meta.BudgetMS != 5000 {
		t.Fatalf("budget %d, want the 5000 ms cap", resp.Meta.BudgetMS)
	}
}

func TestRequestIDEchoed(t *testing.T) {
	h := newHarness(t, Config{})
	req := httptest.NewRequest(http.MethodPost, "http://localhost/v1/selftest", strings.NewReader(`{"mode":"infeasible"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Request-Id", "abc-123")
	rec := httptest.NewRecorder()
	h.srv.Handler().ServeHTTP(rec, req)
	if p := decodeProblem(t, rec); p.RequestID != "abc-123" {
		t.Fatalf("request id %q", p.RequestID)
	}
	req.Header.Set("X-Request-Id", "bad id with spaces\n")
	rec = httptest.NewRecorder()
	h.srv.Handler().ServeHTTP(rec, req)
	if id := rec.Header().Get("X-Request-Id"); id == "" || strings.Contains(id, " ") {
		t.Fatalf("unsafe id echoed: %q", id)
	}
}

func TestOverloadGets503(t *testing.T) {
	h := newHarness(t, Config{MaxConcurrent: 1, QueueWait: 20 * time.Millisecond})
	var wg sync.WaitGroup
	wg.Add(1)
	var first *httptest.ResponseRecorder
	go func() {
		defer wg.Done()
		first = post(t, h.srv.Handler(), "/v1/selftest", "application/json", `{"mode":"block"}`)
	}()
	<-h.started
	rec := post(t, h.srv.Handler(), "/v1/selftest", "application/json", `{"mode":"ok"}`)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("got %d (Retry-After %q), want 503 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
	decodeProblem(t, rec)
	close(h.release)
	wg.Wait()
	if first.Code != 200 {
		t.Fatalf("blocked solve finished with %d", first.Code)
	}
	if rec := post(t, h.srv.Handler(), "/v1/selftest", "application/json", `{"mode":"ok"}`); rec.Code != 200 {
		t.Fatalf("slot not released: %d", rec.Code)
	}
}

func TestClientDisconnectCancelsSolve(t *testing.T) {
	h := newHarness(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequest(http.MethodPost, "http://localhost/v1/selftest", strings.NewReader(`{"mode":"block","budget_ms":60000}`)).WithContext(ctx)
	req.Header.Set("Content-Type", "application/json")
	done := make(chan struct{})
	go func() {
		h.srv.Handler().ServeHTTP(httptest.NewRecorder(), req)
		close(done)
	}()
	<-h.started
	cancel()
	select {
	case <-h.canceled:
	case <-time.After(10 * time.Second):
		t.Fatal("solve was not canceled when the client went away")
	}
	<-done
}

func TestBudgetIsDeadline(t *testing.T) {
	h := newHarness(t, Config{})
	rec := post(t, h.srv.Handler(), "/v1/selftest", "application/json", `{"mode":"block","budget_ms":30}`)
	<-h.canceled
	// The deadline reached the solver, which had no answer: 422 budget_exhausted.
	if rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422: %s", rec.Code, rec.Body)
	}
	if p := decodeProblem(t, rec); p.Type != TypeBase+"budget_exhausted" {
		t.Fatalf("problem type %q", p.Type)
	}
}

func TestInfoEndpoints(t *testing.T) {
	h := newHarness(t, Config{})
	get := func(path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://localhost"+path, nil))
		return rec
	}
	for _, path := range []string{"/healthz", "/readyz", "/version", "/v1/schemas", "/v1/problems",
		"/v1/schemas/common.json", "/v1/schemas/selftest.request", "/v1/schemas/selftest.request.json"} {
		if rec := get(path); rec.Code != 200 {
			t.Errorf("GET %s: %d", path, rec.Code)
		}
	}
	if rec := get("/v1/schemas/nope.json"); rec.Code != 404 {
		t.Errorf("unknown schema: %d", rec.Code)
	}
	if rec := get("/nope"); rec.Code != 404 {
		t.Errorf("unknown route: %d", rec.Code)
	}
	if rec := get("/v1/selftest"); rec.Code != 405 || rec.Header().Get("Allow") != "POST" {
		t.Errorf("GET on a solve route: %d, Allow %q", rec.Code, rec.Header().Get("Allow"))
	} else if p := decodeProblem(t, rec); p.Type != TypeBase+"method_not_allowed" {
		t.Errorf("405 problem type %q", p.Type)
	}
	if rec := post(t, h.srv.Handler(), "/healthz", "application/json", "{}"); rec.Code != 405 || rec.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("POST on /healthz: %d, Allow %q", rec.Code, rec.Header().Get("Allow"))
	}
	var list struct {
		Schemas []struct{ Name string } `json:"schemas"`
	}
	_ = json.Unmarshal(get("/v1/schemas").Body.Bytes(), &list)
	if len(list.Schemas) < 2 {
		t.Errorf("schema list: %+v", list)
	}
	h.srv.SetDraining()
	if rec := get("/readyz"); rec.Code != 503 {
		t.Errorf("readyz while draining: %d", rec.Code)
	}
}

// TestGracefulShutdownDrains starts a real server on loopback, begins a
// solve, shuts down, and checks the solve still completes.
func TestGracefulShutdownDrains(t *testing.T) {
	h := newHarness(t, Config{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h.srv.Handler()}
	go func() { _ = srv.Serve(ln) }()
	type result struct {
		code int
		err  error
	}
	resc := make(chan result, 1)
	go func() {
		resp, err := http.Post("http://"+ln.Addr().String()+"/v1/selftest", "application/json", bytes.NewBufferString(`{"mode":"block","n":4}`))
		if err != nil {
			resc <- result{err: err}
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		resc <- result{code: resp.StatusCode}
	}()
	<-h.started
	shut := make(chan error, 1)
	go func() { shut <- srv.Shutdown(context.Background()) }()
	time.Sleep(20 * time.Millisecond) // let Shutdown close the listener first
	close(h.release)
	r := <-resc
	if r.err != nil || r.code != 200 {
		t.Fatalf("in-flight solve during shutdown: code %d err %v", r.code, r.err)
	}
	if err := <-shut; err != nil {
		t.Fatalf("shutdown: %v", err)
	}
}
