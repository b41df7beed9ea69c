package httpapi

import (
	"fmt"
	"net"
	"net/http"
	"strings"
)

// The Host allow-list guards against DNS rebinding: a web page whose own
// name the attacker later points at 127.0.0.1 is, for the user's browser,
// the same origin as before, so its scripts can call a server on the
// user's loopback and read the answers. The one thing such a request
// cannot hide is its Host header, which names the attacker's domain. A
// server without an auth file (loopback only, anyone local may use it)
// therefore serves only requests that name it by a loopback name or
// address, or by a name the operator listed with --allowed-host. With an
// auth file a rebinding page has no token, so the list applies only when
// given.

// HostAllowList checks a request's Host header against loopback names and
// addresses (localhost, 127.0.0.0/8, ::1, with or without a port) and the
// operator's extra entries. Build it with NewHostAllowList.
type HostAllowList struct {
	names map[string]bool // extra host names or addresses, any port
	pairs map[string]bool // extra host:port entries, that port only
}

// NewHostAllowList parses --allowed-host entries: a host name or IP
// address (any port), or HOST:PORT (that port only; an IPv6 address with
// a port in brackets, [::1]:8080). Names compare case-insensitively.
func NewHostAllowList(entries []string) (*HostAllowList, error) {
	l := &HostAllowList{names: map[string]bool{}, pairs: map[string]bool{}}
	for _, e := range entries {
		e = strings.ToLower(strings.TrimSpace(e))
		if e == "" || strings.ContainsAny(e, "/@?# ") {
			return nil, fmt.Errorf("allowed host %q: want a host name or address, optionally with :PORT (no scheme or path)", e)
		}
		if host, port, err := net.SplitHostPort(e); err == nil {
			l.pairs[net.JoinHostPort(strings.TrimSuffix(host, "."), port)] = true
			continue
		}
		l.names[strings.TrimSuffix(strings.Trim(e, "[]"), ".")] = true
	}
	return l, nil
}

// Allows reports whether a request whose Host header is hostHeader is
// served. An empty Host (an HTTP/1.0 request without one) is allowed:
// browsers always send Host, so it cannot come from a rebinding page.
func (l *HostAllowList) Allows(hostHeader string) bool {
	h := strings.ToLower(hostHeader)
	if h == "" {
		return true
	}
	name, port, err := net.SplitHostPort(h)
	if err != nil {
		name, port = strings.Trim(h, "[]"), ""
	}
	name = strings.TrimSuffix(name, ".")
	if isLoopbackName(name) || l.names[name] {
		return true
	}
	return port != "" && l.pairs[net.JoinHostPort(name, port)]
}

// isLoopbackName reports whether a Host name (port removed) is localhost
// or a loopback address: 127.0.0.0/8 (127.0.0.1, 127.1.2.3) or ::1.
func isLoopbackName(name string) bool {
	if name == "localhost" {
		return true
	}
	ip := net.ParseIP(name)
	return ip != nil && ip.IsLoopback()
}

// hostAllowList is the middleware: a request whose Host the list does not
// allow gets 421 Misdirected Request (RFC 9110 15.5.20: this server is
// not the one that name should reach) as a problem document. With auth
// and no extra entries it lets everything through. Entries that do not
// parse (`xflex serve` checks them first) are dropped: the list fails
// closed.
func hostAllowList(entries []string, auth bool) func(http.Handler) http.Handler {
	if auth && len(entries) == 0 {
		return func(next http.Handler) http.Handler { return next }
	}
	l, err := NewHostAllowList(entries)
	if err != nil {
		l, _ = NewHostAllowList(nil)
	}
	why := "this server has no auth file, so it serves only requests naming it localhost, 127.0.0.1 or [::1]"
	if auth {
		why = "this server serves only requests naming it by a loopback address"
	}
	if len(entries) > 0 {
		why += " or one of its --allowed-host names"
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !l.Allows(r.Host) {
				SimpleProblem(w, r, http.StatusMisdirectedRequest, "misdirected_host", "Host not served here",
					fmt.Sprintf("Host %q is not served: %s (a guard against DNS rebinding; the operator adds names with --allowed-host)",
						r.Host, why))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
