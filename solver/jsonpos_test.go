package solver

import (
	"strings"
	"testing"
)

// TestMalformedAt: a body that is not JSON is located by line and column:
// a truncated one at its end, a syntax error where it is, trailing data
// where it starts.
func TestMalformedAt(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"{\n  \"a\": [1,\n  2", "unexpected EOF at line 3, column 4 (byte 16)"},
		{"{\n  \"a\": 1,,\n}", "at line 2, column 10 (byte 11)"},
		{"{\"a\": 1}\n  {}", "at line 2, column 3 (byte 11)"},
		{"", "at line 1, column 1 (byte 0)"},
	} {
		_, err := DecodeAny([]byte(c.body))
		if err == nil {
			t.Fatalf("%q decoded", c.body)
		}
		if e := MalformedAt([]byte(c.body), err); e.Kind != KindMalformed || !strings.HasSuffix(e.Detail, c.want) {
			t.Errorf("%q: %q, want it to end with %q", c.body, e.Detail, c.want)
		}
	}
}
