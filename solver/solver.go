// Package solver holds what every xflex problem shares: the response envelope
// and its metadata, solve options (budget, seed), the typed errors that the
// HTTP layer and the CLI map to status codes, and the Runner that takes raw
// JSON through schema validation, decoding, solving and wrapping.
//
// Each problem lives in its own subpackage (solver/cmmf, solver/flex, ...)
// and exposes a Problem value built by a constructor, never a package-level
// registry: the list of problems a binary serves is assembled explicitly in
// solver/problems.
package solver

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	gojson "github.com/goccy/go-json"
)

// Version is the xflex version reported in every response's meta and by
// `xflex version`. It is overridden at link time with -ldflags -X.
var Version = "0.1.0-dev"

// Status is the outcome of a solve, reported as meta.status.
type Status string

const (
	// StatusOptimal: the result is proven optimal (within the tolerance the
	// solver documents).
	StatusOptimal Status = "optimal"
	// StatusFeasible: the result is valid but not proven optimal; bound and
	// gap say how far from optimal it can be.
	StatusFeasible Status = "feasible"
	// StatusTimeout: the budget ran out; the result is the best found so far.
	StatusTimeout Status = "timeout"
	// StatusInfeasible: the instance has no valid solution.
	StatusInfeasible Status = "infeasible"
	// StatusCancelled: the caller stopped the solve before its budget ran
	// out (a cancelled job); the result is the best found so far.
	StatusCancelled Status = "cancelled"
)

// Meta is the metadata block of every response.
type Meta struct {
	Status Status `json:"status"`
	// Objective, Bound and Gap are set where they apply. Gap is relative:
	// RelGap(objective, bound) = |objective-bound| / max(|objective|,
	// |bound|, GapFloor), as common.json documents it.
	Objective *float64 `json:"objective,omitempty"`
	Bound     *float64 `json:"bound,omitempty"`
	Gap       *float64 `json:"gap,omitempty"`
	ElapsedMS float64  `json:"elapsed_ms"`
	// Solver names the algorithm (and backend) that produced the result,
	// e.g. "cmmf/flow" or "xsize/ptas+cbc".
	Solver      string `json:"solver"`
	Version     string `json:"version"`
	InputSHA256 string `json:"input_sha256"`
	BudgetMS    int64  `json:"budget_ms"`
	Seed        int64  `json:"seed"`
	// Notes carries short human-readable remarks (e.g. which candidate won,
	// why a fallback was used). Deterministic for a given input and seed.
	Notes []string `json:"notes,omitempty"`
	// ObjectiveProven marks a timeout whose objective meets its proven
	// bound while the rest of the answer was cut short (cmmf's smallest
	// share at its bound, larger shares not leximin-optimal); the solver
	// says so in Notes. The Runner keeps such a bound; any other timeout
	// whose bound equals its objective loses it. Not on the wire.
	ObjectiveProven bool `json:"-"`
}

// SetObjective records the objective value.
func (m *Meta) SetObjective(v float64) { m.Objective = finitePtr(v) }

// SetBound records a proven bound on the optimum and, when an objective is
// set, the relative gap between them.
func (m *Meta) SetBound(bound float64) {
	m.Bound = finitePtr(bound)
	if m.Objective != nil && m.Bound != nil {
		m.Gap = finitePtr(RelGap(*m.Objective, *m.Bound))
	}
}

// RelGap is |obj-bound| / max(|obj|, |bound|, GapFloor): the relative gap
// convention used across xflex.
func RelGap(obj, bound float64) float64 {
	den := math.Max(math.Max(math.Abs(obj), math.Abs(bound)), GapFloor)
	return math.Abs(obj-bound) / den
}

// GapFloor keeps a relative gap finite when both objective and bound are
// zero; 1e-9 is below any objective scale xflex reports.
const GapFloor = 1e-9

