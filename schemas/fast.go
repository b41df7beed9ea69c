// Fast accept path for Set.Validate.
//
// What it is. The library (santhosh-tekuri/jsonschema/v5, Draft 2020-12,
// AssertFormat on) walks every document generically, converts every number
// to a big.Rat and runs the name pattern on every key; on a 10,000-task
// tetris-assign request that is over half of the request. The fast path is
// a second evaluator of the same compiled schemas, specialised to the
// documents solver.DecodeAny produces (map[string]any, []any, string,
// json.Number, bool, nil). Set.Validate runs it first and returns nil
// without calling the library only when it answers verdictValid; on
// verdictInvalid or verdictUnsure the library runs exactly as before, so
// every error message, pointer and ordering is the library's alone.
//
// Why it is equivalent by construction. The fast validators are compiled
// from the library's own compiled *jsonschema.Schema graph, not from the
// schema text: $ref targets (local and cross-file), the compiled regexps,
// the bounds and the enum and const values (as floatSchema rewrote them)
// and the format checker (the same function the library
// took from jsonschema.Formats) are shared, so only the evaluation rules are
// re-implemented, each after v5.3.1's Schema.validate:
//
//   - every number is judged as its float64 (float.go): the library is
//     handed the document with each number replaced by its float64's
//     shortest decimal and schemas whose bounds and const/enum numbers were
//     rewritten the same way, so the rules below are the library's rules
//     applied to those values;
//   - type (a list is a set); a number is an "integer" when its float64
//     is integral: "1.0", "1e2", "-0", "1.5e1" and "1e-400" (0) are;
//   - integerLiteral, the one extension keyword (float.go, rule 4): on a
//     node whose type admits integers and no other number, the number's
//     text has no fraction and no exponent;
//   - const, enum and uniqueItems with the library's equality (numbers by
//     value, objects by key set, arrays elementwise), decided on a
//     canonical serialisation whose numbers are their float64's shortest
//     decimal;
//   - format (the library's own checker function);
//   - minProperties, maxProperties, required, properties,
//     additionalProperties (bool or schema), propertyNames;
//   - minItems, maxItems, uniqueItems, items (the 2020-12 form);
//   - minLength, maxLength (runes, as utf8.RuneCount), pattern (the
//     library's regexp; one of the shape ^C{m,n}$ with a single character
//     class, like the name pattern, runs as an equivalent rune loop, see
//     fast_pattern.go);
//   - minimum, exclusiveMinimum, maximum, exclusiveMaximum: the number's
//     float64 against the bound's (a bound beyond the float64 range is
//     ±Inf). The library compares the two shortest decimals exactly, which
//     orders them as the float64s are ordered (float.go);
//   - $ref, allOf, anyOf, oneOf, not, if/then/else, and boolean schemas.
//
// Every other keyword the library compiled (patternProperties, prefixItems,
// contains, multipleOf, dependent*, unevaluated*, $dynamicRef, content*,
// extensions, draft-7 items forms) makes its node unsupported: reaching it
// makes the whole call verdictUnsure (not just the node, so that no
// anyOf, not or if can turn the unexamined part into a definite answer).
// The schemas in this package use none of them.
// Annotations (title, description, $comment, default, examples, ...) are
// ignored, as the library ignores them.
//
// Why tri-state. A boolean fast path would have to be exactly right on
// everything; a tri-state one only has to be right where it answers. The
// verdicts combine as the library's keywords do: a schema node is the
// conjunction of its keywords (invalid dominates unsure, unsure dominates
// valid), anyOf is valid when one branch is valid, oneOf is invalid as soon
// as two branches are valid, not swaps valid and invalid, and if/then/else
// follows the condition (when the condition is unsure the verdict is kept
// only if then and else agree). So composed keywords are decided exactly
// whenever their parts are, and unsure is left for the rare hard cases:
// unsupported keywords, non-JSON Go values, malformed json.Number text and
// numbers beyond the float64 range (the library path refuses both with
// their pointers wherever they are, see unusableNumbers), and schema
// cycles that consume no input (the library reports an
// InfiniteLoopError).
//
// Why it is sound. Each rule above answers valid only when the library's
// corresponding check passes and invalid only when it fails; the
// combinators preserve that. The fast path never stops early where the
// library goes on: it evaluates every keyword, every property, every
// anyOf branch even after a failure, and stops only where the library
// stops (a type mismatch; oneOf at its second valid branch, which the fast
// path reaches no sooner). So, unless it reached an unsupported node
// (whole call unsure), it has seen every value the library examines, and
// it marks the whole call unsure when one of them is a number the library
// path refuses outright or a non-JSON Go value. A verdict of valid thus
// means the library returns no error and does not panic. The differential
// and fuzz tests in fast_*_test.go check the implication on the testdata
// documents, thousands of seeded mutations and arbitrary JSON.
//
// The memo. Resource, job and machine names repeat tens of thousands of
// times in one request ("cpu" in every demand vector), and the name schema
// has a pattern. A node that has a pattern or a format memoises its whole
// verdict per distinct string in a table owned by one call (fastState.memo,
// one map per such node): a string's verdict against a node depends on
// nothing else, so a repeated name costs one map lookup. Numbers repeat
// too (machine attributes, 2.1 million of them in a 100,000-machine CMMF
// request, each tried against the three branches of the scalar anyOf), so
// a node with allOf, anyOf, oneOf or if memoises its verdict per distinct
// number text the same way (fastState.nums). Nothing is shared
// between calls: compiled fastNodes are immutable after compilation, no
// state is global, and Set stays safe for concurrent use.
//
// (This comment is detached from the package clause on purpose: the
// package documentation is in schemas.go.)

