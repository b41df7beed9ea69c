package schemas

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// The keywords of the fast path, one row each: what the fast path does with
// it (keywordEvaluated, keywordAnnotation or keywordFallback), the
// jsonschema.Schema field the library compiles it into, where its value
// holds subschemas, and the rule it is evaluated by or why it falls back.
// fastSupported refuses exactly the keywordFallback rows
// (TestFastSupportedFollowsTable), every field of the library's Schema has
// a row (TestFastCoversSchemaFields), and every keyword a shipped schema
// writes has a row that is not keywordFallback
// (TestShippedSchemaKeywordsInTable).
var fastKeywords = []fastKeyword{
	// Applicators and boolean schemas.
	{"$ref", "Ref", keywordEvaluated, childNone, "the target's verdict; local and cross-file targets are the library's own"},
	{"allOf", "AllOf", keywordEvaluated, childList, "the conjunction of every branch (all evaluated)"},
	{"anyOf", "AnyOf", keywordEvaluated, childList, "valid when one branch is valid, unsure when none is but one is unsure; every branch evaluated, as the library does"},
	{"oneOf", "OneOf", keywordEvaluated, childList, "invalid at the second valid branch, where the library stops too"},
	{"not", "Not", keywordEvaluated, childSchema, "swaps valid and invalid; unsure stays unsure"},
	{"if", "If", keywordEvaluated, childSchema, "then or else as the condition picks; on an unsure condition, their common verdict if they agree"},
	{"then", "Then", keywordEvaluated, childSchema, "with if"},
	{"else", "Else", keywordEvaluated, childSchema, "with if"},
	{"", "Always", keywordEvaluated, childNone, "a boolean schema: true admits any value (its numbers still checked, see unexamined), false none"},
	// Values.
	{"type", "Types", keywordEvaluated, childNone, "a list is a set; a number is an integer when its float64 is integral (1.0, 1e2, -0, 1e-400)"},
	{"const", "Constant", keywordEvaluated, childNone, "canonical keys compared (fast_numbers.go): numbers by float64, objects by key set"},
	{"enum", "Enum", keywordEvaluated, childNone, "a set of strings, or of canonical keys when a value is not a string"},
	{"format", "Format", keywordEvaluated, childNone, "the library's own checker from jsonschema.Formats; an unknown format is ignored, as there"},
	{integerLiteral, "Extensions", keywordEvaluated, childNone, "the one extension (float.go, rule 4): an integer-typed number is written without fraction or exponent; any other extension falls back"},
	// Objects.
	{"properties", "Properties", keywordEvaluated, childMap, "each present property against its schema"},
	{"additionalProperties", "AdditionalProperties", keywordEvaluated, childSchema, "false or a schema, for properties not in properties"},
	{"propertyNames", "PropertyNames", keywordEvaluated, childSchema, "every key against the schema (memoised per key)"},
	{"required", "Required", keywordEvaluated, childNone, "every name present"},
	{"minProperties", "MinProperties", keywordEvaluated, childNone, "len(object)"},
	{"maxProperties", "MaxProperties", keywordEvaluated, childNone, "len(object)"},
	// Arrays.
	{"items", "Items2020", keywordEvaluated, childSchema, "the 2020-12 form: every element against one schema"},
	{"minItems", "MinItems", keywordEvaluated, childNone, "len(array)"},
	{"maxItems", "MaxItems", keywordEvaluated, childNone, "len(array)"},
	{"uniqueItems", "UniqueItems", keywordEvaluated, childNone, "no two elements with the same canonical key"},
	// Strings and numbers.
	{"minLength", "MinLength", keywordEvaluated, childNone, "runes, as utf8.RuneCountInString"},
	{"maxLength", "MaxLength", keywordEvaluated, childNone, "runes, as utf8.RuneCountInString"},
	{"pattern", "Pattern", keywordEvaluated, childNone, "the library's regexp, or a rune loop for ^C{m,n}$ (fast_pattern.go); memoised per string"},
	{"minimum", "Minimum", keywordEvaluated, childNone, "the number's float64 against the bound's (±Inf beyond the float64 range)"},
	{"exclusiveMinimum", "ExclusiveMinimum", keywordEvaluated, childNone, "as minimum"},
	{"maximum", "Maximum", keywordEvaluated, childNone, "as minimum"},
	{"exclusiveMaximum", "ExclusiveMaximum", keywordEvaluated, childNone, "as minimum"},
	// Annotations: no effect on validity, here or in the library.
	{"$schema", "Draft", keywordAnnotation, childNone, "the draft; every shipped schema is 2020-12"},
	{"$id", "Location", keywordAnnotation, childNone, "where $ref finds the schema; resolved by the library's compiler"},
	{"$defs", "", keywordAnnotation, childMap, "holds schemas reached through $ref"},
	{"$anchor", "", keywordAnnotation, childNone, "a $ref target, resolved by the library's compiler"},
	{"title", "Title", keywordAnnotation, childNone, ""},
	{"description", "Description", keywordAnnotation, childNone, ""},
	{"default", "Default", keywordAnnotation, childNone, ""},
	{"examples", "Examples", keywordAnnotation, childNone, ""},
	{"$comment", "Comment", keywordAnnotation, childNone, ""},
	{"readOnly", "ReadOnly", keywordAnnotation, childNone, ""},
	{"writeOnly", "WriteOnly", keywordAnnotation, childNone, ""},
	{"deprecated", "Deprecated", keywordAnnotation, childNone, ""},
	{"$recursiveAnchor", "RecursiveAnchor", keywordAnnotation, childNone, "matters only to $recursiveRef, which falls back"},
	{"$dynamicAnchor", "DynamicAnchor", keywordAnnotation, childNone, "matters only to $dynamicRef, which falls back"},
	{"minContains", "MinContains", keywordAnnotation, childNone, "used by the library only with contains, which falls back"},
	{"maxContains", "MaxContains", keywordAnnotation, childNone, "used by the library only with contains, which falls back"},
	{"", "ContainsEval", keywordAnnotation, childNone, "the library's bookkeeping for contains"},
	// Fallbacks: a node with one of these is unsupported, and a call that
	// reaches it is unsure, so the library decides.
	{"$recursiveRef", "RecursiveRef", keywordFallback, childNone, "dynamic scope; no shipped schema needs it"},
	{"$dynamicRef", "DynamicRef", keywordFallback, childNone, "dynamic scope; no shipped schema needs it"},
	{"patternProperties", "PatternProperties", keywordFallback, childMap, "would need every key matched against every pattern, and changes which keys additionalProperties sees"},
	{"", "RegexProperties", keywordFallback, childNone, "a draft-4 workaround of the library's metaschema"},
	{"dependencies", "Dependencies", keywordFallback, childMap, "draft-7 form"},
	{"dependentRequired", "DependentRequired", keywordFallback, childNone, "left to the library: no shipped schema needs it"},
	{"dependentSchemas", "DependentSchemas", keywordFallback, childMap, "left to the library: no shipped schema needs it"},
	{"unevaluatedProperties", "UnevaluatedProperties", keywordFallback, childSchema, "needs the annotations of every applicator, which the fast path does not collect"},
	{"unevaluatedItems", "UnevaluatedItems", keywordFallback, childSchema, "as unevaluatedProperties"},
	{"", "Items", keywordFallback, childNone, "the draft-7 forms of items (an array of schemas)"},
	{"additionalItems", "AdditionalItems", keywordFallback, childSchema, "draft-7 form"},
	{"prefixItems", "PrefixItems", keywordFallback, childList, "left to the library: no shipped schema needs it"},
	{"contains", "Contains", keywordFallback, childSchema, "left to the library: no shipped schema needs it"},
	{"contentEncoding", "ContentEncoding", keywordFallback, childNone, "the library decodes the string; not repeated here"},
	{"contentMediaType", "ContentMediaType", keywordFallback, childNone, "as contentEncoding"},
	{"contentSchema", "ContentSchema", keywordFallback, childSchema, "as contentEncoding"},
	{"multipleOf", "MultipleOf", keywordFallback, childNone, "the library divides exact rationals; float64 division would disagree"},
}

