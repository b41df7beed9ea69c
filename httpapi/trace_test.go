package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

func TestParseTraceParent(t *testing.T) {
	const trace, parent = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	for _, tc := range []struct {
		h  string
		ok bool
	}{
		{"00-" + trace + "-" + parent + "-01", true},
		{"00-" + trace + "-" + parent + "-00", true},
		{"01-" + trace + "-" + parent + "-01-future", true}, // a later version may add fields
		{"00-" + trace + "-" + parent + "-01-extra", false}, // version 00 may not
		{"ff-" + trace + "-" + parent + "-01", false},       // version ff is invalid
		{"00-" + strings.ToUpper(trace) + "-" + parent + "-01", false},
		{"00-00000000000000000000000000000000-" + parent + "-01", false},
		{"00-" + trace + "-0000000000000000-01", false},
		{"00-" + trace + "-" + parent, false},
		{"00-" + trace[1:] + "-" + parent + "-01", false},
		{"", false},
		{"garbage", false},
	} {
		tp, ok := parseTraceParent(tc.h)
		if ok != tc.ok {
			t.Errorf("%q: ok %v, want %v", tc.h, ok, tc.ok)
		}
		if ok && (tp.TraceID != trace || tp.ParentID != parent) {
			t.Errorf("%q: parsed %+v", tc.h, tp)
		}
	}
}

// TestTraceparentLogged: a valid traceparent puts its trace and parent ids
// in the access log line next to the request id; an invalid one, or two
// headers, are ignored (served, nothing logged), and no traceparent is
// ever echoed.
func TestTraceparentLogged(t *testing.T) {
	var logs bytes.Buffer
	h := newLoggingHarness(t, Config{}, zerolog.New(&logs))
	const valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for _, tc := range []struct {
		name    string
		headers []string
		trace   string
	}{
		{"valid", []string{valid}, "4bf92f3577b34da6a3ce929d0e0e4736"},
		{"invalid", []string{"00-zz-00f067aa0ba902b7-01"}, ""},
		{"twice", []string{valid, valid}, ""},
		{"absent", nil, ""},
	} {
		logs.Reset()
		req := httptest.NewRequest(http.MethodPost, "http://localhost/v1/selftest", strings.NewReader(`{"mode":"ok"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Request-Id", "req-"+tc.name)
		for _, v := range tc.headers {
			req.Header.Add("Traceparent", v)
		}
		rec := httptest.NewRecorder()
		h.srv.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: status %d: %s", tc.name, rec.Code, rec.Body)
		}
		if got := rec.Header().Values("Traceparent"); len(got) != 0 {
			t.Errorf("%s: traceparent echoed: %v", tc.name, got)
		}
		var line struct {
			Message   string  `json:"message"`
			RequestID string  `json:"request_id"`
			TraceID   *string `json:"trace_id"`
			ParentID  *string `json:"parent_id"`
		}
		if err := json.Unmarshal(lastLine(logs.String()), &line); err != nil || line.Message != "request" {
			t.Fatalf("%s: log %q: %v", tc.name, logs.String(), err)
		}
		if line.RequestID != "req-"+tc.name {
			t.Errorf("%s: request_id %q", tc.name, line.RequestID)
		}
		switch {
		case tc.trace == "" && (line.TraceID != nil || line.ParentID != nil):
			t.Errorf("%s: trace logged: %s", tc.name, logs.String())
		case tc.trace != "" && (line.TraceID == nil || *line.TraceID != tc.trace || line.ParentID == nil || *line.ParentID != "00f067aa0ba902b7"):
			t.Errorf("%s: log %s, want trace_id %s", tc.name, logs.String(), tc.trace)
		}
	}
}

// lastLine is the last line of a log.
func lastLine(s string) []byte {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return []byte(lines[len(lines)-1])
}
