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

func TestFloatMatchesMarshal(t *testing.T) {
	fs := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e-6, 9.999999999999999e-7, 1e-7, 1e20, 1e21, 999999999999999900000,
		5e-324, math.MaxFloat64, -math.MaxFloat64, 1e-10, 123456.789, 0.19449167143432722, 1e15, 1e-100, 2.5e-9}
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

func TestMapsMatchMarshal(t *testing.T) {
	im := map[string]int{"net_out": 3, "cpu": 1, "<&>": -2, "é": 0, "": 7}
	fm := map[string]float64{"net_out": 1e-7, "cpu": 0.25, "b\"q": 1e21}
	sm := map[string]string{"m<1>": "u&1", "m0": "é\n", "": ""}
	for _, c := range []struct {
		got  []byte
		want any
	}{
		{IntMap(nil, im), im}, {IntMap(nil, nil), map[string]int(nil)}, {IntMap(nil, map[string]int{}), map[string]int{}},
		{must(FloatMap(nil, fm)), fm}, {must(FloatMap(nil, nil)), map[string]float64(nil)},
		{StringMap(nil, sm), sm}, {StringMap(nil, nil), map[string]string(nil)},
	} {
		want, _ := json.Marshal(c.want)
		if !bytes.Equal(c.got, want) {
			t.Errorf("%s, want %s", c.got, want)
		}
	}
	if _, err := FloatMap(nil, map[string]float64{"x": math.NaN()}); err == nil {
		t.Error("NaN in a map encoded")
	}
}

func TestWriter(t *testing.T) {
	w := Writer{}
	w.Open('{')
	w.Key("a")
	w.Int(1)
	w.Key("list")
	w.Open('[')
	for i := range 3 {
		w.Open('{')
		w.Key("i")
		w.Int(i)
		w.Key("s")
		w.String("<")
		w.Close('}')
	}
	w.Close(']')
	w.Key("none")
	w.Null()
	w.Key("m")
	w.IntMap(map[string]int{"b": 2, "a": 1})
	w.Key("f")
	w.Float(0.5)
	w.Key("ok")
	w.Bool(true)
	w.Close('}')
	want := `{"a":1,"list":[{"i":0,"s":"\u003c"},{"i":1,"s":"\u003c"},{"i":2,"s":"\u003c"}],"none":null,"m":{"a":1,"b":2},"f":0.5,"ok":true}`
	if string(w.B) != want || w.Err != nil {
		t.Fatalf("%s (%v)\nwant %s", w.B, w.Err, want)
	}
	w.Float(math.Inf(1))
	w.Float(1)
	var u *UnsupportedFloat
	if !errors.As(w.Err, &u) || !math.IsInf(u.Value, 1) {
		t.Fatalf("error %v, want the first unsupported float", w.Err)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
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

func FuzzFloat(f *testing.F) {
	f.Add(uint64(0))
	f.Add(math.Float64bits(1e21))
	f.Add(math.Float64bits(1e-7))
	f.Fuzz(func(t *testing.T, bits uint64) {
		x := math.Float64frombits(bits)
		want, werr := json.Marshal(x)
		got, gerr := Float(nil, x)
		if (werr != nil) != (gerr != nil) || werr == nil && !bytes.Equal(got, want) {
			t.Fatalf("%v: %s (%v), want %s (%v)", x, got, gerr, want, werr)
		}
	})
}
