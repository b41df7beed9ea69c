package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/rs/zerolog"

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/jobs"
	"github.com/xflex/xflex/solver"
)

// TestServeAccess: without an auth file only a loopback --addr is
// served; a non-loopback one is refused unless --insecure, which logs a
// warning; with an auth file any address is served, and a bad file is
// refused with its line number.
func TestServeAccess(t *testing.T) {
	good := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(good, []byte("acme solve "+httpapi.HashToken("t")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad")
	if err := os.WriteFile(bad, []byte("# tokens\nacme solve,root "+httpapi.HashToken("t")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		addr, authFile string
		insecure       bool
		err, warn      string
	}{
		{addr: "127.0.0.1:8080"},
		{addr: "127.0.0.2:8080"},
		{addr: "[::1]:8080"},
		{addr: "127.0.0.1:8080", insecure: true},
		{addr: ":8080", err: "not a loopback address"},
		{addr: "0.0.0.0:8080", err: "not a loopback address"},
		{addr: "[::]:8080", err: "not a loopback address"},
		{addr: "192.0.2.1:8080", err: "not a loopback address"},
		{addr: "no-such-host.invalid:8080", err: "no-such-host.invalid"},
		{addr: "0.0.0.0:8080", insecure: true, warn: "--insecure"},
		{addr: ":8080", insecure: true, warn: "--insecure"},
		{addr: "0.0.0.0:8080", authFile: good},
		{addr: "0.0.0.0:8080", authFile: bad, err: bad + ":2: unknown scope"},
		{addr: "127.0.0.1:8080", authFile: bad, err: bad + ":2: unknown scope"},
	} {
		t.Run(fmt.Sprint(tc.addr, tc.authFile != "", tc.insecure), func(t *testing.T) {
			var logs bytes.Buffer
			c := serveConfig{addr: tc.addr, authFile: tc.authFile, insecure: tc.insecure}
			_, auth, err := serveAccess(c, zerolog.New(&logs))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (auth != nil) != (tc.authFile != "") {
				t.Fatalf("auth %v with auth file %q", auth, tc.authFile)
			}
			warned := strings.Contains(logs.String(), `"level":"warn"`)
			if warned != (tc.warn != "") || !strings.Contains(logs.String(), tc.warn) {
				t.Fatalf("log %q, want a warning only with --insecure", logs.String())
			}
		})
	}
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"serve", "--addr", "0.0.0.0:0"}, nil, io.Discard, &stderr); code != 2 ||
		!strings.Contains(stderr.String(), "--auth-file") || !strings.Contains(stderr.String(), "--insecure") {
		t.Fatalf("serve --addr 0.0.0.0:0: exit %d, %s; want 2 naming --auth-file and --insecure", code, stderr.String())
	}
}

// TestAuthFileFromEnv: XFLEX_AUTH_FILE is --auth-file's default.
func TestAuthFileFromEnv(t *testing.T) {
	t.Setenv("XFLEX_AUTH_FILE", "/etc/xflex/tokens")
	c, err := parseServe(nil, io.Discard)
	if err != nil || c.authFile != "/etc/xflex/tokens" {
		t.Fatalf("auth file %q (%v), want the environment's", c.authFile, err)
	}
	if c, err = parseServe([]string{"--auth-file", "other"}, io.Discard); err != nil || c.authFile != "other" {
		t.Fatalf("auth file %q (%v), want the flag's", c.authFile, err)
	}
}

// TestServeInsecureStarts: `serve --addr 0.0.0.0:0 --insecure` starts,
// answers, and its log warns before it serves.
func TestServeInsecureStarts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	srv := startServeLogged(t, "--addr", "0.0.0.0:0", "--insecure", "--store", "sqlite:"+filepath.Join(t.TempDir(), "j.db"))
	if line := srv.log.find("--insecure"); !strings.Contains(line, `"level":"warn"`) {
		t.Fatalf("no warning logged at start: %q", line)
	}
	resp, err := http.Get(srv.url + "/v1/problems")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/v1/problems without a token: %d", resp.StatusCode)
	}
}

