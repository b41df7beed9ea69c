package httpapi

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
)

// Auth holds the tokens of an auth file (authfile.go) and checks the
// Bearer token of every request against them (see the policy in
// authpolicy.go). Reload swaps in a re-read file atomically: requests in
// flight keep the tokens they started with, and none is dropped.
type Auth struct {
	path   string
	tokens atomic.Pointer[tokenStore]
}

// LoadAuth reads the auth file at path. A bad file is an error naming
// every bad line by number.
func LoadAuth(path string) (*Auth, error) {
	a := &Auth{path: path}
	if err := a.Reload(); err != nil {
		return nil, err
	}
	return a, nil
}

// Reload re-reads the auth file. On error the tokens loaded before stay
// in force and the error names the bad lines.
func (a *Auth) Reload() error {
	f, err := os.Open(a.path)
	if err != nil {
		return fmt.Errorf("auth file: %w", err)
	}
	defer f.Close()
	st, err := parseAuthFile(a.path, f)
	if err != nil {
		return err
	}
	a.tokens.Store(st)
	return nil
}

// Path is the auth file's path.
func (a *Auth) Path() string { return a.path }

// Counts returns the number of tokens and of tenants in force.
func (a *Auth) Counts() (tokens, tenants int) {
	st := a.tokens.Load()
	return len(st.entries), st.tenants()
}

// bearer returns the token of an `Authorization: Bearer TOKEN` header
// (the scheme is case-insensitive, RFC 9110 11.1).
func bearer(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", false
	}
	return token, true
}

// authenticate is the auth middleware: it looks up the access pol gives
// the request's path, answers 401 when that needs a token the request
// does not carry (or one the file does not hold) and 403 when the token
// lacks the scope, and otherwise passes the request on with its
// Principal (WithPrincipal). With no auth file (a nil Auth) it does
// nothing: every request is the local principal (PrincipalOf).
func authenticate(a *Auth, pol policy) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if a == nil {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			need := pol.access(routePath(r))
			if need.open {
				next.ServeHTTP(w, r)
				return
			}
			token, ok := bearer(r)
			if !ok {
				unauthorized(w, r, `Bearer realm="xflex"`, "send Authorization: Bearer TOKEN")
				return
			}
			p, ok := a.tokens.Load().lookup(token)
			if !ok {
				unauthorized(w, r, `Bearer realm="xflex", error="invalid_token"`, "the token is not known to this server")
				return
			}
			noteTenant(r.Context(), p.Tenant)
			if need.scope != "" && !p.Has(need.scope) {
				forbidden(w, r, need.scope)
				return
			}
			next.ServeHTTP(w, r.WithContext(WithPrincipal(r.Context(), p)))
		})
	}
}

// unauthorized writes the 401 problem with its WWW-Authenticate challenge
// (RFC 6750 3). It says nothing of the path, so routes are not revealed
// to callers without a token.
func unauthorized(w http.ResponseWriter, r *http.Request, challenge, detail string) {
	w.Header().Set("WWW-Authenticate", challenge)
	SimpleProblem(w, r, http.StatusUnauthorized, "unauthorized", "Unauthorized", detail)
}

// forbidden writes the 403 problem naming the scope the path needs.
func forbidden(w http.ResponseWriter, r *http.Request, scope Scope) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="xflex", error="insufficient_scope", scope="`+string(scope)+`"`)
	SimpleProblem(w, r, http.StatusForbidden, "forbidden", "Forbidden",
		"this path needs a token with the "+string(scope)+" scope")
}
