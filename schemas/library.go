package schemas

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// This file adapts behaviours of the validation library that would
// otherwise leak into responses: exact decimal arithmetic where the solvers
// use float64 (float.go), a panic on numbers it cannot convert, and an
// error message whose word order depends on Go's map iteration.

// maxNumberEcho bounds how much of an unusable number literal an error
// message repeats (a literal can be megabytes of digits).
const maxNumberEcho = 40

// unusableNumbers lists, in document order (object keys sorted), the
// numbers in doc that have no finite float64 (beyond ±1.8e308) or are no
// JSON number text (a json.Number built by hand). No field can use such a
// number, so it is refused with its pointer wherever it appears (rule 1 in
// float.go).
func unusableNumbers(doc any, ptr string, out []Violation) []Violation {
	switch v := doc.(type) {
	case json.Number:
		if why := numberProblem(string(v)); why != "" {
			out = append(out, Violation{Pointer: ptr, Message: fmt.Sprintf("number %s %s", echoNumber(string(v)), why)})
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			out = unusableNumbers(v[k], ptr+"/"+escapePointer(k), out)
		}
	case []any:
		for i, x := range v {
			out = unusableNumbers(x, ptr+"/"+strconv.Itoa(i), out)
		}
	}
	return out
}

// numberProblem says why the JSON number literal s is unusable, or "".
func numberProblem(s string) string {
	if !parseNumber(s).ok {
		return "is not a JSON number"
	}
	if _, ok := floatOf(s); !ok {
		return "is out of range: beyond the float64 range (±1.8e308)"
	}
	return ""
}

// echoNumber is s cut to maxNumberEcho bytes for a message.
func echoNumber(s string) string {
	if len(s) > maxNumberEcho {
		return s[:maxNumberEcho] + "…"
	}
	return s
}

// explainRounding appends to each violation whose pointer names a number
// of doc that its float64 does not represent exactly what the library saw
// instead: "must be >= 2.2250738585072014e-308 but found 0" becomes
// understandable for a request that said 1e-400.
func explainRounding(doc any, vs []Violation) {
	for i, v := range vs {
		n, ok := at(doc, v.Pointer).(json.Number)
		if !ok {
			continue
		}
		f, ok := floatOf(string(n))
		if !ok {
			continue
		}
		if parseNumber(string(n)).canonical() != parseNumber(shortest(f)).canonical() {
			vs[i].Message += fmt.Sprintf(" (%s is %s as a float64)", echoNumber(string(n)), shortest(f))
		}
	}
}

// at returns the value at JSON pointer ptr in doc, or nil.
func at(doc any, ptr string) any {
	if ptr == "" {
		return doc
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch v := doc.(type) {
		case map[string]any:
			doc = v[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v) {
				return nil
			}
			doc = v[i]
		default:
			return nil
		}
	}
	return doc
}

// escapePointer escapes one JSON Pointer reference token (RFC 6901).
func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// additionalPrefix and additionalSuffix frame the library's message for
// properties an object may not have: "additionalProperties 'b', 'a' not
// allowed", names in map order, reported at the object.
const (
	additionalPrefix = "additionalProperties "
	additionalSuffix = " not allowed"
)

// leafViolations turns one library leaf error at ptr into violations. An
// additionalProperties error becomes one violation per unknown property,
// each at the property's own pointer (ptr/name) with its name alone in the
// message: the client learns which field to remove, and the library's map
// order no longer shows (sortViolations orders them). Other messages are
// kept as they are at ptr.
func leafViolations(ptr, msg string) []Violation {
	names, ok := unknownProperties(msg)
	if !ok {
		return []Violation{{Pointer: ptr, Message: msg}}
	}
	out := make([]Violation, len(names))
	for i, n := range names {
		out[i] = Violation{Pointer: ptr + "/" + escapePointer(n.name), Message: additionalPrefix + n.quoted + additionalSuffix}
	}
	return out
}

// quotedName is a property name as it is and as the library quoted it.
type quotedName struct{ name, quoted string }