// TestServeReloadsOnSIGHUP: a real `xflex serve --auth-file` re-reads the
// file on SIGHUP while requests run, dropping none; afterwards a removed
// token gets 401 and an added one works; a bad file is logged with its
// line number and leaves the tokens in force.
func TestServeReloadsOnSIGHUP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	line := func(tenant, token string) string {
		return tenant + " solve,jobs " + httpapi.HashToken(token)
	}
	path := filepath.Join(t.TempDir(), "tokens")
	replace := func(lines ...string) {
		t.Helper()
		if err := os.WriteFile(path+".new", []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(path+".new", path); err != nil {
			t.Fatal(err)
		}
	}
	replace(line("a", "t-a"), line("b", "t-b"))
	srv := startServeLogged(t, "--addr", "127.0.0.1:0", "--auth-file", path,
		"--store", "sqlite:"+filepath.Join(t.TempDir(), "j.db"))
	get := func(token string) (int, error) {
		req, _ := http.NewRequest(http.MethodGet, srv.url+"/v1/problems", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	if code, err := get("t-b"); err != nil || code != 200 {
		t.Fatalf("token b before the reload: %d %v", code, err)
	}

	const reloads, workers = 8, 3
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var requests, failures sync.Map
	for w := range workers {
		wg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					requests.Store(w, n)
					return
				default:
				}
				if code, err := get("t-a"); err != nil || code != 200 {
					failures.Store(fmt.Sprint(w, "/", n), fmt.Sprint(code, err))
				}
			}
		})
	}
	for i := 1; i <= reloads; i++ {
		if i%2 == 1 {
			replace(line("a", "t-a"), line("c", "t-c"))
		} else {
			replace(line("a", "t-a"), line("b", "t-b"))
		}
		srv.hangup(t, "auth file reloaded", i)
	}
	replace(line("a", "t-a"), line("c", "t-c"))
	srv.hangup(t, "auth file reloaded", reloads+1)
	close(stop)
	wg.Wait()
	total := 0
	requests.Range(func(_, n any) bool { total += n.(int); return true })
	failures.Range(func(k, v any) bool { t.Errorf("request %v during reloads: %v", k, v); return true })
	t.Logf("%d requests with token a during %d reloads", total, reloads+1)
	for token, want := range map[string]int{"t-a": 200, "t-b": 401, "t-c": 200} {
		if code, err := get(token); err != nil || code != want {
			t.Errorf("after the reloads, %s: %d %v, want %d", token, code, err, want)
		}
	}

	replace(line("d", "t-d"), "e solve nothex")
	logged := srv.hangup(t, "auth file reload failed; the tokens loaded before stay in force", 1)
	if !strings.Contains(logged, path+":2: ") {
		t.Errorf("the failed reload's log does not name line 2: %s", logged)
	}
	for token, want := range map[string]int{"t-c": 200, "t-d": 401} {
		if code, err := get(token); err != nil || code != want {
			t.Errorf("after a failed reload, %s: %d %v, want %d", token, code, err, want)
		}
	}
}

