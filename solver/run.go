package solver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/xflex/xflex/internal/jsondoc"
	"github.com/xflex/xflex/schemas"
)

// DefaultBudget is the budget of a request that names none (issue #2).
const DefaultBudget = 2000 * time.Millisecond

// Runner takes raw request bodies through validation, solving and wrapping.
// The HTTP API and `xflex solve` both use it, so they answer byte for byte
// the same for the same input.
type Runner struct {
	problems map[string]Problem
	order    []string
	schemas  *schemas.Set
	// MaxBudget caps every request's budget_ms (server flag --max-budget).
	MaxBudget time.Duration
}

// NewRunner builds a runner over the given problems. It compiles every
// problem's request schema up front so a broken schema fails at start-up,
// not on the first request.
func NewRunner(problems []Problem, maxBudget time.Duration) (*Runner, error) {
	set, err := schemas.Load()
	if err != nil {
		return nil, fmt.Errorf("load schemas: %w", err)
	}
	return NewRunnerWithSchemas(problems, maxBudget, set)
}

// NewRunnerWithSchemas is NewRunner over a given schema set (tests use it
// to add schemas of test-only problems).
func NewRunnerWithSchemas(problems []Problem, maxBudget time.Duration, set *schemas.Set) (*Runner, error) {
	r := &Runner{problems: map[string]Problem{}, schemas: set, MaxBudget: maxBudget}
	for _, p := range problems {
		if _, dup := r.problems[p.Name]; dup {
			return nil, fmt.Errorf("problem %q registered twice", p.Name)
		}
		if err := set.Compile(p.RequestSchema); err != nil {
			return nil, fmt.Errorf("problem %s: %w", p.Name, err)
		}
		r.problems[p.Name] = p
		r.order = append(r.order, p.Name)
	}
	return r, nil
}

// Problems lists the registered problems in registration order.
func (r *Runner) Problems() []Problem {
	out := make([]Problem, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.problems[n])
	}
	return out
}

// Lookup finds a problem by API name or CLI name.
func (r *Runner) Lookup(name string) (Problem, bool) {
	if p, ok := r.problems[name]; ok {
		return p, true
	}
	for _, p := range r.problems {
		if p.Command() == name {
			return p, true
		}
	}
	return Problem{}, false
}

// Schemas exposes the embedded schema set.
func (r *Runner) Schemas() *schemas.Set { return r.schemas }

// Settings are a request's common options as the Runner applies them.
// Every front end takes them from Runner.Settings (Run through prepare,
// jobs before starting a solve), so the HTTP API, `xflex solve` and jobs
// agree on the budget, its cap and the seed for the same body.
type Settings struct {
	// Budget is budget_ms, DefaultBudget when absent, capped at the
	// Runner's MaxBudget.
	Budget time.Duration
	// Seed is seed, 0 when absent.
	Seed int64
	// Notes say what the Runner changed in the request's options (a
	// budget cut to the cap); Run appends them to meta.notes.
	Notes []string
}

// Settings reads budget_ms and seed from a request's decoded (and
// schema-validated) document and applies the defaults and the cap. It
// reads the document, not the body, sparing a second parse: on a 1.6 MB
// request that parse alone took 14 ms.
func (r *Runner) Settings(doc any) (Settings, error) {
	s := Settings{Budget: DefaultBudget}
	budget, err := intField(doc, "budget_ms")
	if err != nil {
		return s, err
	}
	if budget != nil {
		s.Budget = time.Duration(*budget) * time.Millisecond
	}
	if r.MaxBudget > 0 && s.Budget > r.MaxBudget {
		s.Notes = append(s.Notes, fmt.Sprintf("budget_ms %d cut to the server's cap of %d ms (--max-budget)", s.Budget.Milliseconds(), r.MaxBudget.Milliseconds()))
		s.Budget = r.MaxBudget
	}
	seed, err := intField(doc, "seed")
	if seed != nil {
		s.Seed = *seed
	}
	return s, err
}

// SettingsOf is Settings of a request body, for a front end that holds
// only the bytes of a request it validated earlier (a queued job). A body
// that is not JSON gets the default settings and the parse error.
func (r *Runner) SettingsOf(raw []byte) (Settings, error) {
	doc, err := DecodeAny(raw)
	if err != nil {
		s, _ := r.Settings(nil)
		return s, err
	}
	return r.Settings(doc)
}

