package jobs

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/rs/zerolog"
)

// rescueBound is the promise for a job whose process died: it is
// requeued within its budget plus this long after it started (issue 15).
// The crash test runs the server with the production rescue settings
// (--max-budget 60s, --job-rescue-grace 30s, the default heartbeat
// timeout) so that it checks the defaults keep it.
const rescueBound = 30 * time.Second

// serverProc is a jobserver subprocess (`xflex serve` on the test problem).
type serverProc struct {
	cmd    *exec.Cmd
	addr   string
	stderr *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// jobServerBuild builds the jobserver binary once for every test of the
// package (TestMain removes its directory).
var jobServerBuild struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "xflex-jobserver")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	jobServerBuild.dir = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

func buildJobServer(t *testing.T) string {
	t.Helper()
	b := &jobServerBuild
	b.once.Do(func() {
		bin := filepath.Join(b.dir, "jobserver")
		out, err := exec.Command("go", "build", "-o", bin, "./internal/jobserver").CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("build jobserver: %v\n%s", err, out)
			return
		}
		b.bin = bin
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.bin
}

// quickFlags are the crash tests' server flags: one worker, quick polls,
// a short River rescue.
var quickFlags = []string{"--max-budget", "5s", "--job-rescue-grace", "1s", "--job-poll", "50ms", "--job-workers", "1"}

func startServer(t *testing.T, bin, store string, flags ...string) *serverProc {
	t.Helper()
	if flags == nil {
		flags = quickFlags
	}
	cmd := exec.Command(bin, append([]string{"--store", store}, flags...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &serverProc{cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "listening ") {
		t.Fatalf("server did not start (%q, %v):\n%s", line, err, p.stderr.String())
	}
	p.addr = "http://" + strings.TrimSpace(strings.TrimPrefix(line, "listening "))
	return p
}

func (p *serverProc) job(t *testing.T, id string) Job {
	t.Helper()
	resp, err := http.Get(p.addr + "/v1/jobs/" + id)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var j Job
	if err := json.NewDecoder(resp.Body).Decode(&j); err != nil || resp.StatusCode != 200 {
		t.Fatalf("get job %s: %d %v", id, resp.StatusCode, err)
	}
	return j
}

func (p *serverProc) submit(t *testing.T, body string) string {
	t.Helper()
	resp, err := http.Post(p.addr+"/v1/jobs", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var j Job
	if err := json.NewDecoder(resp.Body).Decode(&j); err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("submit: %d %v", resp.StatusCode, err)
	}
	return j.ID
}

// TestKilledServerLosesNothing kills a server process (SIGKILL) while it
// runs one job and holds another in its queue, restarts it on the same
// store, and checks that both jobs finish: the running one is rescued
// (requeued) within its budget plus rescueBound of its start and solved
// again, the queued one is solved. The server runs with the production
// rescue settings, under which River's own rescuer alone would wait
// --max-budget + --job-rescue-grace = 90 s (issue 15 measured 90-114 s).
func TestKilledServerLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("crash recovery waits for the heartbeat timeout (10 s); skipped with -short")
	}
	t.Parallel() // mostly waiting: overlap it with the other tests
	bin := buildJobServer(t)
	const budget = 4 * time.Second
	prod := []string{"--max-budget", "60s", "--job-rescue-grace", "30s", "--job-poll", "50ms", "--job-workers", "1"}
	forEachStore(t, func(t *testing.T, store string) {
		srv := startServer(t, bin, store, prod...)
		running := srv.submit(t, fmt.Sprintf(`{"problem":"test/sleep","input":{"ms":2500,"value":7,"budget_ms":%d}}`, budget.Milliseconds()))
		queued := srv.submit(t, `{"problem":"test/sleep","input":{"ms":10,"value":8}}`)
		deadline := time.Now().Add(waitLimit)
		var started time.Time
		for {
			j := srv.job(t, running)
			if j.State == StateRunning && j.Progress.Fraction != nil && *j.Progress.Fraction > 0 {
				started = *j.StartedAt
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("job never ran: %+v\n%s", j, srv.stderr.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err := srv.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = srv.cmd.Wait()
		killed := time.Now()

		srv = startServer(t, bin, store, prod...)
		rescueBy := started.Add(budget + rescueBound)
		for {
			j := srv.job(t, running)
			if j.State != StateRunning || j.Attempts > 1 {
				now := time.Now()
				t.Logf("rescued %.1f s after the kill, %.1f s after the start (bound: budget %s + %s)",
					now.Sub(killed).Seconds(), now.Sub(started).Seconds(), budget, rescueBound)
				break
			}
			if time.Now().After(rescueBy) {
				t.Fatalf("job %s still running %s after its start (budget %s): not rescued within budget + %s\n%s",
					running, time.Since(started).Round(time.Second), budget, rescueBound, srv.stderr.String())
			}
			time.Sleep(100 * time.Millisecond)
		}
		deadline = time.Now().Add(waitLimit)
		for _, id := range []string{running, queued} {
			for {
				j := srv.job(t, id)
				if j.State.Terminal() {
					if j.State != StateSucceeded {
						t.Fatalf("job %s ended %s: %+v", id, j.State, j.Error)
					}
					if id == running && j.Attempts != 2 {
						t.Errorf("killed job finished with %d attempts; want exactly a second attempt", j.Attempts)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("job %s not finished %s after its rescue: %+v\n%s", id, waitLimit, j, srv.stderr.String())
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
		resp, err := http.Get(srv.addr + "/v1/jobs/" + running + "/result")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var r struct {
			Result struct {
				Lambda float64 `json:"lambda"`
			} `json:"result"`
			Meta struct {
				Status string `json:"status"`
			} `json:"meta"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.Result.Lambda != 7 || r.Meta.Status != "optimal" {
			t.Errorf("recovered result: %+v (%v)", r, err)
		}
	})
}

// TestGracefulShutdown: SIGTERM lets a running solve finish and store its
// result before the server exits.
func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	bin := buildJobServer(t)
	forEachStore(t, func(t *testing.T, store string) {
		srv := startServer(t, bin, store)
		id := srv.submit(t, `{"problem":"test/sleep","input":{"ms":800,"value":5}}`)
		deadline := time.Now().Add(waitLimit)
		for srv.job(t, id).State != StateRunning {
			if time.Now().After(deadline) {
				t.Fatalf("job never ran:\n%s", srv.stderr.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
		if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := srv.cmd.Wait(); err != nil {
			t.Fatalf("server exit: %v\n%s", err, srv.stderr.String())
		}
		srv = startServer(t, bin, store)
		if j := srv.job(t, id); j.State != StateSucceeded || j.Attempts != 1 {
			t.Errorf("after a graceful stop the running job is %s after %d attempts; want succeeded in 1", j.State, j.Attempts)
		}
	})
}

// TestShutdownTimeoutRequeues: when shutdown runs out of time, running
// solves are stopped and put back in the queue, and the next process runs
// them again.
func TestShutdownTimeoutRequeues(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, store string) {
		a := newHarness(t, store, Config{})
		id := a.submit(job(sleepInput(2000, 6)))
		a.waitFor(id, "running", func(j Job) bool { return j.State == StateRunning })
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_ = a.svc.Stop(ctx)
		a.srv.Close()
		b := newHarness(t, store, Config{})
		j := b.waitTerminal(id)
		if j.State != StateSucceeded || j.Attempts < 2 {
			t.Errorf("requeued job: %s after %d attempts; want succeeded on a second attempt", j.State, j.Attempts)
		}
	})
}

// TestLiveJobIsNeverRescued: with a 2 s heartbeat timeout (8 beats: a
// fifth of the default, with room for a loaded machine), a solve running
// more than twice as long on one of two replicas, both rescuing every
// 400 ms, is never requeued: its worker's heartbeat keeps it.
func TestLiveJobIsNeverRescued(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, store string) {
		cfg := Config{HeartbeatTimeout: 2 * time.Second, Workers: 1}
		a, b := newHarness(t, store, cfg), newHarness(t, store, cfg)
		id := a.submit(job(sleepInput(4500, 4)))
		if j := a.waitTerminal(id); j.State != StateSucceeded || j.Attempts != 1 {
			t.Errorf("live job: %s after %d attempts; want succeeded in 1", j.State, j.Attempts)
		}
		for _, h := range []*harness{a, b} {
			if strings.Contains(h.logs.String(), "requeued") {
				t.Errorf("a replica requeued a live job:\n%s", h.logs.String())
			}
		}
	})
}

// TestRescuedWorkerDropsItsAttempt: a job rescued from under a live worker
// (as if its heartbeat had stalled past the timeout) belongs to the new
// attempt; the old worker notices at its next heartbeat, stops and writes
// nothing, and the new attempt's answer is the job's.
func TestRescuedWorkerDropsItsAttempt(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, store string) {
		a := newHarness(t, store, Config{Workers: 1})
		id := a.submit(job(sleepInput(3000, 9)))
		a.waitFor(id, "running", func(j Job) bool { return j.State == StateRunning })
		// A replica that is never started rescues every running job.
		c, err := Open(context.Background(), Config{Store: store}, a.svc.runner, zerolog.Nop())
		if err != nil {
			t.Fatal(err)
		}
		defer c.db.Close()
		c.cfg.HeartbeatTimeout = -time.Hour
		if err := c.rescue(context.Background()); err != nil {
			t.Fatal(err)
		}
		if n := testutil.ToFloat64(c.metrics.rescues); n != 1 {
			t.Errorf("xflex_job_rescues_total %v, want 1", n)
		}
		j := a.waitTerminal(id)
		if j.State != StateSucceeded || j.Attempts != 2 {
			t.Errorf("rescued job: %s after %d attempts; want succeeded on the second", j.State, j.Attempts)
		}
		if r := a.do("GET", "/v1/jobs/"+id+"/result", nil); r.status != http.StatusOK || !strings.Contains(string(r.body), `"lambda":9`) {
			t.Errorf("result: %d %s", r.status, r.body)
		}
		if !strings.Contains(a.logs.String(), "attempt dropped") {
			t.Errorf("the first worker did not drop its attempt:\n%s", a.logs.String())
		}
	})
}
