package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/xflex/xflex/httpapi"
)

// TestSubmitAdmitted: expanding a submission (patching and validating its
// variants) costs like a solve, so it is admitted like one: while the only
// solve slot is busy, POST /v1/jobs waits, then gets 503 with Retry-After.
func TestSubmitAdmitted(t *testing.T) {
	t.Parallel()
	h := newHarnessAPI(t, storeURL(t, "sqlite"), Config{}, httpapi.Config{MaxConcurrent: 1, QueueWait: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, h.srv.URL+"/v1/test/sleep",
			bytes.NewReader([]byte(`{"ms":60000,"value":1,"budget_ms":60000}`)))
		req.Header.Set("Content-Type", "application/json")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	defer func() { cancel(); <-done }()
	for start := time.Now(); ; time.Sleep(5 * time.Millisecond) {
		var ready struct {
			InFlight int `json:"solves_in_flight"`
		}
		_ = json.Unmarshal(h.do(http.MethodGet, "/readyz", nil).body, &ready)
		if ready.InFlight == 1 {
			break
		}
		if time.Since(start) > waitLimit {
			t.Fatal("the synchronous solve never started")
		}
	}
	r := h.do(http.MethodPost, "/v1/jobs", job(sleepInput(1, 1)))
	if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
		t.Fatalf("submission while the only slot is busy: %d (Retry-After %q) %s", r.status, r.header.Get("Retry-After"), r.body)
	}
}
