package schemas

import (
	"math/big"
	"slices"
	"strings"
	"testing"
)

// Numbers with no finite float64 are refused with their pointers, by
// Validate and validateLibrary alike, and the message does not echo a
// megabyte of digits.
func TestUnusableNumbersRefusedWithPointer(t *testing.T) {
	set, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, num := range []string{"1e999999", "1e400", "-1.8e308", "1" + strings.Repeat("0", 5000), "1e99999999999999999999"} {
		doc := mustDecode(t, `{"machines":[{"name":"m","capacity":{"a/b":`+num+`}}],"tasks":[]}`)
		for _, vs := range [][]Violation{set.Validate("tetris-assign.request.json", doc), set.validateLibrary("tetris-assign.request.json", doc)} {
			if len(vs) != 1 || vs[0].Pointer != "/machines/0/capacity/a~1b" || !strings.Contains(vs[0].Message, "float64 range") {
				t.Errorf("%.30s: %+v, want one violation at /machines/0/capacity/a~1b saying float64 range", num, vs)
			}
			if len(vs) == 1 && len(vs[0].Message) > 120 {
				t.Errorf("%.30s: message of %d bytes echoes the whole number", num, len(vs[0].Message))
			}
		}
	}
	// Extreme numbers with a finite float64 are left to the schema.
	for _, num := range []string{"1e-400", "1.7e308", "5e-324", "0.000001e-300", "1e-1000001", "1." + strings.Repeat("0", 5000) + "1"} {
		if p := numberProblem(num); p != "" {
			t.Errorf("%s: %s", num, p)
		}
	}
	if p := numberProblem("NaN"); !strings.Contains(p, "not a JSON number") {
		t.Errorf("NaN: %q", p)
	}
}

// A panic inside the library becomes a violation at the root, not a
// crash (no document is known to cause one now that it sees only numbers
// with a finite float64, so the panic is injected).
func TestLibraryPanicRecovered(t *testing.T) {
	vs := guard(func() []Violation {
		var r *big.Rat
		return []Violation{{Message: r.String()}}
	})
	if len(vs) != 1 || vs[0].Pointer != "" || !strings.Contains(vs[0].Message, "validator failed") {
		t.Fatalf("%+v, want one violation saying the validator failed", vs)
	}
	want := []Violation{{Pointer: "/a", Message: "m"}}
	if got := guard(func() []Violation { return want }); len(got) != 1 || got[0] != want[0] {
		t.Fatalf("guard changed a normal result: %+v", got)
	}
}

// Each property an additionalProperties:false object does not allow is a
// violation at its own pointer (issue 20), in a stable order: the library
// lists them in map order at the object.
func TestUnknownPropertiesPointAtThemselves(t *testing.T) {
	set, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	body := `{"machines":[{"name":"m","capacity":{"cpu":1},"bogus":0}],"tasks":[],"zz":1,"aa":2,"m'm":3,"b\\c":4,"x/\"~y":5}`
	want := []Violation{
		{Pointer: "/aa", Message: `additionalProperties 'aa' not allowed`},
		{Pointer: `/b\c`, Message: `additionalProperties 'b\\c' not allowed`},
		{Pointer: "/m'm", Message: `additionalProperties 'm\'m' not allowed`},
		{Pointer: "/machines/0/bogus", Message: `additionalProperties 'bogus' not allowed`},
		{Pointer: `/x~1"~0y`, Message: `additionalProperties 'x/"~y' not allowed`},
		{Pointer: "/zz", Message: `additionalProperties 'zz' not allowed`},
	}
	for i := 0; i < 50; i++ {
		got := set.Validate("tetris-assign.request.json", mustDecode(t, body))
		if !slices.Equal(got, want) {
			t.Fatalf("run %d:\n got %+v\nwant %+v", i, got, want)
		}
	}
}

func TestLeafViolations(t *testing.T) {
	cases := []struct {
		ptr, msg string
		want     []Violation
	}{
		{"", `additionalProperties 'b', 'a' not allowed`, []Violation{{"/b", `additionalProperties 'b' not allowed`}, {"/a", `additionalProperties 'a' not allowed`}}},
		{"/t/0", `additionalProperties 'x\', \'y' not allowed`, []Violation{{"/t/0/x', 'y", `additionalProperties 'x\', \'y' not allowed`}}},
		{"/q", `additionalProperties 'a\tb', 'c\\' not allowed`, []Violation{{"/q/a\tb", `additionalProperties 'a\tb' not allowed`}, {`/q/c\`, `additionalProperties 'c\\' not allowed`}}},
		{"", `additionalProperties garbage not allowed`, []Violation{{"", `additionalProperties garbage not allowed`}}},
		{"", `additionalProperties 'a', 'b not allowed`, []Violation{{"", `additionalProperties 'a', 'b not allowed`}}},
		{"/n", `minimum: got 1, want 2`, []Violation{{"/n", `minimum: got 1, want 2`}}},
	}
	for _, c := range cases {
		if got := leafViolations(c.ptr, c.msg); !slices.Equal(got, c.want) {
			t.Errorf("leafViolations(%q, %q) = %+v, want %+v", c.ptr, c.msg, got, c.want)
		}
	}
}

// A value past two bounds on one side broke one rule: it gets one
// violation, the tightest bound's (issue 20: "a weight of -1 gives two").
// Bounds in different oneOf branches are different rules and all stay.
func TestOneViolationPerBound(t *testing.T) {
	const schema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://xflex.dev/schemas/bounds.json",
	 "type":"object","properties":{
	  "w":{"type":"number","exclusiveMinimum":0.5,"minimum":1,"maximum":10,"exclusiveMaximum":10},
	  "e":{"type":"number","exclusiveMinimum":2,"minimum":2},
	  "o":{"oneOf":[{"type":"number","minimum":0},{"type":"number","minimum":5}]}}}`
	set, err := LoadWith(map[string][]byte{"bounds.json": []byte(schema)})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		body string
		want []Violation
	}{
		{`{"w":-1}`, []Violation{{"/w", "must be >= 1 but found -1"}}},
		{`{"w":11}`, []Violation{{"/w", "must be < 10 but found 11"}}},
		{`{"e":0}`, []Violation{{"/e", "must be > 2 but found 0"}}},
		{`{"o":-1}`, []Violation{{"/o", "must be >= 0 but found -1"}, {"/o", "must be >= 5 but found -1"}}},
	}
	for _, c := range cases {
		for _, got := range [][]Violation{set.Validate("bounds.json", mustDecode(t, c.body)), set.validateLibrary("bounds.json", mustDecode(t, c.body))} {
			if !slices.Equal(got, c.want) {
				t.Errorf("%s: %+v, want %+v", c.body, got, c.want)
			}
		}
	}
}
