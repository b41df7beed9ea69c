package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/xflex/xflex/solver"
)

// ProblemDetails is an RFC 9457 problem document, extended with the request
// id and the list of located violations.
type ProblemDetails struct {
	Type      string             `json:"type"`
	Title     string             `json:"title"`
	Status    int                `json:"status"`
	Detail    string             `json:"detail,omitempty"`
	Instance  string             `json:"instance,omitempty"`
	RequestID string             `json:"request_id,omitempty"`
	Errors    []solver.Violation `json:"errors,omitempty"`
}

// TypeBase prefixes every problem type URI; the fragment names the kind.
const TypeBase = "https://xflex.dev/problems/"

// StatusOf maps an error kind to its HTTP status.
func StatusOf(k solver.Kind) int {
	switch k {
	case solver.KindMalformed:
		return http.StatusBadRequest
	case solver.KindSchema, solver.KindInvalid, solver.KindInfeasible, solver.KindBudget:
		return http.StatusUnprocessableEntity
	case solver.KindTooLarge:
		return http.StatusRequestEntityTooLarge
	case solver.KindUnknownProblem:
		return http.StatusNotFound
	case solver.KindNotAcceptable:
		return http.StatusNotAcceptable
	case solver.KindOverloaded:
		return http.StatusServiceUnavailable
	case solver.KindCanceled:
		// 499 is nginx's "client closed request"; nobody reads it, but the
		// access log shows why the solve stopped.
		return 499
	default:
		return http.StatusInternalServerError
	}
}

var titles = map[solver.Kind]string{
	solver.KindMalformed:      "Malformed JSON",
	solver.KindSchema:         "Request does not match its schema",
	solver.KindInvalid:        "Invalid instance",
	solver.KindInfeasible:     "Infeasible instance",
	solver.KindTooLarge:       "Request body too large",
	solver.KindUnknownProblem: "Unknown problem",
	solver.KindBudget:         "Budget exhausted before any answer",
	solver.KindCanceled:       "Request canceled",
	solver.KindNotAcceptable:  "Not acceptable",
	solver.KindOverloaded:     "Too many concurrent solves",
	solver.KindInternal:       "Internal error",
}

// FromError builds the problem document for a solver error. Internal errors
// do not leak their message beyond a generic detail.
func FromError(e *solver.Error, instance, requestID string) ProblemDetails {
	status := StatusOf(e.Kind)
	title := titles[e.Kind]
	if title == "" {
		title = http.StatusText(status)
	}
	detail := e.Detail
	if e.Kind == solver.KindInternal {
		detail = "the solver failed; the request id locates the server log entry"
	}
	return ProblemDetails{
		Type:      TypeBase + string(e.Kind),
		Title:     title,
		Status:    status,
		Detail:    detail,
		Instance:  instance,
		RequestID: requestID,
		Errors:    e.Violations,
	}
}

// Encode marshals a problem document (never fails for these types).
func (p ProblemDetails) Encode() []byte {
	b, _ := json.Marshal(p)
	return append(b, '\n')
}

// WriteProblem writes a problem document with its status.
func WriteProblem(w http.ResponseWriter, p ProblemDetails) {
	setAnswerHeaders(w.Header(), "application/problem+json")
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Content-Length", strconv.Itoa(len(p.Encode())))
	w.WriteHeader(p.Status)
	_, _ = w.Write(p.Encode())
}

// SimpleProblem writes a problem without violations, typed TypeBase+kind,
// with the request's path and id.
func SimpleProblem(w http.ResponseWriter, r *http.Request, status int, kind, title, detail string) {
	WriteProblem(w, ProblemDetails{
		Type: TypeBase + kind, Title: title, Status: status, Detail: detail,
		Instance: r.URL.Path, RequestID: RequestID(r.Context()),
	})
}
