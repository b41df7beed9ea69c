package jsonenc

import (
	"bytes"
	"encoding/json"
	"testing"
)

var stringCases = []string{"", "plain", `q"uote`, `back\slash`, "<a>&b", "tab\tnl\ncr\rbs\bff\f", "\x00\x01\x1f\x7f",
	"é漢😀", "\u2028\u2029", "bad\xffutf8", "\xed\xa0\x80", "trunc\xe6\x97", "m000/j035-map-95"}

func TestStringMatchesMarshal(t *testing.T) {
	for _, s := range stringCases {
		want, _ := json.Marshal(s)
		if got := String(nil, s); !bytes.Equal(got, want) {
			t.Errorf("%q: %s, want %s", s, got, want)
		}
	}
}

func FuzzString(f *testing.F) {
	for _, s := range stringCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := String(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: %s, want %s", s, got, want)
		}
	})
}
