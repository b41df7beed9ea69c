package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// preflight sends a browser's CORS preflight for POST /v1/selftest.
func preflight(h http.Handler, origin string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodOptions, "http://localhost/v1/selftest", nil)
	req.Header.Set("Origin", origin)
	req.Header.Set("Access-Control-Request-Method", http.MethodPost)
	req.Header.Set("Access-Control-Request-Headers", "content-type, authorization")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// corsHeadersOf lists the Access-Control-* headers of a response.
func corsHeadersOf(rec *httptest.ResponseRecorder) []string {
	var out []string
	for k := range rec.Header() {
		if strings.HasPrefix(k, "Access-Control-") {
			out = append(out, k)
		}
	}
	return out
}

// TestCORSOffByDefault: without --cors-origin no response carries an
// Access-Control-* header, preflight or not.
func TestCORSOffByDefault(t *testing.T) {
	h := newHarness(t, Config{}).srv.Handler()
	if got := corsHeadersOf(preflight(h, "https://app.example")); len(got) != 0 {
		t.Errorf("preflight answered with %v", got)
	}
	req := httptest.NewRequest(http.MethodPost, "http://localhost/v1/selftest", strings.NewReader(`{"mode":"ok"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "https://app.example")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || len(corsHeadersOf(rec)) != 0 {
		t.Errorf("POST: %d with %v", rec.Code, corsHeadersOf(rec))
	}
}

// TestCORSAllowedOrigin: with one origin allowed, its preflight is
// answered (on a server with tokens too: a preflight carries none) and
// its requests carry Access-Control-Allow-Origin, even a 401; any other
// origin gets no CORS header.
func TestCORSAllowedOrigin(t *testing.T) {
	a, err := LoadAuth(writeAuthFile(t, "", "solver solve "+HashToken("t-solve")))
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, Config{CORSOrigins: []string{"https://app.example"}, Auth: a}).srv.Handler()
	rec := preflight(h, "https://app.example")
	if rec.Code/100 != 2 || rec.Header().Get("Access-Control-Allow-Origin") != "https://app.example" ||
		!strings.Contains(rec.Header().Get("Access-Control-Allow-Methods"), http.MethodPost) ||
		!strings.Contains(strings.ToLower(rec.Header().Get("Access-Control-Allow-Headers")), "authorization") {
		t.Errorf("allowed preflight: %d %v", rec.Code, rec.Header())
	}
	if got := corsHeadersOf(preflight(h, "https://evil.example")); len(got) != 0 {
		t.Errorf("other origin's preflight answered with %v", got)
	}
	for _, tc := range []struct {
		origin, auth string
		status       int
		allowed      bool
	}{
		{"https://app.example", "Bearer t-solve", 200, true},
		{"https://app.example", "", 401, true},
		{"https://evil.example", "Bearer t-solve", 200, false},
	} {
		req := httptest.NewRequest(http.MethodPost, "http://localhost/v1/selftest", strings.NewReader(`{"mode":"ok"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", tc.origin)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		got := rec.Header().Get("Access-Control-Allow-Origin")
		if rec.Code != tc.status || (got == tc.origin) != tc.allowed || (!tc.allowed && len(corsHeadersOf(rec)) != 0) {
			t.Errorf("%s %q: %d, CORS headers %v", tc.origin, tc.auth, rec.Code, corsHeadersOf(rec))
		}
		if tc.allowed && !strings.Contains(rec.Header().Get("Access-Control-Expose-Headers"), "X-Request-Id") {
			t.Errorf("%s: X-Request-Id not exposed: %v", tc.origin, rec.Header())
		}
	}
}
