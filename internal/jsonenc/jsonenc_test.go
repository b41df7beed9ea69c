package jsonenc

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
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

func TestFloatMatchesMarshal(t *testing.T) {
	fs := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e-6, 9.999999999999999e-7, 1e-7, 1e20, 1e21, 999999999999999900000,
		5e-324, math.MaxFloat64, -math.MaxFloat64, 1e-10, 123456.789, 0.19449167143432722, 1e15, 1e-100, 2.5e-9,
		math.NaN(), math.Inf(1), math.Inf(-1)}
	rng := rand.New(rand.NewPCG(1, 1))
	for range 20000 {
		fs = append(fs, math.Float64frombits(rng.Uint64()))
	}
	for _, f := range fs {
		want, werr := json.Marshal(f)
		got, gerr := Float(nil, f)
		if (werr != nil) != (gerr != nil) {
			t.Fatalf("%v: error %v, want %v", f, gerr, werr)
		}
		if werr != nil {
			var u *UnsupportedFloat
			if !errors.As(gerr, &u) || gerr.Error() != werr.Error() {
				t.Errorf("%v: error %q, want %q", f, gerr, werr)
			}
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%v: %s, want %s", f, got, want)
		}
	}
}
