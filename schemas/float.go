package schemas

import (
	"encoding/json"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"

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
//  4. Where the schema says "integer" (and not "number"), the number must
//     also be written as an integer, without fraction or exponent: the
//     solvers decode such a field into a Go int (encoding/json,
//     json.Number.Int64), which refuses 1.0 and 1e2 although their value
//     is an integer. The integerLiteral keyword (an extension registered
//     on every such node) enforces it on the library path.
//
// The library compares exact decimals, so it is made to follow these rules
// by what it is given: floatSchema rewrites the compiled schemas once
// (bounds and const/enum numbers become their float64's shortest decimal,
// zero-excluding bounds are tightened to the normal range) and floatValue
// hands it the document with every number replaced by its float64's
// shortest decimal (floatText, which keeps whether it was written as an
// integer). Distinct float64s have disjoint rounding intervals and a
// shortest decimal lies in its own, so comparing shortest decimals exactly
// orders them as the float64s are ordered: the fast path, which compares
// float64s directly, decides the same.

// minNormal is the smallest positive normal float64, 2^-1022.
const minNormal = 0x1p-1022

// floatOf returns the float64 of a JSON number text; ok is false when s is
// no JSON number or its float64 is infinite.
func floatOf(s string) (f float64, ok bool) {
	if f, ok := smallInteger(s); ok {
		return f, true
	}
	if !parseNumber(s).ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// maxExactDigits is the most decimal digits an integer may have and still
// be a float64 exactly (10^15 < 2^53).
const maxExactDigits = 15

// smallInteger is floatOf of the commonest number text, a JSON integer
// -?(0|[1-9][0-9]*) of at most maxExactDigits digits, read without
// strconv: its float64 is its value exactly, the value ParseFloat gives
// ("-0" is -0, as there). ok is false for any other text, which floatOf
// then reads the general way. Validation calls floatOf once per number
// per schema branch: 2.1 million attribute values of a 100,000-machine
// CMMF request, each tried against three anyOf branches, spent 0.3 s in
// parseNumber and ParseFloat.
func smallInteger(s string) (float64, bool) {
	digits := s
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		digits = s[1:]
	}
	if len(digits) == 0 || len(digits) > maxExactDigits || (digits[0] == '0' && len(digits) > 1) {
		return 0, false
	}
	var n int64
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	f := float64(n)
	if neg {
		f = -f // -0 for "-0", as ParseFloat
	}
	return f, true
}

// shortest is the shortest decimal that parses back to f (finite).
func shortest(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// integerText reports whether the JSON number text s is written as an
// integer: no fraction, no exponent.
func integerText(s string) bool { return !strings.ContainsAny(s, ".eE") }

// floatText is the text the library sees for a number written s with
// float64 f: a decimal of f's shortest value that is written as an
// integer exactly when s is (rule 4 needs to know; the value, hence every
// comparison, is the same).
func floatText(s string, f float64) string {
	if integerText(s) {
		return strconv.FormatFloat(f, 'f', -1, 64) // f is integral: digits only
	}
	t := shortest(f)
	if integerText(t) {
		t += ".0"
	}
	return t
}

// floatValue returns v with every JSON number replaced by the shortest
// decimal of its float64 (floatText; a copy, v is not changed). A number with no
// finite float64 is left as it is: unusableNumbers refuses it first.
func floatValue(v any) any {
	switch v := v.(type) {
	case json.Number:
		if f, ok := floatOf(string(v)); ok {
			return json.Number(floatText(string(v), f))
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

// integerLiteral is the name of the extension keyword of rule 4; it is
// not written in any schema but compiled onto every node whose type
// admits integers and not other numbers.
const integerLiteral = "integerLiteral"

// integerLiteralExt compiles rule 4 (jsonschema.ExtCompiler).
type integerLiteralExt struct{}

func (integerLiteralExt) Compile(_ jsonschema.CompilerContext, m map[string]any) (jsonschema.ExtSchema, error) {
	if integerOnly(m["type"]) {
		return integerLiteralSchema{}, nil
	}
	return nil, nil
}

// integerOnly reports whether a schema's "type" value lists "integer" and
// not "number".
func integerOnly(t any) bool {
	var types []any
	switch t := t.(type) {
	case string:
		types = []any{t}
	case []any:
		types = t
	}
	integer, number := false, false
	for _, x := range types {
		integer = integer || x == "integer"
		number = number || x == "number"
	}
	return integer && !number
}

// integerLiteralSchema validates rule 4 (jsonschema.ExtSchema).
type integerLiteralSchema struct{}

// integerLiteralMessage is rule 4's violation message; it names no value,
// because the library sees floatText's rewriting, not what was written.
const integerLiteralMessage = "expected an integer written without fraction or exponent (e.g. 100, not 100.0 or 1e2)"

func (integerLiteralSchema) Validate(ctx jsonschema.ValidationContext, v any) error {
	if n, ok := v.(json.Number); ok && !integerText(string(n)) {
		return ctx.Error("type", integerLiteralMessage)
	}
	return nil
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
