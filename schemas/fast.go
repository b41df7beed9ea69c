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
// Where it is. This file holds the verdicts and the walk (eval, evalNode);
// fast_compile.go compiles the library's schema graph into fastNodes;
// fast_keywords.go has the table of keywords (fastKeywords: which are
// evaluated, which are annotations, which make the fast path fall back to
// the library, and why) and the keywords' evaluation; fast_numbers.go the
// canonical keys that const, enum and uniqueItems compare; fast_memo.go the
// per-call memo; fast_pattern.go the rune-loop form of simple patterns.
//
// Why it is equivalent by construction. The fast validators are compiled
// from the library's own compiled *jsonschema.Schema graph, not from the
// schema text: $ref targets (local and cross-file), the compiled regexps,
// the bounds and the enum and const values (as floatSchema rewrote them)
// and the format checker (the same function the library took from
// jsonschema.Formats) are shared, so only the evaluation rules are
// re-implemented, each after v5.3.1's Schema.validate (fastKeywords says
// how, keyword by keyword). Every number is judged as its float64
// (float.go): the library is handed the document with each number
// replaced by its float64's shortest decimal and schemas whose bounds and
// const/enum numbers were rewritten the same way, so the fast rules are
// the library's rules applied to those values. A keyword the table marks
// keywordFallback makes its node unsupported: reaching it makes the whole
// call verdictUnsure (not just the node, so that no anyOf, not or if can
// turn the unexamined part into a definite answer). The shipped schemas use
// none of them (TestShippedSchemaKeywordsInTable). Annotations are ignored,
// as the library ignores them.
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
// Why it is sound. Each rule answers valid only when the library's
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
// (This comment is detached from the package clause on purpose: the
// package documentation is in schemas.go.)

package schemas

import (
	"encoding/json"
	"math"
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

// fastValidator is the compiled fast path for one schema of the Set.
type fastValidator struct {
	root      *fastNode
	memoNodes int // nodes with memoStrings or memoNumbers, numbered by memoIdx
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
