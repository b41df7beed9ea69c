package jsonbench

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/bytedance/sonic"
	gojson "github.com/goccy/go-json"
	jsonschemav5 "github.com/santhosh-tekuri/jsonschema/v5"
	jsonschemav6 "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/xflex/xflex/schemas"
	"github.com/xflex/xflex/solver/tetris/assign"
)

// plainRequest is assign.Request without its UnmarshalJSON (and its tasks
// without theirs): the same fields and tags, for the libraries' own typed
// decoders.
type plainRequest struct {
	Machines    []assign.MachineReq `json:"machines"`
	Tasks       []plainTask         `json:"tasks"`
	Jobs        []assign.JobReq     `json:"jobs,omitempty"`
	Knobs       *assign.Knobs       `json:"knobs,omitempty"`
	Roles       *assign.Roles       `json:"roles,omitempty"`
	Heartbeat   []string            `json:"heartbeat,omitempty"`
	MaxUnplaced *int                `json:"max_unplaced,omitempty"`
	BudgetMS    *int64              `json:"budget_ms,omitempty"`
	Seed        *int64              `json:"seed,omitempty"`
}

// plainTask is assign.TaskReq without its UnmarshalJSON.
type plainTask struct {
	ID       string             `json:"id"`
	Job      string             `json:"job"`
	Stage    string             `json:"stage,omitempty"`
	Demand   map[string]float64 `json:"demand"`
	Duration *float64           `json:"duration,omitempty"`
	Inputs   []assign.InputReq  `json:"inputs,omitempty"`
}

var errTrailing = errors.New("trailing data after the document")

// stdCandidates: encoding/json as solver.Decode and json.Marshal use it.
func stdCandidates(f *Fixture) ([]Candidate, error) {
	return library{
		name: "encoding/json",
		generic: func(b []byte) (any, error) {
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.UseNumber()
			var v any
			if err := dec.Decode(&v); err != nil {
				return nil, err
			}
			if _, err := dec.Token(); err != io.EOF {
				return nil, errTrailing
			}
			return v, nil
		},
		typed: func(b []byte, v any) error {
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.DisallowUnknownFields()
			return dec.Decode(v)
		},
		marshal: json.Marshal,
	}.candidates(f)
}

// goccyCandidates: github.com/goccy/go-json, encoding/json's API.
func goccyCandidates(f *Fixture) ([]Candidate, error) {
	return library{
		name: "goccy/go-json",
		generic: func(b []byte) (any, error) {
			dec := gojson.NewDecoder(bytes.NewReader(b))
			dec.UseNumber()
			var v any
			if err := dec.Decode(&v); err != nil {
				return nil, err
			}
			if dec.More() {
				return nil, errTrailing
			}
			return v, nil
		},
		typed: func(b []byte, v any) error {
			dec := gojson.NewDecoder(bytes.NewReader(b))
			dec.DisallowUnknownFields()
			return dec.Decode(v)
		},
		marshal: gojson.Marshal,
	}.candidates(f)
}

// sonicCandidates: github.com/bytedance/sonic (JIT, amd64), configured as
// encoding/json behaves: strings copied out of the input and checked for
// valid UTF-8, HTML escaped, map keys sorted.
func sonicCandidates(f *Fixture) ([]Candidate, error) {
	generic := sonic.Config{UseNumber: true, CopyString: true, ValidateString: true}.Froze()
	typed := sonic.Config{DisallowUnknownFields: true, CopyString: true, ValidateString: true}.Froze()
	return library{
		name: "bytedance/sonic",
		generic: func(b []byte) (any, error) {
			var v any
			err := generic.Unmarshal(b, &v)
			return v, err
		},
		typed:   func(b []byte, v any) error { return typed.Unmarshal(b, v) },
		marshal: sonic.ConfigStd.Marshal,
	}.candidates(f)
}

// schemaCandidates: the schema libraries alone on the decoded document,
// compiled from the same embedded schema files (draft 2020-12, formats
// asserted). Both judge the document's decimals exactly; schemas.Set
// additionally rewrites numbers to their float64 (schemas/float.go) and
// checks integerLiteral, so these times are lower bounds of what either
// library would cost in its place.
func schemaCandidates(f *Fixture) ([]Candidate, error) {
	v5, err := compileV5(f.Set)
	if err != nil {
		return nil, err
	}
	v6, err := compileV6(f.Set)
	if err != nil {
		return nil, err
	}
	return []Candidate{
		{Job: JobValidate, Name: "jsonschema/v5", Run: func() error { return v5.Validate(f.Doc) }},
		{Job: JobValidate, Name: "jsonschema/v6", Run: func() error { return v6.Validate(f.Doc) }},
	}, nil
}

func compileV5(set *schemas.Set) (*jsonschemav5.Schema, error) {
	c := jsonschemav5.NewCompiler()
	c.Draft = jsonschemav5.Draft2020
	c.AssertFormat = true
	for _, name := range set.Names() {
		raw, _ := set.Raw(name)
		if err := c.AddResource(schemas.BaseURL+name, bytes.NewReader(raw)); err != nil {
			return nil, err
		}
	}
	return c.Compile(schemas.BaseURL + requestSchema)
}

func compileV6(set *schemas.Set) (*jsonschemav6.Schema, error) {
	c := jsonschemav6.NewCompiler()
	c.DefaultDraft(jsonschemav6.Draft2020)
	c.AssertFormat()
	for _, name := range set.Names() {
		raw, _ := set.Raw(name)
		doc, err := jsonschemav6.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil, err
		}
		if err := c.AddResource(schemas.BaseURL+name, doc); err != nil {
			return nil, err
		}
	}
	return c.Compile(schemas.BaseURL + requestSchema)
}