// TestTokenNew: `xflex token new` prints a token and the line that grants
// it (the line's hash is the token's SHA-256); with --auth-file it appends
// the line and prints the token only, and refuses to lengthen a bad file.
func TestTokenNew(t *testing.T) {
	out, errs, code := runCLI(t, "token", "new", "acme", "--scopes", "solve,jobs")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 {
		t.Fatalf("exit %d, stdout %q, stderr %q; want a token and a line", code, out, errs)
	}
	sum := sha256.Sum256([]byte(lines[0]))
	if want := "acme solve,jobs " + hex.EncodeToString(sum[:]); lines[1] != want {
		t.Fatalf("line %q, want %q", lines[1], want)
	}
	if !regexp.MustCompile(`^xf_[A-Za-z0-9_-]{43}$`).MatchString(lines[0]) {
		t.Fatalf("token %q is not xf_ + 43 base64url characters", lines[0])
	}

	path := filepath.Join(t.TempDir(), "tokens")
	var tokens []string
	for _, tenant := range []string{"acme", "ops"} {
		out, errs, code := runCLI(t, "token", "new", tenant, "--scopes", "admin", "--auth-file", path)
		if code != 0 || strings.Count(out, "\n") != 1 {
			t.Fatalf("--auth-file: exit %d, stdout %q, stderr %q", code, out, errs)
		}
		tokens = append(tokens, strings.TrimSpace(out))
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("auth file: %v %v, want mode 0600", fi, err)
	}
	a, err := httpapi.LoadAuth(path)
	if err != nil {
		t.Fatal(err)
	}
	if n, tenants := a.Counts(); n != 2 || tenants != 2 {
		t.Fatalf("auth file holds %d tokens of %d tenants, want 2 of 2", n, tenants)
	}
	h := httpapi.New(httpapi.Config{Auth: a}, mustRunner(t), zerolog.Nop()).Handler()
	for _, token := range tokens {
		if code := authRequest(h, "GET", "/v1/problems", token); code != 200 {
			t.Errorf("token %s from the file: %d", token, code)
		}
	}

	if err := os.WriteFile(path, []byte("acme solve short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := runCLI(t, "token", "new", "x", "--auth-file", path); code != 1 || !strings.Contains(errs, path+":1:") {
		t.Fatalf("appending to a bad file: exit %d, %s", code, errs)
	}
	for _, args := range [][]string{{"token"}, {"token", "new"}, {"token", "new", "a b"}, {"token", "new", "a", "--scopes", "root"}} {
		if _, _, code := runCLI(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// TestPolicyCoversEveryRoute walks every route of the full server (API and
// jobs) and checks what each needs with an auth file: a route missing
// from want fails here, so a new route cannot go unconsidered.
func TestPolicyCoversEveryRoute(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens")
	scopes := []httpapi.Scope{httpapi.ScopeSolve, httpapi.ScopeJobs, httpapi.ScopeAdmin}
	var lines []string
	for _, s := range scopes {
		lines = append(lines, fmt.Sprintf("t-%s %s %s", s, s, httpapi.HashToken("t-"+string(s))))
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := httpapi.LoadAuth(path)
	if err != nil {
		t.Fatal(err)
	}
	runner := mustRunner(t)
	api := httpapi.New(httpapi.Config{Auth: a}, runner, zerolog.Nop())
	stop, err := jobs.Setup(context.Background(), jobs.Config{Store: "sqlite:" + filepath.Join(t.TempDir(), "j.db")},
		runner, api, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stop(context.Background()) }()

	want := map[string]string{ // METHOD route -> open, any (token), or the scope
		"GET /healthz": "open", "GET /readyz": "open", "GET /version": "open", "GET /metrics": "admin",
		"GET /ui": "open", "GET /ui/": "open", "GET /ui/{file}": "open",
		"GET /v1/problems": "any", "GET /v1/schemas": "any", "GET /v1/schemas/{name}": "any",
		"GET /v1/openapi.json": "any",
		"POST /v1/jobs":        "jobs", "GET /v1/jobs": "jobs", "GET /v1/jobs/{id}": "jobs", "DELETE /v1/jobs/{id}": "jobs",
		"GET /v1/jobs/{id}/result": "jobs", "GET /v1/jobs/{id}/variants/{name}/result": "jobs",
		"GET /v1/jobs/{id}/picture": "jobs",
	}
	for _, p := range runner.Problems() {
		want["POST /v1/"+p.Name] = "solve"
		if p.Picture != nil {
			want["POST /v1/"+p.Name+"/picture"] = "solve"
		}
		want["GET /v1/examples/"+p.Name] = "any"
	}
	param := regexp.MustCompile(`\{[^}]*\}`)
	h := api.Handler()
	walked := 0
	err = chi.Walk(api.Router(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		walked++
		need, ok := want[method+" "+route]
		if !ok {
			t.Errorf("%s %s is not in the policy test: add it here and to httpapi's basePolicy", method, route)
			return nil
		}
		path := param.ReplaceAllString(route, "x")
		if code := authRequest(h, method, path, ""); (code == 401) != (need != "open") {
			t.Errorf("%s %s (%s) without a token: %d", method, path, need, code)
		}
		for _, s := range scopes {
			code := authRequest(h, method, path, "t-"+string(s))
			refused := code == 401 || code == 403
			if allowed := need == "open" || need == "any" || need == string(s); refused == allowed {
				t.Errorf("%s %s (%s) with a %s token: %d", method, path, need, s, code)
			}
		}
		return nil
	})
	if err != nil || walked != len(want) {
		t.Fatalf("walked %d routes (%v), want %d", walked, err, len(want))
	}
}

// TestJobsCLISendsToken: `xflex jobs` sends --token, or else
// $XFLEX_TOKEN, as Authorization: Bearer.
func TestJobsCLISendsToken(t *testing.T) {
	got := make(chan string, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get("Authorization")
		httpapi.WriteJSON(w, http.StatusOK, map[string]string{"id": "j1"})
	}))
	defer srv.Close()
	if _, errs, code := jobsCLI(t, "", "status", "--server", srv.URL, "--token", "xf_flag", "j1"); code != 0 {
		t.Fatalf("status: exit %d: %s", code, errs)
	}
	t.Setenv("XFLEX_TOKEN", "xf_env")
	if _, errs, code := jobsCLI(t, "", "status", "--server", srv.URL, "j1"); code != 0 {
		t.Fatalf("status: exit %d: %s", code, errs)
	}
	if a, b := <-got, <-got; a != "Bearer xf_flag" || b != "Bearer xf_env" {
		t.Fatalf("Authorization %q and %q, want Bearer xf_flag and Bearer xf_env", a, b)
	}
}

func mustRunner(t *testing.T) *solver.Runner {
	t.Helper()
	r, err := newRunner(time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// authRequest serves one request through h, with a Bearer token if given,
// and returns the status.
func authRequest(h http.Handler, method, path, token string) int {
	req := httptest.NewRequest(method, "http://localhost"+path, strings.NewReader("{}"))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code
}

// loggedServe is an `xflex serve` subprocess whose JSON log is kept.
type loggedServe struct {
	cmd *exec.Cmd
	url string
	log *lineLog
}

// lineLog collects a process's log lines.
type lineLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *lineLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, s)
}

// find returns the first line containing s, or "".
func (l *lineLog) find(s string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range l.lines {
		if strings.Contains(line, s) {
			return line
		}
	}
	return ""
}

// nth returns the nth (from 1) line whose message is msg, or "".
func (l *lineLog) nth(msg string, n int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range l.lines {
		var e struct {
			Message string `json:"message"`
		}
		if json.Unmarshal([]byte(line), &e) == nil && e.Message == msg {
			if n--; n == 0 {
				return line
			}
		}
	}
	return ""
}

// startServeLogged starts `xflex serve args...`, waits for it to serve
// and returns it with the URL of its port on 127.0.0.1. It is killed at
// cleanup.
func startServeLogged(t *testing.T, args ...string) *loggedServe {
	t.Helper()
	cmd, stdout, stderr := launchServe(t, buildXflex(t), args...)
	s := &loggedServe{cmd: cmd, log: &lineLog{}}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			s.log.add(sc.Text())
			var line struct {
				Addr    string `json:"addr"`
				Message string `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Message == "xflex serving" {
				addr <- line.Addr
			}
		}
		close(addr)
	}()
	select {
	case a, ok := <-addr:
		_, port, err := net.SplitHostPort(a)
		if !ok || err != nil {
			t.Fatalf("xflex serve did not start: %q %v: %s", a, err, stderr.String())
		}
		s.url = "http://127.0.0.1:" + port
	case <-time.After(signalWait):
		t.Fatalf("xflex serve did not start within %s", signalWait)
	}
	return s
}

// hangup sends SIGHUP and waits for the nth log line with message msg.
func (s *loggedServe) hangup(t *testing.T, msg string, n int) string {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(signalWait)
	for {
		if line := s.log.nth(msg, n); line != "" {
			return line
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q log line number %d within %s of SIGHUP", msg, n, signalWait)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
