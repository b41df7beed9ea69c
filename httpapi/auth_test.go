package httpapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// writeAuthFile writes lines to a fresh auth file, replacing it by a
// rename (as an operator's tooling should), and returns its path.
func writeAuthFile(t *testing.T, path string, lines ...string) string {
	t.Helper()
	if path == "" {
		path = filepath.Join(t.TempDir(), "tokens")
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// authHarness is the selftest server with an auth file granting
// "solver" (solve), "jobber" (jobs) and "root" (admin), and a test route
// /v1/jobs/whoami that answers the request's tenant.
func authHarness(t *testing.T) *harness {
	t.Helper()
	a, err := LoadAuth(writeAuthFile(t, "",
		"solver solve "+HashToken("t-solve"),
		"jobber jobs "+HashToken("t-jobs"),
		"root admin "+HashToken("t-admin")))
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, Config{Auth: a})
	h.srv.Router().Get("/v1/jobs/whoami", whoami)
	return h
}

func whoami(w http.ResponseWriter, r *http.Request) {
	p := PrincipalOf(r.Context())
	WriteJSON(w, http.StatusOK, map[string]any{"tenant": p.Tenant, "scopes": p.Scopes})
}

// sendAuth serves one request with an optional Authorization header.
func sendAuth(h http.Handler, method, path, authorization string) *httptest.ResponseRecorder {
	var body *strings.Reader
	if method == http.MethodPost {
		body = strings.NewReader(`{"mode":"ok","n":3}`)
	} else {
		body = strings.NewReader("")
	}
	req := httptest.NewRequest(method, "http://localhost"+path, body)
	req.Header.Set("Content-Type", "application/json")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestAuthStatuses: the policy table, route by route: open routes need
// nothing, the rest 401 without a token (with the Bearer challenge, for
// unknown paths too), 403 naming the scope without it, and pass with it.
func TestAuthStatuses(t *testing.T) {
	h := authHarness(t).srv.Handler()
	const (
		solve = "Bearer t-solve"
		jobs  = "Bearer t-jobs"
		admin = "Bearer t-admin"
	)
	for _, tc := range []struct {
		method, path, auth string
		status             int
		scope              Scope // the scope a 403 must name
	}{
		{"GET", "/healthz", "", 200, ""},
		{"GET", "/readyz", "", 200, ""},
		{"GET", "/version", "", 200, ""},
		{"GET", "/version", "Bearer wrong", 200, ""},

		{"POST", "/v1/selftest", "", 401, ""},
		{"POST", "/v1/selftest", "Bearer wrong", 401, ""},
		{"POST", "/v1/selftest", "Basic dDpzb2x2ZQ==", 401, ""},
		{"POST", "/v1/selftest", "Bearer", 401, ""},
		{"POST", "/v1/selftest", jobs, 403, ScopeSolve},
		{"POST", "/v1/selftest", admin, 403, ScopeSolve},
		{"POST", "/v1/selftest", solve, 200, ""},
		{"POST", "/v1/selftest", "bearer  t-solve", 200, ""},
		{"GET", "/v1/selftest", solve, 405, ""},

		{"GET", "/v1/problems", "", 401, ""},
		{"GET", "/v1/problems", jobs, 200, ""},
		{"GET", "/v1/schemas", admin, 200, ""},
		{"GET", "/v1/schemas/selftest.request.json", solve, 200, ""},
		{"GET", "/v1/schemas/selftest.request.json", "", 401, ""},

		{"GET", "/v1/jobs/whoami", "", 401, ""},
		{"GET", "/v1/jobs/whoami", solve, 403, ScopeJobs},
		{"GET", "/v1/jobs/whoami", jobs, 200, ""},
		{"POST", "/v1/jobs", solve, 403, ScopeJobs},
		{"GET", "/v1/jobs", "", 401, ""},

		{"GET", "/metrics", "", 401, ""},
		{"GET", "/metrics", jobs, 403, ScopeAdmin},
		{"GET", "/metrics", solve, 403, ScopeAdmin},
		{"GET", "/metrics", admin, 200, ""},

		{"GET", "/v1/nope", "", 401, ""},
		{"GET", "/admin", "", 401, ""},
		{"GET", "/healthz/x", "", 401, ""},
		{"GET", "/v1/nope", solve, 404, ""},
		{"GET", "/v1/%6Aobs/whoami", solve, 404, ""}, // routed as escaped: no route, and not judged as /v1/jobs
	} {
		t.Run(fmt.Sprint(tc.method, tc.path, " ", tc.auth), func(t *testing.T) {
			rec := sendAuth(h, tc.method, tc.path, tc.auth)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
			challenge := rec.Header().Get("WWW-Authenticate")
			switch tc.status {
			case 401:
				p := decodeProblem(t, rec)
				if p.Type != TypeBase+"unauthorized" || !strings.HasPrefix(challenge, "Bearer") ||
					strings.Contains(p.Detail, tc.path) {
					t.Fatalf("401: type %q, challenge %q, detail %q", p.Type, challenge, p.Detail)
				}
			case 403:
				p := decodeProblem(t, rec)
				if p.Type != TypeBase+"forbidden" || !strings.Contains(p.Detail, "the "+string(tc.scope)+" scope") ||
					!strings.Contains(challenge, `scope="`+string(tc.scope)+`"`) {
					t.Fatalf("403: type %q, detail %q, challenge %q; want scope %s", p.Type, p.Detail, challenge, tc.scope)
				}
			default:
				if challenge != "" {
					t.Fatalf("WWW-Authenticate %q on a %d", challenge, rec.Code)
				}
			}
		})
	}
}

// TestAuthSetsPrincipal: a valid token's tenant and scopes reach the
// handler; without an auth file every request is the local principal.
func TestAuthSetsPrincipal(t *testing.T) {
	rec := sendAuth(authHarness(t).srv.Handler(), "GET", "/v1/jobs/whoami", "Bearer t-jobs")
	if rec.Code != 200 || strings.TrimSpace(rec.Body.String()) != `{"scopes":["jobs"],"tenant":"jobber"}` {
		t.Fatalf("with a token: %d %s", rec.Code, rec.Body)
	}
	h := newHarness(t, Config{})
	h.srv.Router().Get("/v1/jobs/whoami", whoami)
	rec = sendAuth(h.srv.Handler(), "GET", "/v1/jobs/whoami", "Bearer t-jobs")
	if rec.Code != 200 || strings.TrimSpace(rec.Body.String()) != `{"scopes":["solve","jobs","admin"],"tenant":"local"}` {
		t.Fatalf("without an auth file: %d %s", rec.Code, rec.Body)
	}
}

// TestAuthReload: reloading the file while requests run drops none of
// them; afterwards a removed token is refused and an added one works, and
// a bad file leaves the tokens in force.
func TestAuthReload(t *testing.T) {
	old := []string{"a solve " + HashToken("t-a"), "b solve " + HashToken("t-b")}
	next := []string{"a solve " + HashToken("t-a"), "c solve " + HashToken("t-c")}
	path := writeAuthFile(t, "", old...)
	a, err := LoadAuth(path)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(newHarness(t, Config{Auth: a}).srv.Handler())
	defer srv.Close()
	post := func(token string) (int, error) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/selftest", strings.NewReader(`{"mode":"ok"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := srv.Client().Do(req)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}

	const workers, perWorker, reloads = 4, 50, 40
	var wg sync.WaitGroup
	errs := make(chan error, workers*perWorker)
	for range workers {
		wg.Go(func() {
			for range perWorker {
				if code, err := post("t-a"); err != nil || code != 200 {
					errs <- fmt.Errorf("token a during reloads: %d %v", code, err)
				}
			}
		})
	}
	for i := range reloads {
		lines := old
		if i%2 == 0 {
			lines = next
		}
		writeAuthFile(t, path, lines...)
		if err := a.Reload(); err != nil {
			t.Error(err)
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// The last reload (i = 39) put back old; now switch to next.
	writeAuthFile(t, path, next...)
	if err := a.Reload(); err != nil {
		t.Fatal(err)
	}
	for token, want := range map[string]int{"t-a": 200, "t-b": 401, "t-c": 200} {
		if code, err := post(token); err != nil || code != want {
			t.Errorf("after reload, %s: %d %v, want %d", token, code, err, want)
		}
	}

	writeAuthFile(t, path, "d solve "+HashToken("t-d"), "e solve nothex")
	if err := a.Reload(); err == nil || !strings.Contains(err.Error(), path+":2: ") {
		t.Fatalf("reload of a bad file: %v, want an error at line 2", err)
	}
	if code, _ := post("t-c"); code != 200 {
		t.Errorf("after a failed reload the old token c gets %d, want 200", code)
	}
	if code, _ := post("t-d"); code != 401 {
		t.Errorf("after a failed reload the bad file's token d gets %d, want 401", code)
	}
}

// TestAuthRefusalBoundsBody: a request refused for want of a token that
// trickles its body still has its connection closed after
// ReadBodyTimeout (the server reads what is left of a body before it can
// reuse the connection; auth runs inside the deadlines middleware).
func TestAuthRefusalBoundsBody(t *testing.T) {
	a, err := LoadAuth(writeAuthFile(t, "", "a solve "+HashToken("t-a")))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(newHarness(t, Config{Auth: a, ReadBodyTimeout: 50 * time.Millisecond}).srv.Handler())
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Far beyond ReadBodyTimeout; the connection must be closed long before.
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprint(conn, "POST /v1/selftest HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"mode\"")
	rd := bufio.NewReader(conn)
	resp, err := http.ReadResponse(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status %d, want 401", resp.StatusCode)
	}
	if _, err := rd.ReadByte(); err != io.EOF {
		t.Fatalf("after the 401 the connection gave %v, want EOF (closed by the server)", err)
	}
}

// TestAccessLogTenant: the access log line of a request with a known
// token names its tenant (also when refused for want of a scope); a
// request without one names none.
func TestAccessLogTenant(t *testing.T) {
	a, err := LoadAuth(writeAuthFile(t, "", "team-a solve "+HashToken("t-a")))
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	h := accessLog(zerolog.New(&logs))(authenticate(a, basePolicy.withProblems([]string{"p"}))(ok))
	for _, tc := range []struct {
		path, auth string
		status     int
		tenant     string
	}{
		{"/v1/p", "Bearer t-a", 204, "team-a"},
		{"/v1/jobs", "Bearer t-a", 403, "team-a"},
		{"/v1/p", "Bearer nope", 401, ""},
		{"/healthz", "", 204, ""},
	} {
		logs.Reset()
		if rec := sendAuth(h, "GET", tc.path, tc.auth); rec.Code != tc.status {
			t.Fatalf("%s: %d, want %d", tc.path, rec.Code, tc.status)
		}
		var line struct {
			Tenant *string `json:"tenant"`
		}
		if err := json.Unmarshal(logs.Bytes(), &line); err != nil {
			t.Fatalf("%s: log %q: %v", tc.path, logs.String(), err)
		}
		if got := line.Tenant; (got == nil) != (tc.tenant == "") || got != nil && *got != tc.tenant {
			t.Errorf("%s %s: log %s, want tenant %q", tc.path, tc.auth, logs.String(), tc.tenant)
		}
	}
}
