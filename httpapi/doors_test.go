package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestInvalidUTF8Refused: a body with a byte that starts no UTF-8
// sequence gets 400 naming its byte offset, not a solve on U+FFFD.
func TestInvalidUTF8Refused(t *testing.T) {
	h := newHarness(t, Config{})
	rec := post(t, h.srv.Handler(), "/v1/selftest", "application/json", "{\"mode\":\"ok\xff\"}")
	if rec.Code != http.StatusBadRequest {
		t.Fatalf("invalid UTF-8: %d %s, want 400", rec.Code, rec.Body)
	}
	if p := decodeProblem(t, rec); p.Type != TypeBase+"malformed" || !strings.Contains(p.Detail, "byte offset 11 ") {
		t.Fatalf("problem %+v, want malformed at byte offset 11", p)
	}
}

// TestHeadOnGetRoutes: HEAD answers on every GET route with the GET's
// status and headers and no body; a path without GET still answers 405,
// and a 405's Allow lists HEAD wherever it lists GET.
func TestHeadOnGetRoutes(t *testing.T) {
	h := newHarness(t, Config{}).srv.Handler()
	for _, path := range []string{"/healthz", "/readyz", "/version", "/v1/problems", "/v1/schemas",
		"/v1/schemas/selftest.request.json", "/v1/openapi.json", "/ui/"} {
		get, head := httptest.NewRecorder(), httptest.NewRecorder()
		h.ServeHTTP(get, httptest.NewRequest(http.MethodGet, "http://localhost"+path, nil))
		h.ServeHTTP(head, httptest.NewRequest(http.MethodHead, "http://localhost"+path, nil))
		if head.Code != get.Code || head.Code != http.StatusOK ||
			head.Header().Get("Content-Type") != get.Header().Get("Content-Type") {
			t.Errorf("HEAD %s: %d %q, GET %d %q", path, head.Code, head.Header().Get("Content-Type"), get.Code, get.Header().Get("Content-Type"))
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodHead, "http://localhost/v1/selftest", nil))
	if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != "POST" {
		t.Errorf("HEAD on a POST route: %d Allow %q, want 405 Allow POST", rec.Code, rec.Header().Get("Allow"))
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodDelete, "http://localhost/healthz", nil))
	if rec.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("DELETE /healthz: Allow %q, want GET, HEAD", rec.Header().Get("Allow"))
	}
}

// TestAnswersNotSniffed: JSON, problem and SVG answers carry nosniff and
// a Content-Security-Policy that allows no script, fetch or framing; the
// SVG's allows inline styles only.
func TestAnswersNotSniffed(t *testing.T) {
	h := newHarness(t, Config{}).srv.Handler()
	ok := post(t, h, "/v1/selftest", "application/json", `{"mode":"ok"}`)
	bad := post(t, h, "/v1/selftest", "application/json", `{"mode":`)
	svg := httptest.NewRecorder()
	WriteMedia(svg, http.StatusOK, MediaSVG, []byte("<svg/>"))
	for name, c := range map[string]struct {
		rec *httptest.ResponseRecorder
		csp string
	}{"json": {ok, cspDocument}, "problem": {bad, cspDocument}, "svg": {svg, cspPicture}} {
		if c.rec.Header().Get("X-Content-Type-Options") != "nosniff" || c.rec.Header().Get("Content-Security-Policy") != c.csp {
			t.Errorf("%s: nosniff %q CSP %q, want nosniff and %q", name, c.rec.Header().Get("X-Content-Type-Options"),
				c.rec.Header().Get("Content-Security-Policy"), c.csp)
		}
		if !strings.Contains(c.csp, "default-src 'none'") || strings.Contains(c.csp, "script") {
			t.Errorf("%s: CSP %q allows more than it should", name, c.csp)
		}
	}
}
