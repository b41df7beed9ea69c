package schemas

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// This file adapts two behaviours of the validation library that would
// otherwise leak into responses: a panic on numbers it cannot represent,
// and an error message whose word order depends on Go's map iteration.

// maxNumberEcho bounds how much of an unusable number literal an error
// message repeats (a literal can be megabytes of digits).
const maxNumberEcho = 40

// maxNumberLen and maxExponent bound the number literals handed to the
// library, which converts each to a big.Rat: a decimal exponent e costs a
// power 5^|e| (1e999999 is a 2.3-million-bit integer; beyond ±1e6 math/big
// refuses and the library dereferences the nil result), and n digits cost
// an n-digit integer. 1000 characters and exponents within ±1000 cover
// every float64 exactly (17 significant digits suffice, 767 are the most
// a float64's exact decimal expansion has) at a few microseconds each.
const (
	maxNumberLen = 1000
	maxExponent  = 1000
)

// unusableNumbers lists, in document order (object keys sorted), the
// numbers in doc that are no float64 (beyond ±1.8e308) or that the library
// could not validate in reasonable time or at all (see maxExponent). Such
// a number is no usable size or time, so it is refused with its pointer.
func unusableNumbers(doc any, ptr string, out []Violation) []Violation {
	switch v := doc.(type) {
	case json.Number:
		if why := numberProblem(string(v)); why != "" {
			s := string(v)
			if len(s) > maxNumberEcho {
				s = s[:maxNumberEcho] + "…"
			}
			out = append(out, Violation{Pointer: ptr, Message: fmt.Sprintf("number %s is out of range: %s", s, why)})
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
	if len(s) > maxNumberLen {
		return fmt.Sprintf("more than %d characters", maxNumberLen)
	}
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil || e > maxExponent || e < -maxExponent {
			return fmt.Sprintf("its exponent is beyond ±%d", maxExponent)
		}
	}
	if f, err := strconv.ParseFloat(s, 64); err != nil && (f > 1 || f < -1) {
		return "beyond the float64 range (±1.8e308)"
	}
	return ""
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
// allowed", names in map order.
const (
	additionalPrefix = "additionalProperties "
	additionalSuffix = " not allowed"
)

// stableMessage returns msg with the property names of an
// additionalProperties message sorted, so the same request always gets the
// same text; other messages are returned unchanged.
func stableMessage(msg string) string {
	if !strings.HasPrefix(msg, additionalPrefix) || !strings.HasSuffix(msg, additionalSuffix) {
		return msg
	}
	list := msg[len(additionalPrefix) : len(msg)-len(additionalSuffix)]
	names, ok := splitQuoted(list)
	if !ok || len(names) < 2 {
		return msg
	}
	slices.Sort(names)
	return additionalPrefix + strings.Join(names, ", ") + additionalSuffix
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