// unknownProperties parses the names out of an additionalProperties
// message; ok is false for any other message.
func unknownProperties(msg string) (names []quotedName, ok bool) {
	if !strings.HasPrefix(msg, additionalPrefix) || !strings.HasSuffix(msg, additionalSuffix) {
		return nil, false
	}
	tokens, ok := splitQuoted(msg[len(additionalPrefix) : len(msg)-len(additionalSuffix)])
	if !ok || len(tokens) == 0 {
		return nil, false
	}
	for _, tok := range tokens {
		name, ok := unquoteName(tok)
		if !ok {
			return nil, false
		}
		names = append(names, quotedName{name: name, quoted: tok})
	}
	return names, true
}

// unquoteName inverts the library's quote: a Go %q string whose \" became "
// and whose ' became \', between single quotes.
func unquoteName(tok string) (string, bool) {
	inner := tok[1 : len(tok)-1]
	inner = strings.ReplaceAll(inner, `\'`, `'`)
	inner = strings.ReplaceAll(inner, `"`, `\"`)
	name, err := strconv.Unquote(`"` + inner + `"`)
	return name, err == nil
}

// splitQuoted splits "'a', 'b\'c'" (the library's quote joined by ", ")
// into its quoted tokens, quotes and escapes kept; ok is false when s is
// not such a list.
func splitQuoted(s string) (tokens []string, ok bool) {
	for i := 0; i < len(s); {
		if s[i] != '\'' {
			return nil, false
		}
		j := i + 1
		for j < len(s) && s[j] != '\'' {
			if s[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(s) {
			return nil, false
		}
		tokens = append(tokens, s[i:j+1])
		i = j + 1
		if i < len(s) {
			if !strings.HasPrefix(s[i:], ", ") {
				return nil, false
			}
			i += 2
		}
	}
	return tokens, true
}

// boundMessage matches the library's messages for the four bound keywords:
// "must be >= 1e-06 but found -1" (minimum), "must be > 0 but found -1"
// (exclusiveMinimum), and <=, < for the maxima.
var boundMessage = regexp.MustCompile(`^must be (>=|>|<=|<) (\S+) but found `)

// bound is a parsed bound violation: its side, value and exclusiveness.
type bound struct {
	lower, exclusive bool
	value            float64
}

// parseBound parses a bound violation's message; ok is false for others.
func parseBound(msg string) (b bound, ok bool) {
	m := boundMessage.FindStringSubmatch(msg)
	if m == nil {
		return bound{}, false
	}
	v, err := strconv.ParseFloat(m[2], 64)
	if err != nil {
		return bound{}, false
	}
	return bound{lower: m[1][0] == '>', exclusive: len(m[1]) == 1, value: v}, true
}

// tighter reports whether a excludes more than b (same side).
func (a bound) tighter(b bound) bool {
	if a.value != b.value {
		return (a.value > b.value) == a.lower
	}
	return a.exclusive && !b.exclusive
}

// boundSet keeps, of the bound violations one schema object reports at
// one pointer on one side, only the tightest: a value under both
// "exclusiveMinimum": 0 and "minimum": 1e-6 broke one rule (how low the
// field may go), and two messages for it read as two mistakes (issue 20:
// "a weight of -1 gives two"). The one kept states the real limit. Bounds
// of different schema objects (oneOf branches) are separate rules and are
// all kept.
type boundSet map[boundKey]int

// boundKey identifies a rule: the instance, the schema object holding the
// bound keywords, and the side.
type boundKey struct {
	ptr, schema string
	lower       bool
}

// merge records the leaf error e in out when it is a bound violation (and
// reports true): appended if it is the first for its rule, replacing the
// earlier one if tighter, dropped otherwise. Other errors are left to the
// caller (false).
func (bs boundSet) merge(out *[]Violation, e *jsonschema.ValidationError) bool {
	b, ok := parseBound(e.Message)
	if !ok {
		return false
	}
	k := boundKey{e.InstanceLocation, path.Dir(e.KeywordLocation), b.lower}
	v := Violation{Pointer: e.InstanceLocation, Message: e.Message}
	j, seen := bs[k]
	switch {
	case !seen:
		bs[k] = len(*out)
		*out = append(*out, v)
	case b.tighter(mustParseBound((*out)[j].Message)):
		(*out)[j] = v
	}
	return true
}

// mustParseBound parses a message merge already parsed.
func mustParseBound(msg string) bound {
	b, _ := parseBound(msg)
	return b
}
