package schemas

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// handNumbers are number texts picked for the integer rule, equality and
// bound comparisons: signed zeros, fractions that are integers, exponents
// either way, values next to 2^53 and past float64's range.
var handNumbers = []string{
	"0", "-0", "0.0", "-0.0", "0e5", "0.000e-7", "1", "-1", "1.0", "1.00000", "1e2", "1E+2", "1e-2", "100e-2",
	"10e-1", "0.1e1", "1.5", "1.5e1", "2.5", "25e-1", "0.25e1", "-2.5", "1e15", "1000000000000000.0000000001",
	"999999999999999.9999999999", "1e-400", "-1e-400", "-0.0000000000000000001", "0.0000000000000000001",
	"9007199254740991", "9007199254740992", "9007199254740993", "9007199254740992.5", "86400000", "86400000.0",
	"86400001", "1e308", "1e309", "-1e309", "1e400", "0.1", "0.1000000000000000000001", "0.0999999999999999999999",
	"12345678901234567890.000", "123456789012345678901234567890e-10", "5e-324", "2e-324", "4.9406564584124654e-324",
	"3e-324", "-5e-324", "1e-310", "2.225073858507201e-308", "2.2250738585072014e-308", "2.2250738585072011e-308",
	"1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308", "1e-1000001", "1e999999",
	"0.99999999999999999999", "1.00000000000000000001", "4503599627370496.5", "4503599627370497.5",
}

func TestParseNumberMatchesRat(t *testing.T) {
	nums := append([]string(nil), handNumbers...)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 3000; i++ {
		nums = append(nums, randomNumberText(rng))
	}
	for _, s := range nums {
		if !parseNumber(s).ok {
			t.Fatalf("%q: not taken for a JSON number", s)
		}
	}
	// Canonical forms are equal exactly when the values are (among the
	// numbers big.Rat converts: not 1e-1000001).
	var rats []*big.Rat
	exact := nums[:0]
	for _, s := range nums {
		if r, ok := new(big.Rat).SetString(s); ok {
			rats = append(rats, r)
			exact = append(exact, s)
		}
	}
	nums = exact
	for i := range nums {
		for _, j := range []int{rng.IntN(len(nums)), (i + 1) % len(nums)} {
			same := parseNumber(nums[i]).canonical() == parseNumber(nums[j]).canonical()
			if same != (rats[i].Cmp(rats[j]) == 0) {
				t.Errorf("%q vs %q: canonical equal %v, values equal %v", nums[i], nums[j], same, !same)
			}
		}
		// The same value written another way.
		other := rescale(nums[i], rng.IntN(7)-3)
		if parseNumber(nums[i]).canonical() != parseNumber(other).canonical() {
			t.Errorf("%q and %q: canonical forms %q, %q differ", nums[i], other, parseNumber(nums[i]).canonical(), parseNumber(other).canonical())
		}
	}
	for _, bad := range []string{"", "-", "01", "1.", ".5", "1e", "1e+", "+1", "1.5.0", "0x10", "1_0", " 1", "NaN", "Inf"} {
		if parseNumber(bad).ok {
			t.Errorf("%q accepted as a JSON number", bad)
		}
	}
}

// randomNumberText returns a random JSON number text whose exponent stays
// far inside big.Rat's range.
func randomNumberText(rng *rand.Rand) string {
	var b strings.Builder
	if rng.IntN(2) == 0 {
		b.WriteByte('-')
	}
	if rng.IntN(3) == 0 {
		b.WriteByte('0')
	} else {
		b.WriteByte(byte('1' + rng.IntN(9)))
		for i := rng.IntN(8); i > 0; i-- {
			b.WriteByte(byte('0' + rng.IntN(10)))
		}
	}
	if rng.IntN(2) == 0 {
		b.WriteByte('.')
		for i := 1 + rng.IntN(6); i > 0; i-- {
			if rng.IntN(3) == 0 {
				b.WriteByte('0')
			} else {
				b.WriteByte(byte('0' + rng.IntN(10)))
			}
		}
	}
	if rng.IntN(2) == 0 {
		fmt.Fprintf(&b, "e%d", rng.IntN(41)-20)
	}
	return b.String()
}

