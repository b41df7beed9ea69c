package solver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/xflex/xflex/schemas"
	"github.com/xflex/xflex/solver/jsondoc"
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

// common are the fields every request may carry.
type common struct {
	BudgetMS *int64 `json:"budget_ms"`
	Seed     *int64 `json:"seed"`
}

// commonOf reads budget_ms and seed from the already decoded (and
// schema-validated) document, sparing a second parse of the body: on a
// 1.6 MB request that parse alone took 14 ms.
func commonOf(doc any) (common, error) {
	var c common
	m, ok := doc.(map[string]any)
	if !ok {
		return c, nil
	}
	get := func(key string) (*int64, error) {
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
	var err error
	if c.BudgetMS, err = get("budget_ms"); err != nil {
		return c, err
	}
	c.Seed, err = get("seed")
	return c, err
}

// CheckRequest decodes raw and validates it against p's request schema
// (numbers judged as the float64s the solver will decode; see package
// schemas). It is the one check every path runs before a solve: Run, job
// submission and each scenario variant, so they accept and refuse the same
// bodies with the same violations. It returns the decoded document
// (json.Number numbers) or a KindMalformed or KindSchema error.
func (r *Runner) CheckRequest(p Problem, raw []byte) (any, *Error) {
	doc, err := DecodeAny(raw)
	if err != nil {
		return nil, &Error{Kind: KindMalformed, Detail: err.Error(), Err: err}
	}
	if vs := r.schemas.Validate(p.RequestSchema, doc); len(vs) > 0 {
		out := make([]Violation, len(vs))
		for i, v := range vs {
			out[i] = Violation{Pointer: v.Pointer, Message: v.Message}
		}
		return nil, &Error{Kind: KindSchema, Detail: fmt.Sprintf("request does not match schema %s", p.RequestSchema), Violations: out}
	}
	return doc, nil
}

// Run solves one request. The returned error is always an *Error. raw must
// not change after the call: a problem's Decode may still be reading it
// when Run returns early on an invalid body.
func (r *Runner) Run(ctx context.Context, name string, raw []byte) (*Response, error) {
	start := time.Now()
	p, ok := r.Lookup(name)
	if !ok {
		return nil, &Error{Kind: KindUnknownProblem, Detail: fmt.Sprintf("unknown problem %q", name)}
	}
	decoded := startDecode(p, raw)
	doc, xe := r.CheckRequest(p, raw)
	if xe != nil {
		return nil, xe
	}
	c, err := commonOf(doc)
	if err != nil {
		return nil, &Error{Kind: KindMalformed, Detail: err.Error(), Err: err}
	}
	opts := Options{Budget: DefaultBudget, Start: start}
	if c.BudgetMS != nil {
		opts.Budget = time.Duration(*c.BudgetMS) * time.Millisecond
	}
	if r.MaxBudget > 0 && opts.Budget > r.MaxBudget {
		opts.Budget = r.MaxBudget
	}
	if c.Seed != nil {
		opts.Seed = *c.Seed
	}
	sum, err := CanonicalHash(doc)
	if err != nil {
		return nil, &Error{Kind: KindInternal, Detail: "hash input", Err: err}
	}
	if decoded != nil {
		if d := <-decoded; d.err == nil {
			opts.Decoded = d.v
		}
	}
	// The budget bounds the solve itself: it starts after validation and
	// hashing, which are linear in the body and would otherwise eat most of a
	// small budget on a large request. elapsed_ms still covers everything.
	opts.Start = time.Now()
	sctx, cancel := context.WithTimeout(ctx, opts.Budget)
	defer cancel()
	result, meta, err := safeSolve(sctx, p, raw, opts)
	if err != nil {
		// The caller going away explains any failure that follows it.
		if ctx.Err() != nil {
			return nil, &Error{Kind: KindCanceled, Detail: "request canceled", Err: err}
		}
		var xe *Error
		if errors.As(err, &xe) {
			return nil, xe
		}
		if sctx.Err() != nil {
			return nil, &Error{Kind: KindBudget, Detail: fmt.Sprintf("budget of %d ms ran out before %s had an answer; raise budget_ms", opts.Budget.Milliseconds(), p.Name), Err: err}
		}
		return nil, &Error{Kind: KindInternal, Detail: err.Error(), Err: err}
	}
	meta.ElapsedMS = float64(time.Since(start).Microseconds()) / 1000
	meta.Version = Version
	meta.InputSHA256 = sum
	meta.BudgetMS = opts.Budget.Milliseconds()
	meta.Seed = opts.Seed
	if meta.Status == "" {
		meta.Status = StatusFeasible
	}
	// A proven optimum is its own bound: report bound and a zero gap so
	// every optimal answer carries them, whichever solver produced it.
	if meta.Status == StatusOptimal && meta.Objective != nil && meta.Bound == nil {
		meta.SetBound(*meta.Objective)
	}
	return &Response{Result: result, Meta: meta}, nil
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
// single pass (solver/jsondoc; 2.2x faster on a 1.6 MB request).
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
