// Package schemas embeds the JSON Schemas (draft 2020-12) of every request
// and response xflex accepts or produces, compiles them once, and validates
// decoded documents against them, reporting each violation by JSON pointer.
//
// Files are named PROBLEM.request.json and PROBLEM.response.json; shared
// definitions live in common.json and are referenced as
// "common.json#/$defs/NAME". Every schema's $id is
// "https://xflex.dev/schemas/FILE" so references resolve inside the set.
package schemas

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

//go:embed *.json
var files embed.FS

// BaseURL prefixes every schema file name to form its $id.
const BaseURL = "https://xflex.dev/schemas/"

// Set is the compiled, read-only schema set. Safe for concurrent use.
type Set struct {
	raw      map[string][]byte
	compiled map[string]*jsonschema.Schema
	// fast holds the fast accept path of every compiled schema (see
	// fast.go); Validate trusts it only when it answers valid.
	fast map[string]*fastValidator
}

// Violation is one schema violation.
type Violation struct {
	Pointer string
	Message string
}

// Load reads and compiles every embedded schema.
func Load() (*Set, error) { return LoadWith(nil) }

// LoadWith compiles the embedded schemas plus extra ones (file name to
// bytes), which tests use to register schemas of test-only problems.
func LoadWith(extra map[string][]byte) (*Set, error) {
	s := &Set{raw: map[string][]byte{}, compiled: map[string]*jsonschema.Schema{}, fast: map[string]*fastValidator{}}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	c.RegisterExtension(integerLiteral, nil, integerLiteralExt{})
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := files.ReadFile(e.Name())
		if err != nil {
			return nil, err
		}
		s.raw[e.Name()] = b
		if err := c.AddResource(BaseURL+e.Name(), bytes.NewReader(b)); err != nil {
			return nil, fmt.Errorf("schema %s: %w", e.Name(), err)
		}
	}
	for name, b := range extra {
		s.raw[name] = b
		if err := c.AddResource(BaseURL+name, bytes.NewReader(b)); err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
	}
	roots := make([]*jsonschema.Schema, 0, len(s.raw))
	for _, name := range s.Names() {
		sch, err := c.Compile(BaseURL + name)
		if err != nil {
			return nil, fmt.Errorf("compile schema %s: %w", name, err)
		}
		s.compiled[name] = sch
		roots = append(roots, sch)
	}
	// Numbers are judged as float64s (float.go): both paths below read the
	// rewritten nodes.
	forEachSchema(roots, floatSchema)
	for name, sch := range s.compiled {
		s.fast[name] = compileFast(sch)
	}
	return s, nil
}

// Names lists the schema file names, sorted.
func (s *Set) Names() []string {
	out := make([]string, 0, len(s.raw))
	for n := range s.raw {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Raw returns a schema's bytes as embedded. name may omit ".json".
func (s *Set) Raw(name string) ([]byte, bool) {
	if !strings.HasSuffix(name, ".json") {
		name += ".json"
	}
	b, ok := s.raw[name]
	return b, ok
}

// Compile reports whether name exists and compiled.
func (s *Set) Compile(name string) error {
	if _, ok := s.compiled[name]; !ok {
		return fmt.Errorf("no schema %q in schemas/", name)
	}
	return nil
}

// Validate checks a document decoded with json.Number numbers (see
// solver.DecodeAny) against the named schema and returns every leaf
// violation, ordered by pointer then message so output is deterministic.
// Each number is judged as the float64 a solver decodes from it, not as
// its decimal text (float.go has the rules).
//
// A compiled fast path (fast.go) answers first; only its "valid" is
// trusted. Every other answer, and every error reported, comes from the
// library, so messages, pointers and their order do not depend on it.
func (s *Set) Validate(name string, doc any) []Violation {
	if fv := s.fast[name]; fv != nil && fv.check(doc) == verdictValid {
		return nil
	}
	return s.validateLibrary(name, doc)
}

// validateLibrary is Validate without the fast path: the library alone.
// Numbers without a finite float64 are refused before it sees them (see
// unusableNumbers); the others reach it as their float64's shortest
// decimal, so it judges what the solvers will use (float.go). A panic it
// raises anyway becomes a violation at the root rather than taking the
// caller down.
func (s *Set) validateLibrary(name string, doc any) []Violation {
	sch, ok := s.compiled[name]
	if !ok {
		return []Violation{{Pointer: "", Message: fmt.Sprintf("no schema %q", name)}}
	}
	if bad := unusableNumbers(doc, "", nil); len(bad) > 0 {
		return bad
	}
	vs := guard(func() []Violation { return libraryViolations(sch, floatValue(doc)) })
	explainRounding(doc, vs)
	return sortViolations(vs)
}

// guard runs validate, turning a panic into a violation at the root: the
// library has panicked on inputs its authors did not foresee (a nil
// big.Rat), and a request must not take the process down.
func guard(validate func() []Violation) (out []Violation) {
	defer func() {
		if r := recover(); r != nil {
			out = []Violation{{Pointer: "", Message: fmt.Sprintf("the schema validator failed on this document: %v", r)}}
		}
	}()
	return validate()
}

// libraryViolations runs the library and flattens its error tree into leaf
// violations (unordered; see sortViolations).
func libraryViolations(sch *jsonschema.Schema, doc any) []Violation {
	err := sch.Validate(doc)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Violation{{Pointer: "", Message: err.Error()}}
	}
	var out []Violation
	bounds := boundSet{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			if !bounds.merge(&out, e) {
				out = append(out, leafViolations(e.InstanceLocation, e.Message)...)
			}
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return out
}

// sortViolations orders violations by pointer then message and drops exact
// duplicates (oneOf branches often repeat a message).
func sortViolations(out []Violation) []Violation {
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Pointer != out[j].Pointer {
			return out[i].Pointer < out[j].Pointer
		}
		return out[i].Message < out[j].Message
	})
	dedup := out[:0]
	for i, v := range out {
		if i > 0 && v == out[i-1] {
			continue
		}
		dedup = append(dedup, v)
	}
	return dedup
}
