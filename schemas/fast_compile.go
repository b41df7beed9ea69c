package schemas

import (
	"math/big"
	"reflect"
	"regexp"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Compilation: the library's compiled schema graph becomes a graph of
// fastNodes, one per library node, sharing its regexps, $ref targets,
// bounds and format checkers. A node that uses a keyword fastKeywords
// marks keywordFallback (fastSupported) is compiled as unsupported.

// fastNode is one compiled schema node. Immutable after compilation.
type fastNode struct {
	unsupported bool
	always      int8 // 0: not a boolean schema; 1: true; -1: false
	types       uint8
	intLiteral  bool // the integerLiteral extension (float.go, rule 4)
	hasConst    bool
	constKey    string // canonical key of the const value
	enumStrings map[string]struct{}
	enumKeys    map[string]struct{} // canonical keys, when some enum value is not a string
	format      func(any) bool
	memoStrings bool // pattern or format: memoise per distinct string
	memoNumbers bool // allOf, anyOf, oneOf or if: memoise per distinct number text
	memoIdx     int  // this node's memo tables in fastState.memo and .nums
	pureRef     bool // only $ref: evaluating it is evaluating n.ref

	minProps, maxProps int
	required           []string
	props              map[string]*fastNode
	propNames          *fastNode
	addFalse           bool
	addSchema          *fastNode

	minItems, maxItems int
	unique             bool
	items              *fastNode

	minLen, maxLen int
	pattern        *regexp.Regexp
	run            *runeRun // pattern as a rune loop, when it has that shape

	// The bounds as float64s (±Inf for one beyond the float64 range),
	// after floatSchema.
	minimum, exclMin, maximum, exclMax *float64

	ref, not            *fastNode
	allOf, anyOf, oneOf []*fastNode
	ifN, thenN, elseN   *fastNode
}

func (n *fastNode) hasBounds() bool {
	return n.minimum != nil || n.exclMin != nil || n.maximum != nil || n.exclMax != nil
}

// compileFast builds the fast validator of a compiled library schema. It
// never fails: whatever it cannot express becomes an unsupported node.
func compileFast(root *jsonschema.Schema) *fastValidator {
	c := &fastCompiler{nodes: map[*jsonschema.Schema]*fastNode{}}
	r := c.node(root)
	c.breakInPlaceCycles()
	fv := &fastValidator{root: r}
	for _, s := range c.order {
		n := c.nodes[s]
		n.pureRef = n.ref != nil && reflect.DeepEqual(*n, fastNode{ref: n.ref, minProps: -1, maxProps: -1, minItems: -1, maxItems: -1, minLen: -1, maxLen: -1})
		n.memoNumbers = !n.unsupported && n.always == 0 && (len(n.allOf) > 0 || len(n.anyOf) > 0 || len(n.oneOf) > 0 || n.ifN != nil)
		if n.memoStrings || n.memoNumbers {
			n.memoIdx = fv.memoNodes
			fv.memoNodes++
		}
	}
	return fv
}

type fastCompiler struct {
	nodes map[*jsonschema.Schema]*fastNode
	order []*jsonschema.Schema
}

// node compiles library schema s (once: nodes are memoised, so recursive
// references end) into a fast node, keyword group by keyword group; a
// node with a keyword the fast path does not evaluate is unsupported.
func (c *fastCompiler) node(s *jsonschema.Schema) *fastNode {
	if n, ok := c.nodes[s]; ok {
		return n
	}
	n := &fastNode{}
	c.nodes[s] = n
	c.order = append(c.order, s)
	if !fastSupported(s) {
		n.unsupported = true
		return n
	}
	if s.Always != nil {
		n.always = -1
		if *s.Always {
			n.always = 1
		}
		return n
	}
	if !n.compileValues(s) || !c.compileObject(n, s) {
		n.unsupported = true
		return n
	}
	n.minItems, n.maxItems, n.unique = s.MinItems, s.MaxItems, s.UniqueItems
	if s.Items2020 != nil {
		n.items = c.node(s.Items2020)
	}
	n.compileScalars(s)
	c.compileApplicators(n, s)
	return n
}

// compileValues compiles type, const and enum; false when a type or a
// value has no fast form.
func (n *fastNode) compileValues(s *jsonschema.Schema) bool {
	for _, t := range s.Types {
		b, ok := typeBits[t]
		if !ok {
			return false
		}
		n.types |= b
	}
	_, n.intLiteral = s.Extensions[integerLiteral]
	if len(s.Constant) > 0 {
		k, ok := canonicalKey(s.Constant[0])
		if !ok {
			return false
		}
		n.hasConst, n.constKey = true, k
	}
	if len(s.Enum) == 0 {
		return true
	}
	if allStrings(s.Enum) {
		n.enumStrings = make(map[string]struct{}, len(s.Enum))
		for _, e := range s.Enum {
			n.enumStrings[e.(string)] = struct{}{}
		}
		return true
	}
	n.enumKeys = make(map[string]struct{}, len(s.Enum))
	for _, e := range s.Enum {
		k, ok := canonicalKey(e)
		if !ok {
			return false
		}
		n.enumKeys[k] = struct{}{}
	}
	return true
}

// allStrings reports whether every value is a string.
func allStrings(vals []any) bool {
	for _, e := range vals {
		if _, ok := e.(string); !ok {
			return false
		}
	}
	return true
}

// compileObject compiles format and the object keywords; false when
// additionalProperties has no fast form.
func (c *fastCompiler) compileObject(n *fastNode, s *jsonschema.Schema) bool {
	if s.Format != "" {
		// The library asserts a format it finds in jsonschema.Formats
		// (the compiler's own Formats map is empty in LoadWith) and
		// ignores an unknown one.
		if f, ok := jsonschema.Formats[s.Format]; ok && f != nil {
			n.format = f
		}
	}
	n.minProps, n.maxProps = s.MinProperties, s.MaxProperties
	n.required = s.Required
	if len(s.Properties) > 0 {
		n.props = make(map[string]*fastNode, len(s.Properties))
		for k, p := range s.Properties {
			n.props[k] = c.node(p)
		}
	}
	if s.PropertyNames != nil {
		n.propNames = c.node(s.PropertyNames)
	}
	switch a := s.AdditionalProperties.(type) {
	case nil:
	case bool:
		n.addFalse = !a
	case *jsonschema.Schema:
		n.addSchema = c.node(a)
	default:
		return false
	}
	return true
}

// compileScalars compiles the string and number keywords.
func (n *fastNode) compileScalars(s *jsonschema.Schema) {
	n.minLen, n.maxLen, n.pattern = s.MinLength, s.MaxLength, s.Pattern
	if n.pattern != nil {
		n.run = compileRuneRun(n.pattern)
	}
	n.memoStrings = n.pattern != nil || n.format != nil
	for _, b := range []struct {
		r   *big.Rat
		dst **float64
	}{{s.Minimum, &n.minimum}, {s.ExclusiveMinimum, &n.exclMin}, {s.Maximum, &n.maximum}, {s.ExclusiveMaximum, &n.exclMax}} {
		if b.r != nil {
			f, _ := b.r.Float64()
			*b.dst = &f
		}
	}
}

// compileApplicators compiles $ref, not, allOf, anyOf, oneOf and
// if/then/else.
func (c *fastCompiler) compileApplicators(n *fastNode, s *jsonschema.Schema) {
	if s.Ref != nil {
		n.ref = c.node(s.Ref)
	}
	if s.Not != nil {
		n.not = c.node(s.Not)
	}
	for _, x := range s.AllOf {
		n.allOf = append(n.allOf, c.node(x))
	}
	for _, x := range s.AnyOf {
		n.anyOf = append(n.anyOf, c.node(x))
	}
	for _, x := range s.OneOf {
		n.oneOf = append(n.oneOf, c.node(x))
	}
	if s.If != nil {
		n.ifN = c.node(s.If)
		if s.Then != nil {
			n.thenN = c.node(s.Then)
		}
		if s.Else != nil {
			n.elseN = c.node(s.Else)
		}
	}
}

// breakInPlaceCycles marks unsupported one node of every cycle of in-place
// applicators ($ref, allOf, anyOf, oneOf, not, if/then/else): such a cycle
// consumes no input, the library reports it as an InfiniteLoopError, and
// the fast path must not recurse forever on it.
func (c *fastCompiler) breakInPlaceCycles() {
	const (
		white = iota
		grey
		black
	)
	color := map[*fastNode]int{}
	var visit func(n *fastNode)
	visit = func(n *fastNode) {
		color[n] = grey
		for _, m := range n.inPlace() {
			switch color[m] {
			case white:
				visit(m)
			case grey:
				m.unsupported = true
			}
		}
		color[n] = black
	}
	for _, s := range c.order {
		if n := c.nodes[s]; color[n] == white {
			visit(n)
		}
	}
}

func (n *fastNode) inPlace() []*fastNode {
	var out []*fastNode
	for _, m := range []*fastNode{n.ref, n.not, n.ifN, n.thenN, n.elseN} {
		if m != nil {
			out = append(out, m)
		}
	}
	out = append(out, n.allOf...)
	out = append(out, n.anyOf...)
	return append(out, n.oneOf...)
}
