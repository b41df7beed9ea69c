package httpapi

import (
	"context"
	"net/http"
	"regexp"
	"strings"

	"github.com/rs/zerolog"
)

// TraceParent is a valid W3C Trace Context traceparent header
// (https://www.w3.org/TR/trace-context/#traceparent-header): the trace the
// caller's request belongs to and the caller's span in it.
type TraceParent struct {
	TraceID  string // 32 lower-case hex digits, not all zero
	ParentID string // 16 lower-case hex digits, not all zero
	Flags    string // 2 hex digits (01: sampled)
}

// traceParentRE matches the four fields of a traceparent; a version
// after 00 may append fields after a dash (the spec's forward
// compatibility), version 00 may not.
var traceParentRE = regexp.MustCompile(`^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$`)

// parseTraceParent validates h as the spec's parsing rules do: the
// version ff, an all-zero trace or parent id, upper-case hex, and extra
// fields on version 00 make it invalid.
func parseTraceParent(h string) (TraceParent, bool) {
	m := traceParentRE.FindStringSubmatch(h)
	if m == nil || m[1] == "ff" || (m[1] == "00" && m[5] != "") ||
		strings.Trim(m[2], "0") == "" || strings.Trim(m[3], "0") == "" {
		return TraceParent{}, false
	}
	return TraceParent{TraceID: m[2], ParentID: m[3], Flags: m[4]}, true
}

const traceKey ctxKey = 3

// TraceOf returns the request's valid traceparent, if it sent one.
func TraceOf(ctx context.Context) (TraceParent, bool) {
	tp, ok := ctx.Value(traceKey).(TraceParent)
	return tp, ok
}

// logIDs adds the request id and, when the request sent a valid
// traceparent, its trace_id and parent_id to a log event.
func logIDs(ev *zerolog.Event, ctx context.Context) *zerolog.Event {
	ev = ev.Str("request_id", RequestID(ctx))
	if tp, ok := TraceOf(ctx); ok {
		ev = ev.Str("trace_id", tp.TraceID).Str("parent_id", tp.ParentID)
	}
	return ev
}

// traceContext keeps a valid traceparent header in the request's context
// for the access log (trace_id, parent_id next to request_id), so a
// request can be found in the server log from the caller's trace. An
// invalid or missing one is ignored: the request is served as without it.
// Nothing is echoed: the server starts no span of its own, so it has no
// traceparent to answer with.
func traceContext(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Several traceparent headers are as invalid as a malformed one.
		if vs := r.Header.Values("Traceparent"); len(vs) == 1 {
			if tp, ok := parseTraceParent(vs[0]); ok {
				r = r.WithContext(context.WithValue(r.Context(), traceKey, tp))
			}
		}
		next.ServeHTTP(w, r)
	})
}