func finitePtr(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// Response is the envelope every solve returns: {"result": ..., "meta": ...}.
type Response struct {
	Result any  `json:"result"`
	Meta   Meta `json:"meta"`
	// Wire is the response as every front end writes it (Runner.Run sets
	// it): AppendJSON's bytes and a newline, with meta.elapsed_ms taken
	// just before meta was encoded.
	Wire []byte `json:"-"`
}

// JSONAppender is implemented by results that write their own JSON, byte
// for byte what json.Marshal writes (cmmf, fairshare, flex and
// tetris/assign, through AppendGoJSON), because encoding/json's reflection
// dominated encoding them: a 10,000-task Tetris round answers with 4.3 MB. A NaN or infinite
// float is an error, as in json.Marshal.
type JSONAppender interface {
	AppendJSON(dst []byte) ([]byte, error)
}

// AppendGoJSON appends v as json.Marshal writes it, through goccy/go-json:
// the JSONAppender of the large results (fairshare, flex and
// tetris/assign) is this one call; cmmf's writes its users itself and
// the rest with it. On their multi-megabyte answers goccy
// took 0.5 to 0.8 times encoding/json's time, and no hand-written writer
// was 25% faster than it (benchmarks/json/RESULTS.md). The result leaves
// envelopeBytes of room after it for the envelope's meta, so appending
// that does not copy the body again.
func AppendGoJSON(dst []byte, v any) ([]byte, error) {
	b, err := gojson.Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(slices.Grow(dst, len(b)+envelopeBytes), b...), nil
}

// envelopeBytes is room left after a result for what the envelope appends
// after it (meta, a few hundred bytes, and a newline).
const envelopeBytes = 1024

// AppendJSON appends r exactly as json.Marshal(r) writes it, through the
// result's JSONAppender when it has one. (Response does not implement
// json.Marshaler: encoding/json would re-scan the whole output.)
func (r *Response) AppendJSON(dst []byte) ([]byte, error) {
	dst, err := r.appendResult(dst)
	if err != nil {
		return dst, err
	}
	return r.appendMeta(dst)
}

// appendResult appends `{"result":` and the result.
func (r *Response) appendResult(dst []byte) ([]byte, error) {
	dst = append(dst, `{"result":`...)
	if ra, ok := r.Result.(JSONAppender); ok {
		return ra.AppendJSON(dst)
	}
	b, err := json.Marshal(r.Result)
	return append(dst, b...), err
}

// appendMeta appends `,"meta":`, the meta and the closing brace.
func (r *Response) appendMeta(dst []byte) ([]byte, error) {
	meta, err := json.Marshal(r.Meta)
	if err != nil {
		return dst, err
	}
	dst = append(dst, `,"meta":`...)
	dst = append(dst, meta...)
	return append(dst, '}'), nil
}

// encode sets Wire, stamping meta.elapsed_ms as the time since start once
// the result is encoded, so the clock covers everything but the meta's
// few hundred bytes.
func (r *Response) encode(start time.Time) error {
	b, err := r.appendResult(nil)
	if err != nil {
		return err
	}
	r.Meta.ElapsedMS = float64(time.Since(start).Microseconds()) / 1000
	if b, err = r.appendMeta(b); err != nil {
		return err
	}
	r.Wire = append(b, '\n')
	return nil
}

// Options are the per-request knobs every problem accepts.
type Options struct {
	// Budget is the wall-clock budget for the solve. The Runner also puts it
	// on the context as a deadline; anytime solvers should check ctx and
	// return their best answer with StatusTimeout when it passes.
	Budget time.Duration
	// Seed drives every random choice; same input and seed, same output.
	Seed int64
	// Start is when the solve began, after validation: the budget runs
	// from here.
	Start time.Time
	// Built is when the problem's Decode hook (decoding and, with
	// PreBuild, building alongside validation) had finished, when it ran
	// (zero otherwise): its time after Start is taken from the budget.
	Built time.Time
	// Deadline is the solver's deadline, also on its context: Start plus
	// Budget less the Runner's reserve for encoding the answer.
	Deadline time.Time
	// Decoded is what Problem.Decode made of the request body, when the
	// problem has Decode and it succeeded; Solve uses it instead of
	// decoding the body again (and decodes the body itself when it is nil).
	Decoded any
}

// Remaining is the time left until Deadline, never negative.
func (o Options) Remaining() time.Duration {
	return max(time.Until(o.Deadline), 0)
}

// SolveFunc solves one problem. raw is the request body, already validated
// against the problem's request schema. The function decodes it into the
// problem's own request type, checks semantics (returning *Error with
// KindInvalid and JSON pointers for anything wrong), solves, and returns the
// result (a JSON-marshalable value) and meta. The Runner fills ElapsedMS,
// Version, InputSHA256, BudgetMS and Seed; the problem fills the rest.
type SolveFunc func(ctx context.Context, raw json.RawMessage, opts Options) (any, Meta, error)

// GenerateFunc builds a random instance (as a request value) from a seed and
// problem-specific string parameters (e.g. "users": "100").
type GenerateFunc func(seed int64, params map[string]string) (any, error)

// GenParam declares one parameter a GenerateFunc reads: its name, its
// default as the CLI would spell it, and a one-line meaning. `xflex gen
// PROBLEM --help` prints the list, and `xflex gen` refuses any parameter
// not in it, so a typo never silently falls back to a default.
type GenParam struct {
	Name, Default, Help string
}

// Problem describes one solvable problem.
type Problem struct {
	// Name is the CLI name and the URL path under /v1/ (e.g. "cmmf",
	// "tetris/assign"); CLIName, when set, overrides the CLI name
	// (e.g. "tetris-assign").
	Name    string
	CLIName string
	// RequestSchema and ResponseSchema are file names in schemas/ (e.g.
	// "cmmf.request.json").
	RequestSchema  string
	ResponseSchema string
	// Summary is a one-line description for `xflex help` and the README.
	Summary  string
	Solve    SolveFunc
	Generate GenerateFunc
	// GenParams are the parameters Generate reads (see GenParam).
	GenParams []GenParam
	// Decode, when set, turns a request body into the value Solve then
	// finds in Options.Decoded. The Runner runs it on a second core while
	// it parses, validates and hashes the body, so it sees bytes that are
	// not validated yet: it must return (not panic or hang) on any input,
	// and its result is used only for a body that passed validation. On an
	// error Solve decodes the body itself, so errors stay Solve's. Worth it
	// for problems whose requests run to megabytes (tetris/assign).
	Decode func(raw json.RawMessage) (any, error)
	// Picture, when set, draws an answer of this problem as an SVG
	// document (X-Sight's views; see PictureFunc and Runner.Picture).
	Picture PictureFunc
	// PictureShared, when set, is Picture for answers drawn side by side
	// (a scenario's variants): it draws on shared scales (Runner.Pictures).
	PictureShared SharedPictureFunc
}

// SharedPictureFunc is a PictureFunc that draws its data-sized scales
// (bar lengths, time axes) to at least the tops shared names (nil: its
// own), and returns the tops its answer needs, by the same names, so the
// pictures of several answers can be drawn on one scale each
// (Runner.Pictures).
type SharedPictureFunc func(request, response json.RawMessage, shared map[string]float64) (svg []byte, tops map[string]float64, err error)

// PictureFunc draws one answer as a complete SVG document (package
// sight). request is the request body as sent, response the full JSON
// response (result and meta) as the Runner wrote it (Response.Wire). The
// same request and response give the same bytes. It lives in the
// problem's picture.go; an error means the two do not belong together
// (the front ends only pass answers the Runner wrote).
type PictureFunc func(request, response json.RawMessage) ([]byte, error)

// Command returns the name used on the command line.
func (p Problem) Command() string {
	if p.CLIName != "" {
		return p.CLIName
	}
	return strings.ReplaceAll(p.Name, "/", "-")
}

// Kind classifies errors so every front end maps them the same way.
type Kind string

const (
	// KindMalformed: the body is not JSON (HTTP 400).
	KindMalformed Kind = "malformed"
	// KindSchema: the JSON violates the request schema (HTTP 422).
	KindSchema Kind = "schema"
	// KindInvalid: the JSON is schema-valid but semantically invalid:
	// unknown or duplicate names, contradictory bounds (HTTP 422).
	KindInvalid Kind = "invalid"
	// KindInfeasible: the instance admits no solution (HTTP 422).
	KindInfeasible Kind = "infeasible"
	// KindTooLarge: the body exceeds the size limit (HTTP 413).
	KindTooLarge Kind = "too_large"
	// KindUnknownProblem: no such problem (HTTP 404).
	KindUnknownProblem Kind = "unknown_problem"
	// KindBudget: the budget ran out before the solver had any answer to
	// return (HTTP 422: the request's own budget_ms is too small for it).
	KindBudget Kind = "budget_exhausted"
	// KindCanceled: the caller went away (HTTP 499-style; logged only).
	KindCanceled Kind = "canceled"
	// KindNotAcceptable: the answer cannot be given in a form the caller
	// accepts, e.g. a picture of a problem that has none (HTTP 406).
	KindNotAcceptable Kind = "not_acceptable"
	// KindOverloaded: the memory the solve needs could not be had in time
	// (HTTP 503 with Retry-After; see MemoryGate).
	KindOverloaded Kind = "overloaded"
	// KindInternal: a bug or a backend failure (HTTP 500).
	KindInternal Kind = "internal"
)

// Violation is one problem with the input, located by a JSON pointer
// (RFC 6901) into the request body.
type Violation struct {
	Pointer string `json:"pointer"`
	Message string `json:"message"`
}

// Error is the typed error every problem returns for bad input or
// infeasibility. Detail is a human-readable summary; Violations locate each
// issue.
type Error struct {
	Kind       Kind
	Detail     string
	Violations []Violation
	Err        error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(string(e.Kind))
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	for _, v := range e.Violations {
		fmt.Fprintf(&b, "; %s: %s", v.Pointer, v.Message)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Invalid builds a KindInvalid error with one violation.
func Invalid(pointer, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	return &Error{Kind: KindInvalid, Detail: msg, Violations: []Violation{{Pointer: pointer, Message: msg}}}
}

// Infeasible builds a KindInfeasible error with a reason and optional
// pointers to the items responsible.
func Infeasible(reason string, vs ...Violation) *Error {
	return &Error{Kind: KindInfeasible, Detail: reason, Violations: vs}
}

// Violations accumulates semantic problems so a request gets all of them
// reported at once rather than one per round trip.
type Violations []Violation

// Add records one violation.
func (vs *Violations) Add(pointer, format string, args ...any) {
	*vs = append(*vs, Violation{Pointer: pointer, Message: fmt.Sprintf(format, args...)})
}

// Err returns nil when empty, otherwise a KindInvalid *Error.
func (vs Violations) Err() error {
	if len(vs) == 0 {
		return nil
	}
	detail := vs[0].Message
	if len(vs) > 1 {
		detail = fmt.Sprintf("%s (and %d more)", detail, len(vs)-1)
	}
	return &Error{Kind: KindInvalid, Detail: detail, Violations: []Violation(vs)}
}

// Ptr builds a JSON pointer from path segments, escaping ~ and / per RFC 6901.
// Ptr("users", 3, "weight") == "/users/3/weight".
func Ptr(segs ...any) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteByte('/')
		str := fmt.Sprint(s)
		str = strings.ReplaceAll(str, "~", "~0")
		str = strings.ReplaceAll(str, "/", "~1")
		b.WriteString(str)
	}
	return b.String()
}
