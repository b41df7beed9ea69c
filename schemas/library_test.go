package schemas

import (
	"bytes"
	"encoding/json"
	"math/big"
	"strings"
	"testing"
)

// Numbers the library cannot validate (it panicked on 1e-1000001 and spent
// a 2.3-million-bit power of five on 1e999999) or that are no float64 are
// refused with their pointers, by Validate and validateLibrary alike.
func TestUnusableNumbersRefusedWithPointer(t *testing.T) {
	set, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	long := "1." + strings.Repeat("0", maxNumberLen) + "1"
	cases := []struct {
		num, ptr, why string
	}{
		{"1e-1000001", "/machines/0/capacity/a~1b", "exponent is beyond ±1000"},
		{"1e999999", "/machines/0/capacity/a~1b", "exponent is beyond ±1000"},
		{"1e400", "/machines/0/capacity/a~1b", "float64 range"},
		{"-1.8e308", "/machines/0/capacity/a~1b", "float64 range"},
		{long, "/machines/0/capacity/a~1b", "more than 1000 characters"},
	}
	for _, c := range cases {
		doc := mustDecode(t, `{"machines":[{"name":"m","capacity":{"a/b":`+c.num+`}}],"tasks":[]}`)
		for _, vs := range [][]Violation{set.Validate("tetris-assign.request.json", doc), set.validateLibrary("tetris-assign.request.json", doc)} {
			if len(vs) != 1 || vs[0].Pointer != c.ptr || !strings.Contains(vs[0].Message, c.why) {
				t.Errorf("%.30s: %+v, want one violation at %s saying %q", c.num, vs, c.ptr, c.why)
			}
			if len(vs) == 1 && len(vs[0].Message) > 120 {
				t.Errorf("%.30s: message of %d bytes echoes the whole number", c.num, len(vs[0].Message))
			}
		}
	}
	// Extreme but usable numbers are left to the schema.
	for _, num := range []string{"1e-400", "1.7e308", "5e-324", "0.000001e-300"} {
		if p := numberProblem(num); p != "" {
			t.Errorf("%s: %s", num, p)
		}
	}
}

// A panic inside the library becomes a violation at the root, not a
// crash (no document is known to cause one now that unusable numbers are
// refused first, so the panic is injected).
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

// The names in an additionalProperties message are sorted: the library
// lists them in map order, so the same request got different texts.
func TestAdditionalPropertiesMessageStable(t *testing.T) {
	set, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	body := `{"machines":[{"name":"m","capacity":{"cpu":1}}],"tasks":[],"zz":1,"aa":2,"m'm":3,"b\\c":4}`
	var first []byte
	for i := 0; i < 50; i++ {
		vs := set.Validate("tetris-assign.request.json", mustDecode(t, body))
		got, _ := json.Marshal(vs)
		if i == 0 {
			first = got
			if len(vs) != 1 || vs[0].Message != `additionalProperties 'aa', 'b\\c', 'm\'m', 'zz' not allowed` {
				t.Fatalf("%+v", vs)
			}
		} else if !bytes.Equal(got, first) {
			t.Fatalf("run %d: %s, first %s", i, got, first)
		}
	}
}

func TestStableMessage(t *testing.T) {
	cases := []struct{ in, want string }{
		{`additionalProperties 'b', 'a' not allowed`, `additionalProperties 'a', 'b' not allowed`},
		{`additionalProperties 'x\', \'y', 'a' not allowed`, `additionalProperties 'a', 'x\', \'y' not allowed`},
		{`additionalProperties 'a' not allowed`, `additionalProperties 'a' not allowed`},
		{`additionalProperties garbage not allowed`, `additionalProperties garbage not allowed`},
		{`additionalProperties 'a', 'b not allowed`, `additionalProperties 'a', 'b not allowed`},
		{`minimum: got 1, want 2`, `minimum: got 1, want 2`},
	}
	for _, c := range cases {
		if got := stableMessage(c.in); got != c.want {
			t.Errorf("stableMessage(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
