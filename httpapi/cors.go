package httpapi

import (
	"net/http"

	"github.com/go-chi/cors"
)

// corsMaxAge is how long, in seconds, a browser may cache a preflight
// answer: ten minutes, so a changed --cors-origin reaches browsers soon.
const corsMaxAge = 600

// corsHeaders are the request headers a cross-origin caller may send:
// the body type, the token, the request and trace ids, and the job
// submission's Idempotency-Key.
var corsHeaders = []string{"Authorization", "Content-Type", "Content-Encoding", "Idempotency-Key",
	"X-Request-Id", "Traceparent", "Tracestate"}

// corsExposed are the response headers a cross-origin caller's script may
// read besides the CORS-safelisted ones.
var corsExposed = []string{"X-Request-Id", "Location", "Retry-After", "X-Job-State", "X-Xflex-Partial",
	"Idempotent-Replayed", "WWW-Authenticate"}

// allowCORS answers preflights and adds Access-Control-* headers for the
// given origins only (Config.CORSOrigins, `--cors-origin`), through
// go-chi/cors. With no origins it adds nothing: browsers then refuse
// cross-origin calls, the default a service holding tenants' data needs.
// It runs before authentication, since a browser's preflight carries no
// token. No credentials mode: the API's tokens travel in Authorization,
// which a script sets itself, not in cookies.
func allowCORS(origins []string) func(http.Handler) http.Handler {
	if len(origins) == 0 {
		return func(next http.Handler) http.Handler { return next }
	}
	return cors.Handler(cors.Options{
		AllowedOrigins: origins,
		AllowedMethods: []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodDelete},
		AllowedHeaders: corsHeaders,
		ExposedHeaders: corsExposed,
		MaxAge:         corsMaxAge,
	})
}
