package httpapi

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// slowBody yields its JSON only once readDelay has passed since the
// first Read: a client that takes that long to send the body.
type slowBody struct {
	r     io.Reader
	first time.Time
}

const readDelay = 20 * time.Millisecond

func (b *slowBody) Read(p []byte) (int, error) {
	if b.first.IsZero() {
		b.first = time.Now()
	}
	for time.Since(b.first) < readDelay {
	}
	return b.r.Read(p)
}

// meta.elapsed_ms starts at the request's arrival, so it covers reading
// the body (issue 15, defect 4: elapsed_ms must cover everything the
// client waits for).
func TestElapsedCoversReadingTheBody(t *testing.T) {
	h := newHarness(t, Config{})
	req := httptest.NewRequest(http.MethodPost, "http://localhost/v1/selftest", &slowBody{r: strings.NewReader(`{"mode":"ok","n":1}`)})
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.srv.Handler().ServeHTTP(rec, req)
	var resp struct {
		Meta struct {
			ElapsedMS float64 `json:"elapsed_ms"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil || rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s (%v)", rec.Code, rec.Body, err)
	}
	if resp.Meta.ElapsedMS < float64(readDelay.Milliseconds()) {
		t.Fatalf("elapsed_ms %v < the %v spent reading the body", resp.Meta.ElapsedMS, readDelay)
	}
}
