package schemas

import (
	"encoding/json"
	"math"
	"math/big"
	"reflect"
	"strconv"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// How numbers are judged: as the float64 the solvers will use.
//
// The solvers never see a number's decimal text: encoding/json, the
// problems' Decode hooks and solver.DecodeAny's consumers all turn it into
// the nearest float64 (strconv.ParseFloat). Validation judges that float64
// and not the exact decimal, or a text like 1e-400 (which is > 0) passes an
// exclusiveMinimum of 0 and reaches a solver as 0.0. The rules, the same on
// the fast path and the library path:
//
//  1. A number whose float64 is ±Inf (beyond ±1.8e308) is refused wherever
//     it appears (unusableNumbers), as is a json.Number that is no JSON
//     number text.
//  2. type ("integer"), const, enum, uniqueItems and the four bounds judge
//     the number's float64, and a bound is the float64 of the bound as
//     written: 1e-400 is 0, 1.00000000000000000001 is 1 and an integer.
//  3. A bound that excludes 0 (exclusiveMinimum ≥ 0, minimum > 0, and the
//     mirror images below 0) also excludes the subnormal float64s: such a
//     field is at least 2.2250738585072014e-308 in magnitude, so its
//     reciprocal is finite. A bound that admits 0 (minimum: 0) admits a
//     subnormal too: it is a legal float64 above the bound.
//
// The library compares exact decimals, so it is made to follow these rules
// by what it is given: floatSchema rewrites the compiled schemas once
// (bounds and const/enum numbers become their float64's shortest decimal,
// zero-excluding bounds are tightened to the normal range) and floatValue
// hands it the document with every number replaced by its float64's
// shortest decimal. Distinct float64s have disjoint rounding intervals and
// a shortest decimal lies in its own, so comparing shortest decimals
// exactly orders them as the float64s are ordered: the fast path, which
// compares float64s directly, decides the same.

// minNormal is the smallest positive normal float64, 2^-1022.
const minNormal = 0x1p-1022

// floatOf returns the float64 of a JSON number text; ok is false when s is
// no JSON number or its float64 is infinite.
func floatOf(s string) (f float64, ok bool) {
	if !parseNumber(s).ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// shortest is the shortest decimal that parses back to f (finite).
func shortest(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// floatValue returns v with every JSON number replaced by the shortest
// decimal of its float64 (a copy; v is not changed). A number with no
// finite float64 is left as it is: unusableNumbers refuses it first.
func floatValue(v any) any {
	switch v := v.(type) {
	case json.Number:
		if f, ok := floatOf(string(v)); ok {
			return json.Number(shortest(f))
		}
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = floatValue(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = floatValue(x)
		}
		return out
	}
	return v
}

// floatRat is the bound r as its float64's shortest decimal; an r beyond
// the float64 range is kept (every finite number is on the same side of
// it as of the infinity).
func floatRat(r *big.Rat) *big.Rat {
	f, _ := r.Float64()
	if math.IsInf(f, 0) {
		return r
	}
	out, _ := new(big.Rat).SetString(shortest(f))
	return out
}

var (
	minNormalRat    = new(big.Rat).SetFloat64(minNormal)
	negMinNormalRat = new(big.Rat).SetFloat64(-minNormal)
)

// floatSchema applies the number rules to one compiled library schema
// node, in place, before either path uses it.
func floatSchema(s *jsonschema.Schema) {
	for _, b := range []**big.Rat{&s.Minimum, &s.ExclusiveMinimum, &s.Maximum, &s.ExclusiveMaximum} {
		if *b != nil {
			*b = floatRat(*b)
		}
	}
	// Rule 3: a lower bound in [0, minNormal) that excludes 0 becomes
	// minimum minNormal (which implies it); the upper side mirrors it.
	if b := s.ExclusiveMinimum; b != nil && b.Sign() >= 0 && b.Cmp(minNormalRat) < 0 {
		s.ExclusiveMinimum = nil
		if s.Minimum == nil || s.Minimum.Cmp(minNormalRat) < 0 {
			s.Minimum = minNormalRat
		}
	}
	if b := s.Minimum; b != nil && b.Sign() > 0 && b.Cmp(minNormalRat) < 0 {
		s.Minimum = minNormalRat
	}
	if b := s.ExclusiveMaximum; b != nil && b.Sign() <= 0 && b.Cmp(negMinNormalRat) > 0 {
		s.ExclusiveMaximum = nil
		if s.Maximum == nil || s.Maximum.Cmp(negMinNormalRat) > 0 {
			s.Maximum = negMinNormalRat
		}
	}
	if b := s.Maximum; b != nil && b.Sign() < 0 && b.Cmp(negMinNormalRat) > 0 {
		s.Maximum = negMinNormalRat
	}
	for i, c := range s.Constant {
		s.Constant[i] = floatValue(c)
	}
	for i, e := range s.Enum {
		s.Enum[i] = floatValue(e)
	}
}

var schemaPtrType = reflect.TypeOf((*jsonschema.Schema)(nil))

// forEachSchema calls f once on every schema node reachable from roots
// through any field of the library's Schema struct (subschemas sit in
// pointers, slices, maps and interface values).
func forEachSchema(roots []*jsonschema.Schema, f func(*jsonschema.Schema)) {
	seen := map[*jsonschema.Schema]bool{}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() || v.Type() != schemaPtrType {
				return
			}
			s := v.Interface().(*jsonschema.Schema)
			if seen[s] {
				return
			}
			seen[s] = true
			f(s)
			e := v.Elem()
			for i := 0; i < e.NumField(); i++ {
				if e.Type().Field(i).IsExported() {
					walk(e.Field(i))
				}
			}
		case reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i))
			}
		case reflect.Map:
			for it := v.MapRange(); it.Next(); {
				walk(it.Value())
			}
		}
	}
	for _, r := range roots {
		walk(reflect.ValueOf(r))
	}
}
