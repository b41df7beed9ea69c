package cmmf

import (
	"fmt"
	"math"
	"sort"
	"strconv"
)

// Canonical keys: machines with the same attributes, and users with the
// same predicates, share a key, so Build groups them with one map lookup.

// mergeSorted merges two ascending lists of distinct ints.
func mergeSorted(a, b []int) []int {
	out := make([]int, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0] < b[0] {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// attrNames are the attribute names of the units seen last, sorted, and
// each quoted for group keys. Units usually share one set of names, so
// they are sorted and quoted again only when the names change.
type attrNames struct {
	sorted, quoted []string
}

// update makes the names attrs' keys.
func (a *attrNames) update(attrs map[string]any) {
	same := len(a.sorted) == len(attrs)
	for _, k := range a.sorted {
		if !same {
			break
		}
		_, same = attrs[k]
	}
	if same {
		return
	}
	a.sorted = make([]string, 0, len(attrs))
	for k := range attrs {
		a.sorted = append(a.sorted, k)
	}
	sort.Strings(a.sorted)
	a.quoted = make([]string, len(a.sorted))
	for i, k := range a.sorted {
		a.quoted[i] = strconv.Quote(k)
	}
}

// appendKey appends a canonical encoding of attrs, whose keys are the
// names: each name with its value tagged with its JSON type. bad lists
// the names whose values are NaN or infinite, sorted.
func (a *attrNames) appendKey(b []byte, attrs map[string]any) (key []byte, bad []string) {
	for i, k := range a.sorted {
		v := attrs[k]
		if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
			bad = append(bad, k)
		}
		b = appendValueKey(append(b, a.quoted[i]...), v)
		b = append(b, ';')
	}
	return b, bad
}

// requireKey encodes a list of predicates as a map key: equal keys mean
// the same predicates in the same order, so the same machines pass.
func requireKey(ps []Predicate) string {
	var b []byte
	for _, p := range ps {
		b = strconv.AppendQuote(b, p.Attr)
		b = append(append(b, p.Op...), ':')
		b = appendValueKey(b, p.Value)
		b = append(b, ';')
	}
	return string(b)
}

// appendValueKey appends a JSON value tagged with its type.
func appendValueKey(b []byte, v any) []byte {
	switch v := v.(type) {
	case string:
		return strconv.AppendQuote(append(b, 's'), v)
	case float64:
		if exactInteger(v) {
			return strconv.AppendInt(append(b, 'i'), int64(v), 10)
		}
		return strconv.AppendFloat(append(b, 'n'), v, 'g', -1, 64)
	case bool:
		return strconv.AppendBool(append(b, 'b'), v)
	case []any:
		b = append(b, '[')
		for _, x := range v {
			b = append(appendValueKey(b, x), ',')
		}
		return append(b, ']')
	}
	return fmt.Appendf(append(b, '?'), "%v", v)
}

// exactInteger reports whether f is an integer that int64 holds exactly
// and is not -0 (which must keep a key of its own): such a value is keyed
// by its digits, much faster than by its shortest float formatting.
func exactInteger(f float64) bool {
	return f == math.Trunc(f) && math.Abs(f) < 1<<53 && !(f == 0 && math.Signbit(f))
}

// intsKey encodes a list of ints as a map key.
func intsKey(a []int) string {
	b := make([]byte, 0, 4*len(a))
	for _, v := range a {
		b = append(strconv.AppendInt(b, int64(v), 10), ',')
	}
	return string(b)
}