// intField reads the integer at key of a top-level object (nil when
// absent or null).
func intField(doc any, key string) (*int64, error) {
	m, _ := doc.(map[string]any)
	v, ok := m[key]
	if !ok || v == nil {
		return nil, nil
	}
	n, ok := v.(json.Number)
	if !ok {
		return nil, fmt.Errorf("%s: want an integer", key)
	}
	i, err := n.Int64()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	return &i, nil
}

// CheckRequest decodes raw and validates it against p's request schema
// (numbers judged as the float64s the solver will decode; see package
// schemas). It is the one check every path runs before a solve: Run, job
// submission and each scenario variant, so they accept and refuse the same
// bodies with the same violations. It returns the decoded document
// (json.Number numbers) or a KindMalformed or KindSchema error.
func (r *Runner) CheckRequest(p Problem, raw []byte) (any, *Error) {
	if xe := CheckUTF8(raw); xe != nil {
		return nil, xe
	}
	doc, err := DecodeAny(raw)
	if err != nil {
		return nil, MalformedAt(raw, err)
	}
	if xe := r.validate(p, doc); xe != nil {
		return nil, xe
	}
	return doc, nil
}

// malformed is the error of a body that is not JSON.
func malformed(err error) *Error {
	return &Error{Kind: KindMalformed, Detail: err.Error(), Err: err}
}

// validate checks a decoded request against p's request schema.
func (r *Runner) validate(p Problem, doc any) *Error {
	vs := r.schemas.Validate(p.RequestSchema, doc)
	if len(vs) == 0 {
		return nil
	}
	out := make([]Violation, len(vs))
	for i, v := range vs {
		out[i] = Violation{Pointer: v.Pointer, Message: v.Message}
	}
	return &Error{Kind: KindSchema, Detail: fmt.Sprintf("request does not match schema %s", p.RequestSchema), Violations: out}
}

// Run solves one request and encodes the answer: the returned Response's
// Wire is the body every front end writes (the HTTP API, `xflex solve`
// and jobs), so they answer byte for byte the same. The returned error is
// always an *Error. raw must not change after the call: a problem's
// Decode may still be reading it when Run returns early on an invalid
// body.
//
// meta.elapsed_ms runs from the request's arrival (WithArrival, else the
// call) to the moment the body is ready, encoding included. The solver's
// deadline is the end of validation plus the budget, less encodeReserve
// for wrapping and encoding the answer.
func (r *Runner) Run(ctx context.Context, name string, raw []byte) (*Response, error) {
	start := arrivalOf(ctx)
	p, ok := r.Lookup(name)
	if !ok {
		return nil, &Error{Kind: KindUnknownProblem, Detail: fmt.Sprintf("unknown problem %q", name)}
	}
	opts, settings, sum, err := r.prepare(p, raw)
	if err != nil {
		return nil, err
	}
	// The budget bounds the solve itself: it starts after validation and
	// hashing (opts.Start, set by prepare), which are linear in the body
	// and would otherwise eat most of a small budget on a large request.
	// A Decode hook still building when validation ends spends the
	// budget. elapsed_ms still covers everything.
	opts.Deadline = opts.Start.Add(opts.Budget - encodeReserve(len(raw), opts.Budget))
	settings.Notes = append(settings.Notes, preSolveNotes(start, opts, len(raw))...)
	sctx, cancel := context.WithDeadline(ctx, opts.Deadline)
	defer cancel()
	result, meta, err := safeSolve(sctx, p, raw, opts)
	if err != nil {
		return nil, solveError(ctx, sctx, p, opts, err)
	}
	meta.Version = Version
	meta.InputSHA256 = sum
	meta.BudgetMS = opts.Budget.Milliseconds()
	meta.Seed = opts.Seed
	meta.Notes = append(meta.Notes, settings.Notes...)
	settle(&meta)
	markCancelled(sctx, &meta)
	resp := &Response{Result: result, Meta: meta}
	if err := resp.encode(start); err != nil {
		return nil, &Error{Kind: KindInternal, Detail: "encode result: " + err.Error(), Err: err}
	}
	return resp, nil
}

