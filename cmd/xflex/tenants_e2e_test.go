package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/xflex/xflex/jobs"
	"github.com/xflex/xflex/jobs/jobtest"
)

// e2eWait bounds every poll in the tenant end-to-end tests; reaching it is
// a failure (a hung server or job), not a timing assertion.
const e2eWait = 30 * time.Second

// e2eTokens writes an auth file holding, through `xflex token new`, one
// token per entry of scopes ("tenant:scopes" -> token) and returns the file
// and the tokens by the same key.
func e2eTokens(t *testing.T, bin string, specs ...string) (string, map[string]string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "tokens")
	toks := map[string]string{}
	for _, spec := range specs {
		tenant, scopes, _ := strings.Cut(spec, ":")
		out, err := exec.Command(bin, "token", "new", tenant, "--scopes", scopes, "--auth-file", file).Output()
		if err != nil {
			t.Fatalf("token new %s: %v", spec, err)
		}
		toks[spec] = strings.TrimSpace(string(out))
	}
	return file, toks
}

// e2eResp is one answer: status, headers and body.
type e2eResp struct {
	code int
	hdr  http.Header
	body []byte
}

// e2eDo sends one request with the token (none when empty) and headers
// given as name, value pairs; a transport error is returned, not fatal, so
// that callers can retry an answer lost to a killed server.
func e2eDo(method, url, token, body string, hdr ...string) (e2eResp, error) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return e2eResp{}, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	c := http.Client{Timeout: e2eWait}
	resp, err := c.Do(req)
	if err != nil {
		return e2eResp{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return e2eResp{resp.StatusCode, resp.Header, b}, err
}

// must is e2eDo failing the test on a transport error.
func must(t *testing.T, method, url, token, body string, hdr ...string) e2eResp {
	t.Helper()
	r, err := e2eDo(method, url, token, body, hdr...)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	return r
}

// e2eJob decodes a job body.
func e2eJob(t *testing.T, r e2eResp) jobs.Job {
	t.Helper()
	var j jobs.Job
	if err := json.Unmarshal(r.body, &j); err != nil {
		t.Fatalf("job body %q: %v", r.body, err)
	}
	return j
}

// e2eList returns the ids and tenants of every job the token lists at url
// (following next links).
func e2eList(url, token string) (map[string]string, error) {
	seen := map[string]string{}
	base := url[:strings.Index(url, "/v1/")]
	for url != "" {
		r, err := e2eDo("GET", url, token, "")
		if err != nil {
			return nil, err
		}
		if r.code != http.StatusOK {
			return nil, fmt.Errorf("list %s: %d %s", url, r.code, r.body)
		}
		var page struct {
			Jobs []jobs.Job `json:"jobs"`
			Next string     `json:"next"`
		}
		if err := json.Unmarshal(r.body, &page); err != nil {
			return nil, err
		}
		for _, j := range page.Jobs {
			seen[j.ID] = j.Tenant
		}
		url = ""
		if page.Next != "" {
			url = base + page.Next
		}
	}
	return seen, nil
}

// e2eSubmitBody is a POST /v1/jobs body for problem with the input in file.
func e2eSubmitBody(t *testing.T, problem, file string) string {
	t.Helper()
	in, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"problem":%q,"input":%s}`, problem, in)
	return b.String()
}

// e2eSlowInput writes an xsize instance that takes this machine seconds to
// solve (3 s measured unloaded; its budget of 30 s leaves the solve to
// end by itself, later under load), so that a tenant's one running job is
// still running when its next submissions arrive.
func e2eSlowInput(t *testing.T, bin string) string {
	t.Helper()
	out, err := exec.Command(bin, "gen", "xsize", "--seed", "1", "--dims", "4", "--distinct", "5000",
		"--requests", "20000", "--epsilon", "0.005", "--k", "40").Output()
	if err != nil {
		t.Fatalf("gen xsize: %v", err)
	}
	out = append([]byte(`{"budget_ms":30000,`), bytes.TrimPrefix(bytes.TrimSpace(out), []byte("{"))...)
	file := filepath.Join(t.TempDir(), "slow.json")
	if err := os.WriteFile(file, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// e2eFlags are the servers' flags in these tests: loopback on any port,
// one worker, quick polls, and per-tenant quotas of one running and one
// queued job.
func e2eFlags(store, authFile string) []string {
	return []string{"--addr", "127.0.0.1:0", "--store", store, "--auth-file", authFile,
		"--job-workers", "1", "--job-poll", "50ms", "--job-tenant-running", "1", "--job-tenant-queue", "1"}
}

// e2eStop ends a server with SIGTERM and waits for it (bounded).
func e2eStop(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(e2eWait):
		_ = cmd.Process.Kill()
		t.Fatal("server did not stop on SIGTERM")
	}
}

// e2eSettled waits until the job is no longer queued or running.
func e2eSettled(t *testing.T, url, token string) {
	t.Helper()
	for end := time.Now().Add(e2eWait); ; time.Sleep(50 * time.Millisecond) {
		j := e2eJob(t, must(t, "GET", url, token, ""))
		if j.State != jobs.StateQueued && j.State != jobs.StateRunning {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("%s still %s after %v", url, j.State, e2eWait)
		}
	}
}

// TestTenantsEndToEnd (issue 16) drives a real server with an auth file of
// three tenants (a, b and an admin) over HTTP: authentication and scopes,
// tenant isolation of every job route, the admin's view, X-Client-Id
// deciding nothing, the per-tenant quota, and Idempotency-Key replays, also
// across a restart on the same SQLite store.
func TestTenantsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs servers")
	}
	t.Parallel()
	start := time.Now()
	bin := buildXflex(t)
	authFile, tok := e2eTokens(t, bin, "a:solve,jobs", "b:solve,jobs", "admin:solve,jobs,admin", "a:jobs")
	a, b, admin, aJobsOnly := tok["a:solve,jobs"], tok["b:solve,jobs"], tok["admin:solve,jobs,admin"], tok["a:jobs"]
	store := "sqlite:" + filepath.Join(t.TempDir(), "jobs.db")
	srv, base := startXflex(t, bin, e2eFlags(store, authFile)...)
	cheap := e2eSubmitBody(t, "cmmf", e2eExample)
	slow := e2eSubmitBody(t, "xsize", e2eSlowInput(t, bin))

	// Authentication and scopes.
	for _, path := range []string{"/v1/jobs", "/v1/jobs/nope", "/v1/nowhere"} {
		r := must(t, "GET", base+path, "", "")
		if r.code != http.StatusUnauthorized || !strings.HasPrefix(r.hdr.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("GET %s without a token: %d, WWW-Authenticate %q; want 401, Bearer", path, r.code, r.hdr.Get("WWW-Authenticate"))
		}
	}
	if r := must(t, "POST", base+"/v1/jobs", "", cheap); r.code != http.StatusUnauthorized {
		t.Errorf("POST /v1/jobs without a token: %d, want 401", r.code)
	}
	ex, err := os.ReadFile(e2eExample)
	if err != nil {
		t.Fatal(err)
	}
	if r := must(t, "POST", base+"/v1/cmmf", aJobsOnly, string(ex)); r.code != http.StatusForbidden {
		t.Errorf("POST /v1/cmmf with a jobs-only token: %d %s, want 403", r.code, r.body)
	}

	// Tenant a fills its quota (one running, one queued) under two client
	// ids; a third client id is refused all the same; b is not.
	submit := func(token, body string, hdr ...string) e2eResp {
		return must(t, "POST", base+"/v1/jobs", token, body, hdr...)
	}
	r1 := submit(a, slow, "X-Client-Id", "c1")
	r2 := submit(a, cheap, "X-Client-Id", "c2")
	if r1.code != http.StatusAccepted || r2.code != http.StatusAccepted {
		t.Fatalf("a's submissions: %d %s, %d %s; want 202", r1.code, r1.body, r2.code, r2.body)
	}
	a1, a2 := e2eJob(t, r1).ID, e2eJob(t, r2).ID
	r3 := submit(a, cheap, "X-Client-Id", "c3")
	if r3.code != http.StatusTooManyRequests || r3.hdr.Get("Retry-After") == "" || !bytes.Contains(r3.body, []byte("too_many_jobs")) {
		t.Errorf("a's third job: %d Retry-After %q %s; want 429, a Retry-After, too_many_jobs", r3.code, r3.hdr.Get("Retry-After"), r3.body)
	}
	rb := submit(b, cheap)
	if rb.code != http.StatusAccepted {
		t.Fatalf("b's submission while a is at its quota: %d %s", rb.code, rb.body)
	}
	b1 := e2eJob(t, rb).ID
	if j := e2eJob(t, r1); j.Tenant != "a" {
		t.Errorf("a's job has tenant %q", j.Tenant)
	}

	// b sees nothing of a's: get, result, cancel answer 404, lists omit it.
	for _, req := range [][2]string{{"GET", "/v1/jobs/" + a1}, {"GET", "/v1/jobs/" + a1 + "/result"}, {"DELETE", "/v1/jobs/" + a1}, {"GET", "/v1/jobs/" + a2}} {
		if r := must(t, req[0], base+req[1], b, ""); r.code != http.StatusNotFound {
			t.Errorf("b %s %s: %d %s, want 404", req[0], req[1], r.code, r.body)
		}
	}
	wantList := func(who, token, query string, want ...string) {
		t.Helper()
		got, err := e2eList(base+"/v1/jobs"+query, token)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Errorf("%s lists %v at %q, want %v", who, got, query, want)
		}
		for _, id := range want {
			if _, ok := got[id]; !ok {
				t.Errorf("%s's list at %q lacks %s: %v", who, query, id, got)
			}
		}
	}
	wantList("b", b, "", b1)
	wantList("b", b, "?tenant=a", nil...)
	// a sees its jobs whatever X-Client-Id it sends (none, or another).
	wantList("a", a, "", a1, a2)
	if r := must(t, "GET", base+"/v1/jobs/"+a2, a, "", "X-Client-Id", "c9"); r.code != http.StatusOK {
		t.Errorf("a's job under another client id: %d", r.code)
	}
	// The admin sees every tenant's jobs, filters by tenant, reads a's.
	wantList("admin", admin, "", a1, a2, b1)
	wantList("admin", admin, "?tenant=a", a1, a2)
	if r := must(t, "GET", base+"/v1/jobs/"+a1, admin, ""); r.code != http.StatusOK || e2eJob(t, r).Tenant != "a" {
		t.Errorf("admin GET a's job: %d %s", r.code, r.body)
	}
	// b's DELETE did not touch a's job: a cancels it itself.
	if j := e2eJob(t, must(t, "GET", base+"/v1/jobs/"+a1, a, "")); j.State == jobs.StateCancelled {
		t.Error("b's DELETE cancelled a's job")
	}
	if r := must(t, "DELETE", base+"/v1/jobs/"+a1, a, ""); r.code != http.StatusOK && r.code != http.StatusAccepted {
		t.Errorf("a cancels its job: %d %s", r.code, r.body)
	}
	e2eSettled(t, base+"/v1/jobs/"+a1, a)
	e2eSettled(t, base+"/v1/jobs/"+a2, a)

	// Idempotency-Key: a replay returns the first job, also after a restart.
	key := []string{"Idempotency-Key", "e2e-key-1"}
	first := submit(a, cheap, key...)
	if first.code != http.StatusAccepted {
		t.Fatalf("keyed submission: %d %s", first.code, first.body)
	}
	id := e2eJob(t, first).ID
	wantReplay := func(base, when string) {
		t.Helper()
		r := must(t, "POST", base+"/v1/jobs", a, cheap, key...)
		if r.code != http.StatusOK || e2eJob(t, r).ID != id || r.hdr.Get("Location") != "/v1/jobs/"+id {
			t.Errorf("replay %s: %d Location %q %s; want 200, job %s", when, r.code, r.hdr.Get("Location"), r.body, id)
		}
	}
	wantReplay(base, "on the same server")
	e2eStop(t, srv)
	_, base2 := startXflex(t, bin, e2eFlags(store, authFile)...)
	wantReplay(base2, "after a restart")
	if r := must(t, "POST", base2+"/v1/jobs", b, cheap, key...); r.code != http.StatusAccepted || e2eJob(t, r).ID == id {
		t.Errorf("b's submission with a's key: %d %s; want 202 and a job of its own (keys are per tenant)", r.code, r.body)
	}
	t.Logf("tenants e2e (SQLite): a 3 submitted, 2 accepted, 1 refused (429); b 1 accepted; keyed replays 2 (one after restart); %v", time.Since(start).Round(time.Millisecond))
}

// e2eExample is the cheap input the tests submit.
var e2eExample = filepath.Join("..", "..", "examples", "cmmf.json")

// e2eRun counts what one tenant's submitters saw in
// TestTenantsTwoReplicasPostgres.
type e2eRun struct {
	mu        sync.Mutex
	ids       map[string]string // Idempotency-Key -> job id
	accepted  int               // 202s
	replayed  int               // 200s (a retried key whose first answer was lost)
	retries   int               // submissions sent again after a transport error
	sightings []string          // another tenant's jobs this tenant saw
	checks    int               // lists and gets this tenant made watching
}

// record notes the answer to key; a key answered twice with two ids is a
// duplicate job.
func (s *e2eRun) record(t *testing.T, key string, r e2eResp) {
	var j jobs.Job
	if err := json.Unmarshal(r.body, &j); err != nil || j.ID == "" {
		t.Errorf("submission %s: %d %s", key, r.code, r.body)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if prev, ok := s.ids[key]; ok && prev != j.ID {
		t.Errorf("key %s answered with jobs %s and %s", key, prev, j.ID)
	}
	s.ids[key] = j.ID
	if r.code == http.StatusOK {
		s.replayed++
	} else {
		s.accepted++
	}
}

// TestTenantsTwoReplicasPostgres (issue 16): two real server replicas share
// one PostgreSQL database; tenants a and b submit keyed jobs to both at
// once while each watches the other's jobs through both replicas, and one
// replica is killed with SIGKILL mid-run. Submissions whose answer was lost
// are retried with the same key against the surviving replica. No job of
// one tenant may ever be visible to the other, and every tenant ends with
// exactly one job per key.
func TestTenantsTwoReplicasPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs servers")
	}
	db := jobtest.FreshPostgres(t)
	t.Parallel()
	start := time.Now()
	bin := buildXflex(t)
	authFile, tok := e2eTokens(t, bin, "a:solve,jobs", "b:solve,jobs")
	flags := append(e2eFlags(db, authFile), "--job-tenant-running", "2", "--job-tenant-queue", "100")
	victim, base1 := startXflex(t, bin, flags...)
	_, base2 := startXflex(t, bin, flags...)
	cheap := e2eSubmitBody(t, "cmmf", e2eExample)
	const perReplica = 12 // keyed submissions per tenant and replica
	const killAfter = 4   // a's submissions to replica 1 answered before the kill
	tenants := []string{"a", "b"}
	runs := map[string]*e2eRun{"a": {ids: map[string]string{}}, "b": {ids: map[string]string{}}}
	killed := make(chan struct{})
	var killOnce sync.Once
	kill := func() { killOnce.Do(func() { _ = victim.Process.Kill(); close(killed) }) }

	var submitters, watchers sync.WaitGroup
	for _, tenant := range tenants {
		run := runs[tenant]
		for ri, base := range []string{base1, base2} {
			submitters.Add(1)
			go func() {
				defer submitters.Done()
				for i := range perReplica {
					key := fmt.Sprintf("%s-r%d-%d", tenant, ri+1, i)
					r, err := e2eDo("POST", base+"/v1/jobs", tok[tenant+":solve,jobs"], cheap, "Idempotency-Key", key)
					if err != nil { // the answer was lost: retry on the survivor
						run.mu.Lock()
						run.retries++
						run.mu.Unlock()
						r, err = e2eDo("POST", base2+"/v1/jobs", tok[tenant+":solve,jobs"], cheap, "Idempotency-Key", key)
						if err != nil {
							t.Errorf("retry %s: %v", key, err)
							continue
						}
					}
					run.record(t, key, r)
					if tenant == "a" && ri == 0 && i+1 == killAfter {
						kill()
					}
				}
			}()
		}
	}
	// Each tenant watches the other's known jobs and its own lists on both
	// replicas until the submitters are done.
	done := make(chan struct{})
	for _, tenant := range tenants {
		other := runs["b"]
		if tenant == "b" {
			other = runs["a"]
		}
		watchers.Add(1)
		go func() {
			defer watchers.Done()
			run, token := runs[tenant], tok[tenant+":solve,jobs"]
			for {
				for _, base := range []string{base1, base2} {
					e2eWatch(base, token, tenant, run, other)
				}
				select {
				case <-done:
					return
				default:
				}
			}
		}()
	}
	submitters.Wait()
	close(done)
	watchers.Wait()
	kill()

	for _, tenant := range tenants {
		run := runs[tenant]
		// Every key sent to the killed replica again, as if each answer
		// had been lost: the survivor must replay the same job.
		for i := range perReplica {
			key := fmt.Sprintf("%s-r1-%d", tenant, i)
			run.record(t, key, must(t, "POST", base2+"/v1/jobs", tok[tenant+":solve,jobs"], cheap, "Idempotency-Key", key))
		}
		listed, err := e2eList(base2+"/v1/jobs?limit=500", tok[tenant+":solve,jobs"])
		if err != nil {
			t.Fatal(err)
		}
		distinct := map[string]bool{}
		for _, id := range run.ids {
			distinct[id] = true
			if listed[id] != tenant {
				t.Errorf("%s's job %s is not in its list", tenant, id)
			}
		}
		if len(run.ids) != 2*perReplica || len(distinct) != len(run.ids) || len(listed) != len(run.ids) {
			t.Errorf("%s: %d keys answered, %d distinct jobs, %d listed; want %d of each", tenant, len(run.ids), len(distinct), len(listed), 2*perReplica)
		}
		if len(run.sightings) > 0 {
			t.Errorf("%s saw another tenant's jobs: %v", tenant, run.sightings)
		}
		t.Logf("tenant %s: %d keys, %d accepted (202), %d replayed (200), %d retries, %d jobs listed, %d duplicates, %d cross-tenant sightings in %d lists and gets",
			tenant, len(run.ids), run.accepted, run.replayed, run.retries, len(listed), len(run.ids)-len(distinct), len(run.sightings), run.checks)
	}
	t.Logf("two replicas on PostgreSQL, one killed: %v", time.Since(start).Round(time.Millisecond))
}

// e2eWatch lists tenant's jobs on base and gets every job other was
// answered with, noting in run every job of another tenant it sees.
// Transport errors (the killed replica) are skipped.
func e2eWatch(base, token, tenant string, run, other *e2eRun) {
	listed, err := e2eList(base+"/v1/jobs?limit=500", token)
	if err == nil {
		run.mu.Lock()
		run.checks++
		run.mu.Unlock()
		for id, owner := range listed {
			if owner != tenant {
				run.mu.Lock()
				run.sightings = append(run.sightings, "listed "+id)
				run.mu.Unlock()
			}
		}
	}
	other.mu.Lock()
	ids := make([]string, 0, len(other.ids))
	for _, id := range other.ids {
		ids = append(ids, id)
	}
	other.mu.Unlock()
	for _, id := range ids {
		r, err := e2eDo("GET", base+"/v1/jobs/"+id, token, "")
		if err != nil {
			continue
		}
		run.mu.Lock()
		run.checks++
		if r.code != http.StatusNotFound {
			run.sightings = append(run.sightings, fmt.Sprintf("GET %s: %d", id, r.code))
		}
		run.mu.Unlock()
	}
}
