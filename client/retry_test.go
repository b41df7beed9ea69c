package client

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestRetrierHonoursRetryAfter: a 503 with Retry-After: 7 is retried
// after 7 s (the wait is recorded, not slept), with the same body, and
// the answer after it is returned; without Retry-After the backoff
// doubles; a POST /v1/jobs without an Idempotency-Key is not resent
// after a lost answer (502) or a 503, one with a key is.
func TestRetrierHonoursRetryAfter(t *testing.T) {
	var n atomic.Int32
	var bodies []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := make([]byte, 64)
		k, _ := r.Body.Read(b)
		bodies = append(bodies, string(b[:k]))
		switch r.URL.Path {
		case "/v1/cmmf":
			if n.Add(1) == 1 {
				w.Header().Set("Retry-After", "7")
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
		case "/v1/flex":
			if n.Add(1) <= 2 {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
		case "/v1/jobs":
			n.Add(1)
			w.WriteHeader(http.StatusBadGateway)
			return
		case "/v1/jobs/busy":
			n.Add(1)
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, "ok")
	}))
	defer ts.Close()
	var waits []time.Duration
	r := &Retrier{Next: http.DefaultClient, Policy: RetryPolicy{Attempts: 3, Backoff: time.Second, MaxWait: time.Minute},
		sleep: func(_ *http.Request, d time.Duration) error { waits = append(waits, d); return nil }}
	post := func(path, key string) *http.Response {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, ts.URL+path, strings.NewReader(`{"x":1}`))
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		resp, err := r.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if resp := post("/v1/cmmf", ""); resp.StatusCode != 200 || fmt.Sprint(waits) != "[7s]" || fmt.Sprint(bodies) != `[{"x":1} {"x":1}]` {
		t.Errorf("503 Retry-After 7: %d, waits %v, bodies %v", resp.StatusCode, waits, bodies)
	}
	n.Store(0)
	waits = nil
	if resp := post("/v1/flex", ""); resp.StatusCode != 200 || fmt.Sprint(waits) != "[1s 2s]" {
		t.Errorf("503 without Retry-After: %d, waits %v", resp.StatusCode, waits)
	}
	n.Store(0)
	if resp := post("/v1/jobs", ""); resp.StatusCode != 502 || n.Load() != 1 {
		t.Errorf("a submission without a key was sent %d times", n.Load())
	}
	n.Store(0)
	if resp := post("/v1/jobs/busy", ""); resp.StatusCode != 503 || n.Load() != 1 {
		t.Errorf("a submission without a key refused with 503 was sent %d times, want once (a proxy's 503 may hide a taken job)", n.Load())
	}
	n.Store(0)
	if resp := post("/v1/jobs", "k"); resp.StatusCode != 502 || n.Load() != 3 {
		t.Errorf("a submission with a key was sent %d times, want 3 (the policy's attempts)", n.Load())
	}
}

// TestParseRetryAfter reads both forms RFC 9110 allows.
func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"3": 3 * time.Second, "0": 0, now.Add(10 * time.Second).Format(http.TimeFormat): 10 * time.Second,
	} {
		if d, ok := parseRetryAfter(v, now); !ok || d != want {
			t.Errorf("%q: %v %v, want %v", v, d, ok, want)
		}
	}
	for _, v := range []string{"", "-1", "soon"} {
		if _, ok := parseRetryAfter(v, now); ok {
			t.Errorf("%q parsed", v)
		}
	}
}