// prepare parses, validates and hashes raw and reads its settings:
// everything before the solve. It waits for p's Decode, when p has one.
// It is CheckRequest and CanonicalHash, with the hash taken in the same
// pass as the parse where it can (decodeHashed).
func (r *Runner) prepare(p Problem, raw []byte) (Options, Settings, string, error) {
	if xe := CheckUTF8(raw); xe != nil {
		return Options{}, Settings{}, "", xe
	}
	decoded := startDecode(p, raw)
	doc, sum, err := decodeHashed(raw)
	if err != nil {
		return Options{}, Settings{}, "", MalformedAt(raw, err)
	}
	if xe := r.validate(p, doc); xe != nil {
		return Options{}, Settings{}, "", xe
	}
	s, err := r.Settings(doc)
	if err != nil {
		return Options{}, Settings{}, "", malformed(err)
	}
	opts := Options{Budget: s.Budget, Seed: s.Seed}
	if sum == "" {
		if sum, err = CanonicalHash(doc); err != nil {
			return Options{}, Settings{}, "", &Error{Kind: KindInternal, Detail: "hash input", Err: err}
		}
	}
	opts.Start = time.Now()
	if decoded != nil {
		if d := <-decoded; d.err == nil {
			opts.Decoded = d.v
		}
		opts.Built = time.Now()
	}
	return opts, s, sum, nil
}

// preSolveNotes says, for meta.notes, where the budget could not hold:
// the body's reading and validation (from arrival to opts.Start) alone
// took longer than the budget, or building the instance alongside
// validation ran past the budget's end. Both are linear in the body and
// run before any solver can check a deadline; the first is outside the
// promise (budget + max(100 ms, 10%) after read and validate), the second
// is taken from the budget.
func preSolveNotes(arrival time.Time, opts Options, n int) []string {
	var notes []string
	if pre := opts.Start.Sub(arrival); pre > opts.Budget {
		notes = append(notes, fmt.Sprintf("reading and validating the %.1f MB body took %d ms, more than the budget of %d ms; the budget counts from the end of validation", float64(n)/1e6, pre.Milliseconds(), opts.Budget.Milliseconds()))
	}
	if over := opts.Built.Sub(opts.Start); !opts.Built.IsZero() && over > opts.Budget {
		notes = append(notes, fmt.Sprintf("building the instance took %d ms after validation ended, more than the budget of %d ms; the answer is the solver's quickest", over.Milliseconds(), opts.Budget.Milliseconds()))
	}
	return notes
}

// solveError maps a solver's error to the *Error the caller sees. An
// infeasibility verdict reached after the deadline is not trusted: a
// search cut short can leave work undone that looks impossible (issue 15,
// defect 3), so it is reported as the budget running out.
func solveError(ctx, sctx context.Context, p Problem, opts Options, err error) *Error {
	// The caller going away explains any failure that follows it.
	if ctx.Err() != nil {
		return &Error{Kind: KindCanceled, Detail: "request canceled", Err: err}
	}
	budget := &Error{Kind: KindBudget, Detail: fmt.Sprintf("budget of %d ms ran out before %s had an answer; raise budget_ms", opts.Budget.Milliseconds(), p.Name), Err: err}
	var xe *Error
	if errors.As(err, &xe) {
		if xe.Kind == KindInfeasible && sctx.Err() != nil {
			return budget
		}
		return xe
	}
	if sctx.Err() != nil {
		return budget
	}
	return &Error{Kind: KindInternal, Detail: err.Error(), Err: err}
}

// Encoding reserve: the part of a budget kept back from the solver for
// wrapping and encoding its answer. Answers run to about 2.5 times the
// request's size (cmmf and flex: 15–21 MB for 5–9 MB requests) and
// encoding/json writes them at about 100 MB/s on one idle core, so the
// reserve is 25 ms per MB of request on top of a fixed 5 ms (meta,
// scheduling). The solver keeps at least minSolveShare of the budget, so a
// small budget on a large request still finds a first answer; what the
// estimate misses falls in the tolerance of max(100 ms, 10%).
const (
	reserveBase    = 5 * time.Millisecond
	reservePerByte = 25 * time.Nanosecond // 25 ms per MB
	minSolveShare  = 4                    // the solver keeps ≥ budget/4
)

// encodeReserve is the encoding reserve for a request of n bytes.
func encodeReserve(n int, budget time.Duration) time.Duration {
	return min(reserveBase+time.Duration(n)*reservePerByte, budget-budget/minSolveShare)
}