// fastKeyword is one row of fastKeywords.
type fastKeyword struct {
	name     string // the keyword as a schema writes it; "" for a field no keyword names
	field    string // the jsonschema.Schema field it compiles to; "" for none
	support  keywordSupport
	children keywordChildren
	rule     string // how the fast path evaluates it, or why it falls back
}

// keywordSupport is what the fast path does with a keyword.
type keywordSupport uint8

const (
	// keywordEvaluated: decided by the fast path after the library's rule.
	keywordEvaluated keywordSupport = iota + 1
	// keywordAnnotation: no effect on validity (the library ignores it too).
	keywordAnnotation
	// keywordFallback: not evaluated; its node is unsupported and a call
	// that reaches it is unsure, so the library decides.
	keywordFallback
)

// keywordChildren says where a keyword's value holds subschemas.
type keywordChildren uint8

const (
	childNone   keywordChildren = iota
	childSchema                 // the value is a schema
	childList                   // an array of schemas
	childMap                    // an object whose values are schemas
)

// fastSupported reports whether a library schema node uses only keywords
// the fast path evaluates: it refuses the keywordFallback rows of
// fastKeywords and every extension but integerLiteral.
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
		r = st.evalSize(utf8.RuneCountInString(s), n.minLen, n.maxLen, "minLength", "maxLength")
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
	r := st.evalSize(len(obj), n.minProps, n.maxProps, "minProperties", "maxProperties")
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
	r := st.evalSize(len(arr), n.minItems, n.maxItems, "minItems", "maxItems")
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

// evalSize evaluates a pair of size keywords (minLength and maxLength,
// minProperties and maxProperties, minItems and maxItems) on a size of l;
// -1 is an absent bound.
func (st *fastState) evalSize(l, lo, hi int, loKeyword, hiKeyword string) verdict {
	r := verdictValid
	if lo != -1 {
		r = failIf(l < lo)
		st.note(loKeyword, r)
	}
	if hi != -1 {
		c := failIf(l > hi)
		st.note(hiKeyword, c)
		r = and(r, c)
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
