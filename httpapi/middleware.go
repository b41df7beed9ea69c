package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"regexp"
	"runtime/debug"
	"time"

	"github.com/go-chi/chi/v5/middleware"
	"github.com/rs/zerolog"
)

type ctxKey int

const requestIDKey ctxKey = 0

// RequestID returns the request id stored by the requestID middleware.
func RequestID(ctx context.Context) string {
	s, _ := ctx.Value(requestIDKey).(string)
	return s
}

// validID accepts a caller-supplied X-Request-Id only if it is short and
// plain, so it is safe to log and echo.
var validID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,64}$`)

// requestID takes X-Request-Id from the caller when it is sane, otherwise
// makes a random one, and echoes it in the response.
func requestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if !validID.MatchString(id) {
			var b [8]byte
			_, _ = rand.Read(b[:])
			id = hex.EncodeToString(b[:])
		}
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey, id)))
	})
}

const logTenantKey ctxKey = 2

// noteTenant records the tenant of an authenticated request for its
// access log line (the auth middleware runs inside accessLog, so the
// Principal it sets never reaches accessLog's own context).
func noteTenant(ctx context.Context, tenant string) {
	if slot, ok := ctx.Value(logTenantKey).(*string); ok {
		*slot = tenant
	}
}

// accessLog writes one zerolog line per request with id, method, path,
// status, bytes, duration, the caller's trace (trace_id and parent_id of a
// valid traceparent, see traceContext) and, when a token authenticated
// it, the tenant.
func accessLog(log zerolog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
			var tenant string
			next.ServeHTTP(ww, r.WithContext(context.WithValue(r.Context(), logTenantKey, &tenant)))
			status := ww.Status()
			if status == 0 {
				status = http.StatusOK
			}
			ev := log.Info()
			if status >= 500 {
				ev = log.Error()
			}
			logIDs(ev, r.Context()).
				Str("method", r.Method).
				Str("path", r.URL.Path).
				Int("status", status).
				Int("bytes", ww.BytesWritten()).
				Float64("duration_ms", float64(time.Since(start).Microseconds())/1000).
				Str("remote", r.RemoteAddr)
			if tenant != "" {
				ev.Str("tenant", tenant)
			}
			ev.Msg("request")
		})
	}
}

// recoverer turns a panic in a handler into a 500 problem document and a
// log entry with the stack; the server keeps serving.
func recoverer(log zerolog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer func() {
				if v := recover(); v != nil {
					if v == http.ErrAbortHandler {
						panic(v)
					}
					logIDs(log.Error(), r.Context()).
						Str("panic", fmt.Sprint(v)).Bytes("stack", debug.Stack()).Msg("panic")
					SimpleProblem(w, r, http.StatusInternalServerError, "internal", "Internal error",
						"the server hit a bug; the request id locates the server log entry")
				}
			}()
			next.ServeHTTP(w, r)
		})
	}
}

// deadlines bounds, on every route, how long a request may take to send
// its body (readBody from when the handler starts; AdmitBody restarts the
// clock once the request is admitted and lifts it once the body is read)
// and how long its response may take to be written once writing starts.
// Without them a client trickling its body, or never reading the answer,
// holds its connection, and possibly a solve slot and memory, forever.
// http.Server's own ReadTimeout and WriteTimeout do not fit: they run from
// the start of the request, so they would also bound the solve.
func deadlines(readBody, write time.Duration) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rc := http.NewResponseController(w)
			if r.Body != nil && r.Body != http.NoBody {
				_ = rc.SetReadDeadline(time.Now().Add(readBody))
			}
			// The previous response's deadline may still be set on this
			// connection (keep-alive): lift it until this one starts.
			_ = rc.SetWriteDeadline(time.Time{})
			next.ServeHTTP(&deadlineWriter{ResponseWriter: w, rc: rc, timeout: write}, r)
		})
	}
}

// deadlineWriter sets the write deadline when the response starts.
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	started bool
}

func (dw *deadlineWriter) start() {
	if !dw.started {
		dw.started = true
		_ = dw.rc.SetWriteDeadline(time.Now().Add(dw.timeout))
	}
}

func (dw *deadlineWriter) WriteHeader(code int) {
	dw.start()
	dw.ResponseWriter.WriteHeader(code)
}

func (dw *deadlineWriter) Write(b []byte) (int, error) {
	dw.start()
	return dw.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (dw *deadlineWriter) Unwrap() http.ResponseWriter { return dw.ResponseWriter }
