package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestHostAllowList: without an auth file only loopback names and
// addresses, with or without a port, and the --allowed-host entries are
// served; any other Host (a DNS-rebinding page's name) gets 421 as a
// problem document, before anything else runs.
func TestHostAllowList(t *testing.T) {
	h := newHarness(t, Config{AllowedHosts: []string{"xflex.internal", "build.example:9000", "[fd00::1]:8080"}}).srv.Handler()
	for host, want := range map[string]int{
		"localhost":             http.StatusOK,
		"LOCALHOST:8080":        http.StatusOK,
		"localhost.":            http.StatusOK,
		"127.0.0.1":             http.StatusOK,
		"127.0.0.1:8080":        http.StatusOK,
		"127.9.8.7:1":           http.StatusOK,
		"[::1]:8080":            http.StatusOK,
		"[::1]":                 http.StatusOK,
		"xflex.internal":        http.StatusOK,
		"XFLEX.internal:443":    http.StatusOK,
		"build.example:9000":    http.StatusOK,
		"[fd00::1]:8080":        http.StatusOK,
		"build.example":         http.StatusMisdirectedRequest,
		"build.example:9001":    http.StatusMisdirectedRequest,
		"[fd00::1]:8081":        http.StatusMisdirectedRequest,
		"attacker.example":      http.StatusMisdirectedRequest,
		"attacker.example:8080": http.StatusMisdirectedRequest,
		"127.0.0.1.nip.io":      http.StatusMisdirectedRequest,
		"localhost.attacker":    http.StatusMisdirectedRequest,
		"10.0.0.1:8080":         http.StatusMisdirectedRequest,
		"[::2]:8080":            http.StatusMisdirectedRequest,
	} {
		req := httptest.NewRequest(http.MethodGet, "/healthz", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("Host %q: %d, want %d: %s", host, rec.Code, want, rec.Body)
			continue
		}
		if want == http.StatusMisdirectedRequest {
			if p := decodeProblem(t, rec); p.Type != TypeBase+"misdirected_host" {
				t.Errorf("Host %q: problem type %q", host, p.Type)
			}
		}
	}
}

// TestHostAllowListWithAuth: with an auth file the list is optional: no
// entries, any Host reaches authentication; with entries, only loopback
// and they do.
func TestHostAllowListWithAuth(t *testing.T) {
	auth, err := LoadAuth(writeAuthFile(t, "", "acme solve "+HashToken("tok-acme")))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		allowed []string
		host    string
		want    int
	}{
		{nil, "attacker.example", http.StatusUnauthorized},
		{nil, "localhost", http.StatusUnauthorized},
		{[]string{"xflex.example"}, "xflex.example", http.StatusUnauthorized},
		{[]string{"xflex.example"}, "127.0.0.1:8080", http.StatusUnauthorized},
		{[]string{"xflex.example"}, "attacker.example", http.StatusMisdirectedRequest},
	} {
		h := newHarness(t, Config{Auth: auth, AllowedHosts: c.allowed}).srv.Handler()
		req := httptest.NewRequest(http.MethodGet, "/v1/problems", nil)
		req.Host = c.host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != c.want {
			t.Errorf("allowed %v, Host %q: %d, want %d: %s", c.allowed, c.host, rec.Code, c.want, rec.Body)
		}
	}
}

// TestNewHostAllowListRefuses: an entry with a scheme or path is refused,
// so a mistyped flag is an error and not a silent no-op.
func TestNewHostAllowListRefuses(t *testing.T) {
	for _, e := range []string{"", "https://xflex.example", "xflex.example/v1", "user@host"} {
		if _, err := NewHostAllowList([]string{e}); err == nil {
			t.Errorf("entry %q accepted", e)
		}
	}
}
