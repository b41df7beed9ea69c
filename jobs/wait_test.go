package jobs

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestParseWait(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, true},
		{"30s", 30 * time.Second, true},
		{"250ms", 250 * time.Millisecond, true},
		{"30", 30 * time.Second, true},
		{"0", 0, true},
		{"5m", MaxWait, true}, // cut to the cap
		{"99999999999", 0, false},
		{"-1s", 0, false},
		{"-3", 0, false},
		{"soon", 0, false},
		{"1.5", 0, false},
	} {
		got, err := parseWait(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseWait(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// getJob GETs a job with a query and decodes it.
func (h *harness) getJob(id, query string) Job {
	h.t.Helper()
	r := h.do("GET", "/v1/jobs/"+id+query, nil)
	if r.status != http.StatusOK {
		h.t.Fatalf("GET %s%s: %d %s", id, query, r.status, r.body)
	}
	var j Job
	if err := json.Unmarshal(r.body, &j); err != nil {
		h.t.Fatal(err)
	}
	return j
}

// TestWaitForChange: GET ?wait= on a running job answers once it
// finishes (not at once, as without wait), a short wait that ends first
// answers the job still running, a finished job answers at once, and a
// bad wait is a 422 naming the parameter. A change made by another
// replica (b never ran the job or saw it change: it polls the store)
// ends a wait too.
func TestWaitForChange(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, store string) {
		a := newHarness(t, store, Config{Workers: 1})
		b := newHarness(t, store, Config{Workers: 1})
		r := a.do("GET", "/v1/jobs/nope?wait=soon", nil)
		if r.status != http.StatusUnprocessableEntity || !strings.Contains(string(r.body), `"/query/wait"`) {
			t.Fatalf("bad wait: %d %s", r.status, r.body)
		}
		long := a.submit(job(sleepInput(5000, 1)))
		a.waitFor(long, "running", func(j Job) bool { return j.State == StateRunning })
		if j := a.getJob(long, "?wait=50ms"); j.State != StateRunning {
			t.Errorf("short wait on a 5 s job: %s, want running", j.State)
		}
		short := a.submit(job(sleepInput(300, 1)))
		first := a.job(short)
		if first.State.Terminal() {
			t.Fatalf("the 300 ms job finished before its first GET: %s", first.State)
		}
		// Each wait returns on a change; the job goes queued -> running ->
		// succeeded, so three waits at most reach the end.
		var seen []State
		for i := 0; i < 3 && (len(seen) == 0 || !seen[len(seen)-1].Terminal()); i++ {
			j := b.getJob(short, "?wait=30s")
			seen = append(seen, j.State)
		}
		if len(seen) == 0 || seen[len(seen)-1] != StateSucceeded || seen[0] == first.State {
			t.Errorf("waits saw %v after %s; want changes ending in succeeded", seen, first.State)
		}
		if j := a.getJob(short, "?wait=30s"); j.State != StateSucceeded {
			t.Errorf("wait on a finished job: %s", j.State)
		}
		a.do("DELETE", "/v1/jobs/"+long, nil)
		a.waitTerminal(long)
	})
}

// TestWaitEndsOnDrain: a server starting its shutdown answers its waits
// at once, so they do not hold up the drain.
func TestWaitEndsOnDrain(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storeURL(t, "sqlite"), Config{Workers: 1})
	id := h.submit(job(sleepInput(5000, 1)))
	h.waitFor(id, "running", func(j Job) bool { return j.State == StateRunning })
	done := make(chan *http.Response, 1)
	go func() {
		resp, err := http.Get(h.srv.URL + "/v1/jobs/" + id + "?wait=60s")
		if err != nil {
			resp = nil
		}
		done <- resp
	}()
	time.Sleep(50 * time.Millisecond) // let the wait start; if it has not, it answers at once anyway
	h.api.SetDraining()
	select {
	case resp := <-done:
		if resp == nil {
			t.Fatal("the wait failed")
		}
		defer resp.Body.Close()
		var j Job
		if err := json.NewDecoder(resp.Body).Decode(&j); err != nil || j.State != StateRunning {
			t.Errorf("state %s (%v), want running", j.State, err)
		}
	case <-time.After(waitLimit):
		t.Fatal("the wait outlived the drain")
	}
	h.do("DELETE", "/v1/jobs/"+id, nil)
	h.waitTerminal(id)
}
