package solver

import (
	"context"
	"encoding/json"
	"time"
)

// Typed is a problem stated by its parts: its names and schemas, how a
// request of type Req is checked and built into an instance of type In,
// and how an instance is solved. Its Problem method supplies the rest, the
// same for every problem: decode (strict, on a second core while the
// Runner validates the body), build, solve, so no problem writes that
// glue itself.
//
// The Runner has validated the body against RequestSchema before Build
// sees it, so Build checks only semantics (unknown or duplicate names,
// contradictions) and returns Violations{...}.Err() with JSON pointers.
type Typed[Req, In any] struct {
	// Name, CLIName, RequestSchema, ResponseSchema, Summary, Generate and
	// GenParams are Problem's.
	Name           string
	CLIName        string
	RequestSchema  string
	ResponseSchema string
	Summary        string
	Generate       GenerateFunc
	GenParams      []GenParam
	// Build checks a decoded request and builds its instance.
	Build func(req *Req) (In, error)
	// Solve solves a built request. It returns the wire result (a
	// JSON-marshalable value or a JSONAppender) and meta, as SolveFunc.
	Solve func(ctx context.Context, b Built[Req, In], opts Options) (any, Meta, error)
	// Decode, when set, replaces Decode (strict encoding/json) for the
	// parse alongside validation, for a request type with a faster
	// decoder of its own. It sees unvalidated bytes, so it must return on
	// any input; when it fails, Solve decodes the body with Decode.
	Decode func(raw json.RawMessage) (*Req, error)
	// PreBuild runs Build alongside validation too, for problems whose
	// Build is a large part of a small budget on large requests (cmmf,
	// fairshare). Build then sees a body that may yet fail validation, so
	// it must return on any decoded request; its error waits for Solve.
	PreBuild bool
	// Picture is Problem's: the answer drawn as SVG.
	Picture PictureFunc
	// PictureShared is Problem's: Picture on scales shared with other
	// answers.
	PictureShared SharedPictureFunc
	// Memory, when set, estimates from the built instance's sizes an
	// upper bound of the bytes the whole request needs at its peak (body,
	// decoded document, instance, solve and answer; docs/MEMORY.md
	// measures it): memory grows with numbers in the body (counts,
	// copies) as well as with its length, so a charge per body byte does
	// not bound it. The solve asks the context's MemoryGate for it before
	// it starts; time spent waiting there is taken from the budget.
	Memory func(b Built[Req, In]) int64
}

// Built is a decoded request and the instance Build made of it.
type Built[Req, In any] struct {
	Req *Req
	In  In
	// BuildTime is how long Build took: a measure of the work of writing
	// the answer, which walks what Build walked.
	BuildTime time.Duration
}

// Problem is t as the Runner serves it.
func (t Typed[Req, In]) Problem() Problem {
	return Problem{
		Name:           t.Name,
		CLIName:        t.CLIName,
		RequestSchema:  t.RequestSchema,
		ResponseSchema: t.ResponseSchema,
		Summary:        t.Summary,
		Generate:       t.Generate,
		GenParams:      t.GenParams,
		Decode:         t.predecode,
		Solve:          t.solve,
		Picture:        t.Picture,
		PictureShared:  t.PictureShared,
	}
}

// solve is Problem.Solve: the request and instance the Decode hook made
// (or made here, from raw), then t.Solve.
func (t Typed[Req, In]) solve(ctx context.Context, raw json.RawMessage, opts Options) (any, Meta, error) {
	b, err := t.built(raw, opts)
	if err != nil {
		return nil, Meta{}, err
	}
	if t.Memory != nil {
		if err := reserveMemory(ctx, t.Memory(b)); err != nil {
			return nil, Meta{}, err
		}
	}
	return t.Solve(ctx, b, opts)
}

// built returns what the Decode hook made of the body, finished with
// Build when the hook did not run it; without the hook's value (it failed
// or did not run), raw decoded by Decode and built.
func (t Typed[Req, In]) built(raw json.RawMessage, opts Options) (Built[Req, In], error) {
	switch v := opts.Decoded.(type) {
	case *prebuilt[Req, In]:
		return v.Built, v.err
	case *Req:
		return t.build(v)
	}
	req := new(Req)
	if err := Decode(raw, req); err != nil {
		return Built[Req, In]{}, err
	}
	return t.build(req)
}

// build runs Build on req and times it.
func (t Typed[Req, In]) build(req *Req) (Built[Req, In], error) {
	start := time.Now()
	in, err := t.Build(req)
	return Built[Req, In]{Req: req, In: in, BuildTime: time.Since(start)}, err
}