// rescale writes the value of s with its mantissa multiplied by 10^k and
// the exponent lowered by k (k zeros appended, or the point moved).
func rescale(s string, k int) string {
	ni := parseNumber(s)
	mant := ni.intPart + ni.frac
	e := ni.exp - int64(len(ni.frac))
	if k > 0 {
		mant += strings.Repeat("0", k)
		e -= int64(k)
	}
	sign := ""
	if ni.neg {
		sign = "-"
	}
	mant = strings.TrimLeft(mant, "0")
	if mant == "" {
		mant = "0"
	}
	return fmt.Sprintf("%s%se%d", sign, mant, e)
}

// loadOne compiles a one-schema set "t.json" with the given keywords.
func loadOne(t *testing.T, body string) *Set {
	t.Helper()
	s, err := LoadWith(map[string][]byte{"t.json": []byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://xflex.dev/schemas/t.json",` + body + `}`)})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// libraryOK is the library's verdict; panicked when it panics.
func libraryOK(s *Set, doc any) (ok, panicked bool) {
	defer func() {
		if recover() != nil {
			ok, panicked = false, true
		}
	}()
	return len(s.validateLibrary("t.json", doc)) == 0, false
}

// floatOracle is the number rule of float.go written out independently
// for one keyword and bound: valid, invalid or "refused" (no finite
// float64, whatever the schema).
func floatOracle(kw, bound, x string) string {
	f, err := strconv.ParseFloat(x, 64)
	if err != nil {
		return "refused"
	}
	ok := true
	switch kw {
	case "type": // "integer": written as one (rule 4), so integral too
		ok = !strings.ContainsAny(x, ".eE") && f == math.Trunc(f)
	default:
		b, _ := strconv.ParseFloat(bound, 64) // ±Inf for a bound beyond the range
		switch kw {
		case "minimum":
			ok = f >= b
		case "exclusiveMinimum":
			ok = f > b
		case "maximum":
			ok = f <= b
		case "exclusiveMaximum":
			ok = f < b
		}
		// A bound that excludes 0 excludes the subnormals too.
		zeroOK := map[string]bool{"minimum": b <= 0, "exclusiveMinimum": b < 0, "maximum": b >= 0, "exclusiveMaximum": b > 0}[kw]
		if !zeroOK && math.Abs(f) < minNormal {
			ok = false
		}
	}
	return map[bool]string{true: "valid", false: "invalid"}[ok]
}

// checkOracle compares the fast path, the library path and Validate with
// floatOracle on one schema and number.
func checkOracle(t *testing.T, s *Set, kw, bound, x string) {
	t.Helper()
	want := floatOracle(kw, bound, x)
	fast := s.fast["t.json"].check(json.Number(x))
	lib, panicked := libraryOK(s, json.Number(x))
	all := s.Validate("t.json", json.Number(x))
	switch {
	case panicked:
		t.Errorf("%s %s, value %s: the library path panicked", kw, bound, x)
	case want == "refused":
		if fast != verdictUnsure || lib || len(all) != 1 || !strings.Contains(all[0].Message, "float64 range") {
			t.Errorf("%s %s, value %s: fast %s, library valid=%v, Validate %v; want it refused as out of range", kw, bound, x, fast, lib, all)
		}
	case fast.String() != want || lib != (want == "valid") || (len(all) == 0) != (want == "valid"):
		t.Errorf("%s %s, value %s: fast %s, library valid=%v, Validate %v; the float64 rule says %s", kw, bound, x, fast, lib, all, want)
	}
}

func TestIntegerRuleIsFloat64(t *testing.T) {
	s := loadOne(t, `"type":"integer"`)
	for _, x := range handNumbers {
		checkOracle(t, s, "type", "", x)
	}
}

// TestBoundsAreFloat64: every bound keyword judges the number's float64
// against the bound's, zero-excluding bounds refuse subnormals, and the
// fast path, the library path and Validate agree with that rule.
func TestBoundsAreFloat64(t *testing.T) {
	bounds := []string{"0", "-0", "2.5", "1e15", "9007199254740991", "86400000", "-1e-400", "1e-400", "0.1", "1e308",
		"1e400", "-1e400", "5e-324", "-5e-324", "2.2250738585072014e-308", "0.1000000000000000000001", "1.00000000000000000001"}
	for _, kw := range []string{"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"} {
		for _, b := range bounds {
			s := loadOne(t, fmt.Sprintf(`"type":"number",%q:%s`, kw, b))
			for _, x := range append(append([]string(nil), handNumbers...), bounds...) {
				checkOracle(t, s, kw, b, x)
			}
		}
	}
}

// TestRoundingExplained: a violation at a number its float64 does not
// represent says what the number became, and one at an exact number does
// not add noise.
func TestRoundingExplained(t *testing.T) {
	s := loadOne(t, `"type":"object","properties":{"d":{"type":"number","exclusiveMinimum":0,"maximum":1e15}}`)
	cases := []struct{ doc, want string }{
		{`{"d":1e-400}`, "must be >= 2.2250738585072014e-308 but found 0.0 (1e-400 is 0 as a float64)"},
		{`{"d":5e-324}`, "must be >= 2.2250738585072014e-308 but found 5e-324"},
		{`{"d":-0}`, "must be >= 2.2250738585072014e-308 but found -0"},
		{`{"d":1000000000000000.2}`, "must be <= 1e+15 but found 1.0000000000000002e+15"},
		{`{"d":1e309}`, "number 1e309 is out of range: beyond the float64 range (±1.8e308)"},
	}
	for _, c := range cases {
		vs := s.Validate("t.json", mustDecode(t, c.doc))
		if len(vs) != 1 || vs[0].Pointer != "/d" || vs[0].Message != c.want {
			t.Errorf("%s: %+v, want one violation at /d: %q", c.doc, vs, c.want)
		}
	}
	// Within rounding of the bound is the bound: valid.
	if vs := s.Validate("t.json", mustDecode(t, `{"d":1000000000000000.01}`)); len(vs) != 0 {
		t.Errorf("1000000000000000.01 (1e15 as a float64): %+v", vs)
	}
}

// TestHugeExponents: numbers big.Rat cannot convert (the library panicked
// on them) are judged by their float64 like any other: 0 for the tiny
// ones, refused for the huge ones, without a panic.
func TestHugeExponents(t *testing.T) {
	for _, body := range []string{`"type":"integer"`, `"type":"number","minimum":0`, `"enum":[0,2]`, `"type":"number","exclusiveMinimum":0`} {
		s := loadOne(t, body)
		for _, x := range []string{"1e1000000000", "1e-1000001", "0e99999999999999999999", "-1.5e2000000", "-1e-99999999999999999999"} {
			fast := s.fast["t.json"].check(json.Number(x))
			lib, panicked := libraryOK(s, json.Number(x))
			_, err := strconv.ParseFloat(x, 64)
			switch {
			case panicked:
				t.Errorf("%s, %s: library path panicked", body, x)
			case err != nil && (fast != verdictUnsure || lib):
				t.Errorf("%s, %s: fast %s, library valid=%v; want unsure and refused", body, x, fast, lib)
			case err == nil && fast.String() != map[bool]string{true: "valid", false: "invalid"}[lib]:
				t.Errorf("%s, %s: fast %s, library valid=%v", body, x, fast, lib)
			}
		}
	}
}

// TestFastInPlaceCycleIsUnsure: the library refuses to compile an in-place
// $ref cycle, but a hand-built graph with one must not send the fast path
// into endless recursion.
func TestFastInPlaceCycleIsUnsure(t *testing.T) {
	a := &jsonschema.Schema{MinProperties: -1, MaxProperties: -1, MinItems: -1, MaxItems: -1, MinLength: -1, MaxLength: -1, MinContains: 1, MaxContains: -1}
	b := *a
	a.AllOf = []*jsonschema.Schema{&b}
	b.Ref = a
	if got := compileFast(a).check(json.Number("1")); got != verdictUnsure {
		t.Errorf("cycle: fast %s, want unsure", got)
	}
}

// TestFastConcurrent: one Set validating from several goroutines gives
// each the serial answers (the memo is per call; run with -race).
func TestFastConcurrent(t *testing.T) {
	s := loadOne(t, `"type":"object","propertyNames":{"$ref":"common.json#/$defs/name"},"additionalProperties":{"$ref":"common.json#/$defs/name"}`)
	docs := make([]any, 40)
	want := make([]verdict, len(docs))
	for i := range docs {
		m := map[string]any{}
		for j := 0; j < 50; j++ {
			v := fmt.Sprintf("v%d", j%7)
			if (i+j)%37 == 0 {
				v = "bad\x01"
			}
			m[fmt.Sprintf("k%d", j)] = v
		}
		docs[i] = m
		want[i] = s.fast["t.json"].check(m)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4*len(docs))
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, d := range docs {
				if got := s.fast["t.json"].check(d); got != want[i] {
					errs <- fmt.Sprintf("doc %d: %s, serial %s", i, got, want[i])
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestUnsupportedBranchIsUnsure: the library walks below an unsupported
// keyword (here contains) even when another anyOf branch is valid, where
// the fast path does not look, so reaching an unsupported node makes the
// whole call unsure.
func TestUnsupportedBranchIsUnsure(t *testing.T) {
	s := loadOne(t, `"anyOf":[{"type":"array","contains":{"minimum":0}},{"type":"array"}]`)
	doc := []any{json.Number("-1")}
	if got := s.fast["t.json"].check(doc); got != verdictUnsure {
		t.Errorf("fast %s, want unsure", got)
	}
	if got := s.fast["t.json"].check([]any{json.Number("1")}); got != verdictUnsure {
		t.Errorf("plain array: fast %s, want unsure (contains is unsupported)", got)
	}
}

// TestComposedKeywordsMatchLibrary decides oneOf (including two valid
// branches), anyOf, not, if/then/else, const, enum and uniqueItems on
// hand-picked values, each exactly as the library does.
func TestComposedKeywordsMatchLibrary(t *testing.T) {
	cases := []struct {
		body string
		docs []string
	}{
		{`"oneOf":[{"type":"number","minimum":0},{"type":"integer","maximum":10}]`, []string{`5`, `5.0`, `-1`, `11.5`, `-1.5`, `1e2`, `"x"`, `-0`}},
		{`"anyOf":[{"type":"integer"},{"type":"string","minLength":2}]`, []string{`1`, `1.5`, `"ab"`, `"a"`, `null`, `"日本"`}},
		{`"not":{"type":"string"}`, []string{`"x"`, `1`, `null`, `[]`}},
		{`"if":{"type":"number"},"then":{"minimum":0},"else":{"type":"string","maxLength":3}`, []string{`1`, `-1`, `"abc"`, `"abcd"`, `true`}},
		{`"if":{"minimum":0},"then":{"maximum":5}`, []string{`3`, `6`, `-6`, `"x"`}},
		{`"const":{"k":[0,1.5]}`, []string{`{"k":[0,1.5]}`, `{"k":[-0,15e-1]}`, `{"k":[0,1.5],"x":1}`, `{"k":[1.5,0]}`, `[0,1.5]`}},
		{`"enum":[1,2.5,"1",null,{"a":[1,2]}]`, []string{`1.0`, `10e-1`, `"1"`, `2.50`, `2`, `null`, `{"a":[1,2.0]}`, `{"a":[2,1]}`, `false`}},
		{`"uniqueItems":true`, []string{`[1,1.0]`, `[1,"1"]`, `[[1,2],[1,2.0]]`, `[{"a":1,"b":2},{"b":2,"a":1.0}]`, `[0,-0]`, `[true,false,null]`, `[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,1e0]`, `[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22]`}},
		{`"type":"object","propertyNames":{"maxLength":2},"additionalProperties":{"type":"integer"},"minProperties":1,"maxProperties":2`, []string{`{}`, `{"a":1}`, `{"abc":1}`, `{"a":1.5}`, `{"a":1,"b":2,"c":3}`, `{"ab":1e2}`}},
		{`"type":"string","format":"date-time"`, []string{`"2026-11-22T05:06:28Z"`, `"2026-11-22T05:06:28"`, `"2026-02-30T05:06:28Z"`, `"2026-11-22t05:06:28.5+01:00"`}},
		{`"format":"date-time"`, []string{`1`, `null`, `"x"`}},
		{`"type":["integer","string"],"minimum":1`, []string{`1.0`, `0`, `"0"`, `1.5`}},
	}
	for _, c := range cases {
		s := loadOne(t, c.body)
		for _, d := range c.docs {
			doc := mustDecode(t, d)
			fast := s.fast["t.json"].check(doc)
			lib, _ := libraryOK(s, doc)
			if want := map[bool]verdict{true: verdictValid, false: verdictInvalid}[lib]; fast != want {
				t.Errorf("%s, %s: fast %s, library valid=%v", c.body, d, fast, lib)
			}
		}
	}
}

func mustDecode(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}