// OptimalGap is the largest relative gap that claims optimality: below
// it objective and bound differ by float64 rounding in xflex's sums
// (relative error ~1e-12), not by an unsolved part of the problem.
const OptimalGap = 1e-9

// settle makes meta consistent whatever the solver set, so no problem
// can report a contradiction: an empty status is feasible; a proven
// optimum is its own bound; the gap is RelGap(objective, bound) whenever
// both are set and absent otherwise; and a timeout never claims a gap of
// (nearly) zero unless the solver proved its objective optimal and says
// so (Meta.ObjectiveProven): otherwise a solver cut short that proved
// optimality says optimal, so such a bound was not proven and is withheld.
func settle(m *Meta) {
	if m.Status == "" {
		m.Status = StatusFeasible
	}
	if m.Status == StatusOptimal && m.Objective != nil && m.Bound == nil {
		v := *m.Objective
		m.Bound = &v
	}
	m.Gap = nil
	if m.Objective == nil || m.Bound == nil {
		return
	}
	gap := RelGap(*m.Objective, *m.Bound)
	if m.Status == StatusTimeout && gap <= OptimalGap && !m.ObjectiveProven {
		m.Bound = nil
		m.Notes = append(m.Notes, "bound withheld: the budget ran out and the solver's bound equals its objective without a proof of optimality")
		return
	}
	m.Gap = finitePtr(gap)
}

// markCancelled relabels a best-so-far answer whose solve the caller
// cancelled (sctx, the solve's context, ended by its parent's cancel
// before the budget's deadline): the solver saw its context end and said
// timeout, but the budget did not run out. A deadline passing first, the
// budget's or the caller's, is a timeout and stays one; an answer the
// solver completed keeps its status.
func markCancelled(sctx context.Context, m *Meta) {
	if m.Status == StatusTimeout && errors.Is(sctx.Err(), context.Canceled) {
		m.Status = StatusCancelled
	}
}

// arrivalKey keys the request's arrival time in a context.
type arrivalKey struct{}

// WithArrival records when the request arrived (before its body was
// read), so that meta.elapsed_ms covers reading it too.
func WithArrival(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, arrivalKey{}, t)
}

// arrivalOf is the arrival WithArrival recorded, else now.
func arrivalOf(ctx context.Context) time.Time {
	if t, ok := ctx.Value(arrivalKey{}).(time.Time); ok {
		return t
	}
	return time.Now()
}

// decodeResult is Problem.Decode's answer.
type decodeResult struct {
	v   any
	err error
}

// startDecode runs p.Decode on raw in its own goroutine (nil channel when
// p has none). The channel is buffered, so the goroutine ends whether or
// not Run waits for it (an invalid body returns early); a panic becomes
// an error, which makes Solve decode the body itself.
func startDecode(p Problem, raw []byte) <-chan decodeResult {
	if p.Decode == nil {
		return nil
	}
	ch := make(chan decodeResult, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				ch <- decodeResult{err: fmt.Errorf("panic in %s decoder: %v", p.Name, v)}
			}
		}()
		v, err := p.Decode(raw)
		ch <- decodeResult{v, err}
	}()
	return ch
}

// safeSolve runs p.Solve and turns a panic into a KindInternal error, so a
// bug in one solver never takes down the server or the CLI.
func safeSolve(ctx context.Context, p Problem, raw []byte, opts Options) (result any, meta Meta, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &Error{Kind: KindInternal, Detail: fmt.Sprintf("panic in %s solver: %v", p.Name, v),
				Err: fmt.Errorf("panic: %v\n%s", v, debug.Stack())}
		}
	}()
	return p.Solve(ctx, raw, opts)
}

// DecodeAny parses JSON into generic values with json.Number for numbers
// (so validation sees exact values) and rejects trailing data: exactly
// what encoding/json's Decoder with UseNumber gives, errors included, in a
// single pass (internal/jsondoc; 2.2x faster on a 1.6 MB request).
func DecodeAny(raw []byte) (any, error) { return jsondoc.Decode(raw) }

// Decode strictly decodes a validated request into a problem's own type.
// Unknown fields are an error: the schema should already have refused them,
// so one here means the schema and the Go type disagree.
func Decode(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return &Error{Kind: KindInvalid, Detail: "decode request: " + err.Error(), Err: err}
	}
	return nil
}