package schemas

import (
	"encoding/json"
	"math"
	"math/big"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// verdict is the fast path's answer. The order matters: the conjunction of
// two verdicts is the larger one (invalid beats unsure beats valid).
type verdict uint8

const (
	verdictValid verdict = iota
	verdictUnsure
	verdictInvalid
)

func (v verdict) String() string {
	switch v {
	case verdictValid:
		return "valid"
	case verdictInvalid:
		return "invalid"
	}
	return "unsure"
}

// and is the conjunction of two verdicts.
func and(a, b verdict) verdict {
	if b > a {
		return b
	}
	return a
}

// Type bits; the kinds of DecodeAny values share them ("integer" is a type
// keyword only: no value has kind integer).
const (
	kindNull uint8 = 1 << iota
	kindBool
	kindNumber
	kindInteger
	kindString
	kindArray
	kindObject
	kindUnknown uint8 = 0
)

var typeBits = map[string]uint8{
	"null": kindNull, "boolean": kindBool, "number": kindNumber, "integer": kindInteger,
	"string": kindString, "array": kindArray, "object": kindObject,
}

func kindOf(v any) uint8 {
	switch v.(type) {
	case nil:
		return kindNull
	case bool:
		return kindBool
	case json.Number:
		return kindNumber
	case string:
		return kindString
	case []any:
		return kindArray
	case map[string]any:
		return kindObject
	}
	return kindUnknown
}

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

// fastValidator is the compiled fast path for one schema of the Set.
type fastValidator struct {
	root      *fastNode
	memoNodes int // nodes with memoStrings or memoNumbers, numbered by memoIdx
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

// fastSupported reports whether a library schema node uses only keywords
// the fast path evaluates. TestFastCoversSchemaFields keeps this list in
// step with the library's Schema struct.
func fastSupported(s *jsonschema.Schema) bool {
	switch {
	case s.RecursiveRef != nil, s.DynamicRef != nil,
		len(s.Dependencies) > 0, len(s.DependentRequired) > 0, len(s.DependentSchemas) > 0,
		s.UnevaluatedProperties != nil, s.UnevaluatedItems != nil,
		s.RegexProperties, len(s.PatternProperties) > 0,
		s.Items != nil, s.AdditionalItems != nil, len(s.PrefixItems) > 0,
		s.Contains != nil,
		s.ContentEncoding != "", s.ContentMediaType != "", s.ContentSchema != nil,
		s.MultipleOf != nil:
		return false
	}
	for name := range s.Extensions {
		if name != integerLiteral {
			return false
		}
	}
	return true
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

// fastState is the per-call state: the string memo and the flag that turns
// the call's answer into unsure.
type fastState struct {
	memo   []map[string]verdict // by fastNode.memoIdx, allocated on first use
	nums   []map[string]verdict // the same for number texts
	unsure bool
	cov    fastCoverage // nil except in tests
}

// fastCoverage counts, per keyword, how often the fast path decided it
// valid, unsure or invalid (indexed by verdict). Tests use it to show that
// every keyword kind got both verdicts; Validate never sets it.
type fastCoverage map[string]*[3]int

// note records one keyword outcome when coverage is being collected.
func (st *fastState) note(keyword string, v verdict) {
	if st.cov != nil {
		c := st.cov[keyword]
		if c == nil {
			c = new([3]int)
			st.cov[keyword] = c
		}
		c[v]++
	}
}

// failIf is verdictInvalid when failed, else verdictValid.
func failIf(failed bool) verdict {
	if failed {
		return verdictInvalid
	}
	return verdictValid
}

// check returns the fast verdict of doc. A panic inside the fast path
// (none is known) degrades to unsure so the library decides.
func (fv *fastValidator) check(doc any) verdict { return fv.checkCov(doc, nil) }

// checkCov is check collecting keyword coverage into cov (may be nil).
func (fv *fastValidator) checkCov(doc any, cov fastCoverage) (v verdict) {
	defer func() {
		if recover() != nil {
			v = verdictUnsure
		}
	}()
	st := &fastState{cov: cov, memo: make([]map[string]verdict, fv.memoNodes), nums: make([]map[string]verdict, fv.memoNodes)}
	v = st.eval(fv.root, doc)
	if st.unsure && v == verdictValid {
		v = verdictUnsure
	}
	return v
}

func (st *fastState) eval(n *fastNode, v any) verdict {
	if n.pureRef && !n.unsupported {
		r := st.eval(n.ref, v)
		st.note("$ref", r)
		return r
	}
	if n.unsupported {
		// The whole call becomes unsure, not only this node: the library
		// walks below this node, where the fast path does not look.
		st.unsure = true
		return verdictUnsure
	}
	switch n.always {
	case 1:
		// true admits anything, but the library path still refuses a
		// number beyond the float64 range inside it.
		return st.unexamined(v)
	case -1:
		return verdictInvalid
	}
	switch x := v.(type) {
	case string:
		if n.memoStrings {
			return st.evalMemo(st.memo, n, x, v)
		}
	case json.Number:
		if n.memoNumbers {
			return st.evalMemo(st.nums, n, string(x), v)
		}
	}
	return st.evalNode(n, v)
}

// evalKey is eval of an object key: it consults the memo before boxing
// the key into an interface (which allocates).
func (st *fastState) evalKey(n *fastNode, k string) verdict {
	for n.pureRef && !n.unsupported {
		n = n.ref
	}
	if n.memoStrings && !n.unsupported && n.always == 0 {
		if r, ok := st.memo[n.memoIdx][k]; ok {
			return r
		}
	}
	return st.eval(n, k)
}

// evalMemo is evalNode of a string or a number, whose text is s, through
// the node's table in tables (st.memo or st.nums). A verdict that set the
// unsure flag the first time needs not set it again: the flag stays set
// for the whole call.
func (st *fastState) evalMemo(tables []map[string]verdict, n *fastNode, s string, v any) verdict {
	m := tables[n.memoIdx]
	if r, ok := m[s]; ok {
		return r
	}
	r := st.evalNode(n, v)
	if m == nil {
		m = map[string]verdict{}
		tables[n.memoIdx] = m
	}
	m[s] = r
	return r
}

// evalNode follows Schema.validate of v5.3.1 keyword by keyword.
func (st *fastState) evalNode(n *fastNode, v any) verdict {
	kind := kindOf(v)
	if kind == kindUnknown {
		// The library panics (InvalidJSONTypeError) or ignores it; the
		// fast path does not guess.
		st.unsure = true
		return verdictUnsure
	}
	var f float64
	if kind == kindNumber {
		var ok bool
		if f, ok = floatOf(string(v.(json.Number))); !ok {
			st.unsure = true
			return verdictUnsure
		}
	}
	if n.types != 0 {
		if n.types&kind == 0 && (kind != kindNumber || n.types&kindInteger == 0 || f != math.Trunc(f)) {
			st.note("type", verdictInvalid)
			return verdictInvalid // the library returns on a type error
		}
		st.note("type", verdictValid)
	}
	r := verdictValid
	// Each group is called only when the node has one of its keywords:
	// most nodes have none of the value or applicator keywords, and the
	// checks are the ones the keywords' own branches made.
	if n.intLiteral || n.hasConst || n.enumStrings != nil || n.enumKeys != nil || n.format != nil {
		var ok bool
		if r, ok = st.evalValue(n, v, kind); !ok {
			return verdictUnsure
		}
	}
	switch kind {
	case kindObject:
		r = and(r, st.evalObject(n, v.(map[string]any)))
	case kindArray:
		r = and(r, st.evalArray(n, v.([]any)))
	case kindString:
		if n.minLen != -1 || n.maxLen != -1 || n.pattern != nil {
			r = and(r, st.evalString(n, v.(string)))
		}
	case kindNumber:
		if n.hasBounds() {
			r = and(r, st.evalBounds(n, f))
		}
	}
	if n.ref != nil || n.not != nil || len(n.allOf) > 0 || len(n.anyOf) > 0 || len(n.oneOf) > 0 || n.ifN != nil {
		r = and(r, st.evalApplicators(n, v))
	}
	return r
}

// evalValue evaluates the value keywords: the integer literal, const,
// enum and format. It reports false when a value has no canonical key to
// compare (the caller answers unsure at once, as the library's comparison
// would be guessed).
func (st *fastState) evalValue(n *fastNode, v any, kind uint8) (verdict, bool) {
	r := verdictValid
	if n.intLiteral && kind == kindNumber {
		c := failIf(!integerText(string(v.(json.Number))))
		st.note(integerLiteral, c)
		r = c
	}
	if n.hasConst {
		k, ok := st.key(v)
		if !ok {
			return verdictUnsure, false
		}
		c := failIf(k != n.constKey)
		st.note("const", c)
		r = and(r, c)
	}
	if n.enumStrings != nil {
		s, ok := v.(string)
		_, in := n.enumStrings[s]
		c := failIf(!ok || !in) // a non-string fails the library's equals on type
		st.note("enum", c)
		r = and(r, c)
	} else if n.enumKeys != nil {
		k, ok := st.key(v)
		if !ok {
			return verdictUnsure, false
		}
		_, in := n.enumKeys[k]
		c := failIf(!in)
		st.note("enum", c)
		r = and(r, c)
	}
	if n.format != nil {
		c := failIf(!n.format(v))
		st.note("format", c)
		r = and(r, c)
	}
	return r, true
}

// evalString evaluates minLength, maxLength and pattern on s.
func (st *fastState) evalString(n *fastNode, s string) verdict {
	r := verdictValid
	if n.minLen != -1 || n.maxLen != -1 {
		l := utf8.RuneCountInString(s)
		if n.minLen != -1 {
			c := failIf(l < n.minLen)
			st.note("minLength", c)
			r = and(r, c)
		}
		if n.maxLen != -1 {
			c := failIf(l > n.maxLen)
			st.note("maxLength", c)
			r = and(r, c)
		}
	}
	if n.pattern != nil {
		var ok bool
		if n.run != nil {
			ok = n.run.match(s)
		} else {
			ok = n.pattern.MatchString(s)
		}
		c := failIf(!ok)
		st.note("pattern", c)
		r = and(r, c)
	}
	return r
}

// evalApplicators evaluates $ref, not, allOf, anyOf, oneOf and
// if/then/else on v.
func (st *fastState) evalApplicators(n *fastNode, v any) verdict {
	r := verdictValid
	if n.ref != nil {
		c := st.eval(n.ref, v)
		st.note("$ref", c)
		r = and(r, c)
	}
	if n.not != nil {
		c := verdictUnsure
		switch st.eval(n.not, v) {
		case verdictValid:
			c = verdictInvalid
		case verdictInvalid:
			c = verdictValid
		}
		st.note("not", c)
		r = and(r, c)
	}
	if len(n.allOf) > 0 {
		c := verdictValid
		for _, m := range n.allOf {
			c = and(c, st.eval(m, v))
		}
		st.note("allOf", c)
		r = and(r, c)
	}
	if len(n.anyOf) > 0 {
		r = and(r, st.evalAnyOf(n, v))
	}
	if len(n.oneOf) > 0 {
		r = and(r, st.evalOneOf(n, v))
	}
	if n.ifN != nil {
		r = and(r, st.evalIf(n, v))
	}
	return r
}

// evalAnyOf evaluates anyOf, every branch (the library has no early exit).
func (st *fastState) evalAnyOf(n *fastNode, v any) verdict {
	some := verdictInvalid
	for _, m := range n.anyOf {
		switch st.eval(m, v) {
		case verdictValid:
			some = verdictValid
		case verdictUnsure:
			if some == verdictInvalid {
				some = verdictUnsure
			}
		}
	}
	st.note("anyOf", some)
	return some
}

// evalOneOf evaluates oneOf up to the second valid branch, where the
// library stops too.
func (st *fastState) evalOneOf(n *fastNode, v any) verdict {
	valid, unsure := 0, 0
	for _, m := range n.oneOf {
		switch st.eval(m, v) {
		case verdictValid:
			valid++
		case verdictUnsure:
			unsure++
		}
		if valid == 2 {
			break
		}
	}
	c := verdictValid
	switch {
	case valid >= 2:
		c = verdictInvalid
	case unsure > 0:
		c = verdictUnsure
	case valid == 0:
		c = verdictInvalid
	}
	st.note("oneOf", c)
	return c
}

// evalIf evaluates if/then/else: the branch the condition picks, and when
// the condition is unsure, the common verdict of both branches if they
// agree.
func (st *fastState) evalIf(n *fastNode, v any) verdict {
	branch := func(m *fastNode) verdict {
		if m == nil {
			return verdictValid
		}
		return st.eval(m, v)
	}
	c := verdictUnsure
	switch st.eval(n.ifN, v) {
	case verdictValid:
		c = branch(n.thenN)
		st.note("then", c)
	case verdictInvalid:
		c = branch(n.elseN)
		st.note("else", c)
	default:
		if t, e := branch(n.thenN), branch(n.elseN); t == e {
			c = t
		}
	}
	st.note("if", c)
	return c
}

func (st *fastState) evalObject(n *fastNode, obj map[string]any) verdict {
	r := verdictValid
	if n.minProps != -1 {
		c := failIf(len(obj) < n.minProps)
		st.note("minProperties", c)
		r = and(r, c)
	}
	if n.maxProps != -1 {
		c := failIf(len(obj) > n.maxProps)
		st.note("maxProperties", c)
		r = and(r, c)
	}
	if len(n.required) > 0 {
		c := verdictValid
		for _, k := range n.required {
			if _, ok := obj[k]; !ok {
				c = verdictInvalid
			}
		}
		st.note("required", c)
		r = and(r, c)
	}
	if n.props == nil && !n.addFalse && n.addSchema == nil && n.propNames == nil {
		return and(r, st.unexamined(obj))
	}
	props, add, names, skip := verdictValid, verdictValid, verdictValid, verdictValid
	for k, pv := range obj {
		if c, ok := n.props[k]; ok {
			props = and(props, st.eval(c, pv))
		} else if n.addFalse {
			add = verdictInvalid
		} else if n.addSchema != nil {
			add = and(add, st.eval(n.addSchema, pv))
		} else {
			skip = and(skip, st.unexamined(pv))
		}
		if n.propNames != nil {
			names = and(names, st.evalKey(n.propNames, k))
		}
	}
	if st.cov != nil {
		if n.props != nil {
			st.note("properties", props)
		}
		if n.addFalse || n.addSchema != nil {
			st.note("additionalProperties", add)
		}
		if n.propNames != nil {
			st.note("propertyNames", names)
		}
	}
	return and(r, and(props, and(add, and(names, skip))))
}

// unexamined is the verdict on a value no keyword of the schema examines
// (a property no properties/additionalProperties keyword covers, the items
// of an array without items): valid, unless it holds a number the library
// path refuses wherever it appears (unusableNumbers), which makes the
// whole call unsure so both paths refuse the same documents.
func (st *fastState) unexamined(v any) verdict {
	switch v := v.(type) {
	case json.Number:
		if _, ok := floatOf(string(v)); !ok {
			st.unsure = true
			return verdictUnsure
		}
	case map[string]any:
		for _, x := range v {
			if st.unexamined(x) == verdictUnsure {
				return verdictUnsure
			}
		}
	case []any:
		for _, x := range v {
			if st.unexamined(x) == verdictUnsure {
				return verdictUnsure
			}
		}
	}
	return verdictValid
}

func (st *fastState) evalArray(n *fastNode, arr []any) verdict {
	r := verdictValid
	if n.minItems != -1 {
		c := failIf(len(arr) < n.minItems)
		st.note("minItems", c)
		r = and(r, c)
	}
	if n.maxItems != -1 {
		c := failIf(len(arr) > n.maxItems)
		st.note("maxItems", c)
		r = and(r, c)
	}
	if n.unique {
		c := verdictValid
		if len(arr) > 1 {
			seen := make(map[string]struct{}, len(arr))
			for _, x := range arr {
				k, ok := st.key(x)
				if !ok {
					return verdictUnsure
				}
				if _, dup := seen[k]; dup {
					c = verdictInvalid
				}
				seen[k] = struct{}{}
			}
		}
		st.note("uniqueItems", c)
		r = and(r, c)
	}
	if n.items != nil {
		c := verdictValid
		for _, x := range arr {
			c = and(c, st.eval(n.items, x))
		}
		st.note("items", c)
		r = and(r, c)
	} else {
		r = and(r, st.unexamined(arr))
	}
	return r
}

// evalBounds compares the float64 f of a number with the node's bounds.
func (st *fastState) evalBounds(n *fastNode, f float64) verdict {
	r := verdictValid
	check := func(keyword string, b *float64, fails func(f, b float64) bool) {
		if b != nil {
			c := failIf(fails(f, *b))
			st.note(keyword, c)
			r = and(r, c)
		}
	}
	check("minimum", n.minimum, func(f, b float64) bool { return f < b })
	check("exclusiveMinimum", n.exclMin, func(f, b float64) bool { return f <= b })
	check("maximum", n.maximum, func(f, b float64) bool { return f > b })
	check("exclusiveMaximum", n.exclMax, func(f, b float64) bool { return f >= b })
	return r
}

// key returns v's canonical key; it sets the unsure flag when v holds a
// value the library path cannot compare (non-JSON type, a number it
// refuses).
func (st *fastState) key(v any) (string, bool) {
	k, ok := canonicalKey(v)
	if !ok {
		st.unsure = true
	}
	return k, ok
}

// canonicalKey serialises a JSON value so that two values have the same
// key exactly when the library's equals says they are equal on the float
// view (float.go): numbers as their float64's shortest decimal (0 for
// both zeros), strings length-prefixed, object keys sorted.
func canonicalKey(v any) (string, bool) {
	var b strings.Builder
	ok := writeKey(&b, v)
	return b.String(), ok
}

func writeKey(b *strings.Builder, v any) bool {
	switch v := v.(type) {
	case nil:
		b.WriteByte('z')
	case bool:
		if v {
			b.WriteByte('t')
		} else {
			b.WriteByte('f')
		}
	case json.Number:
		f, ok := floatOf(string(v))
		if !ok {
			return false
		}
		if f == 0 {
			f = 0 // -0 equals 0
		}
		b.WriteByte('n')
		b.WriteString(shortest(f))
		b.WriteByte(';')
	case string:
		b.WriteByte('s')
		b.WriteString(strconv.Itoa(len(v)))
		b.WriteByte(':')
		b.WriteString(v)
	case []any:
		b.WriteByte('[')
		for _, x := range v {
			if !writeKey(b, x) {
				return false
			}
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for _, k := range keys {
			writeKey(b, k)
			if !writeKey(b, v[k]) {
				return false
			}
		}
		b.WriteByte('}')
	default:
		return false
	}
	return true
}

// numInfo describes a JSON number text -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
// without converting it.
type numInfo struct {
	ok      bool // the text is a JSON number
	neg     bool
	intPart string
	frac    string
	exp     int64 // the explicit exponent (saturated)
}

func parseNumber(s string) numInfo {
	var ni numInfo
	i := 0
	if i < len(s) && s[i] == '-' {
		ni.neg = true
		i++
	}
	start := i
	if i < len(s) && s[i] == '0' {
		i++
	} else if i < len(s) && s[i] >= '1' && s[i] <= '9' {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	} else {
		return ni
	}
	ni.intPart = s[start:i]
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == fs {
			return ni
		}
		ni.frac = s[fs:i]
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		es := i
		var e int64
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			if e < 1<<40 {
				e = e*10 + int64(s[i]-'0')
			}
			i++
		}
		if i == es {
			return ni
		}
		if eneg {
			e = -e
		}
		ni.exp = e
	}
	if i != len(s) {
		return ni
	}
	ni.ok = true
	return ni
}

// canonical is the reduced decimal of an ok number: sign,
// digits without leading or trailing zeros, and the exponent of the last
// digit. Equal values give equal strings ("1.0", "1e0", "10e-1": "1e0").
func (ni numInfo) canonical() string {
	digits := strings.TrimLeft(ni.intPart+ni.frac, "0")
	if digits == "" {
		return "0"
	}
	e := ni.exp - int64(len(ni.frac))
	trimmed := strings.TrimRight(digits, "0")
	e += int64(len(digits) - len(trimmed))
	sign := ""
	if ni.neg {
		sign = "-"
	}
	return sign + trimmed + "e" + strconv.FormatInt(e, 10)
}
