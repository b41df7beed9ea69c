package jsondoc_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/xflex/xflex/internal/jsondoc"
	"github.com/xflex/xflex/solver/tetris/assign"
)

// reference is solver.DecodeAny, copied so the tests compare against
// encoding/json itself and not against the package's own fallback.
func reference(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("malformed JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("malformed JSON: trailing data after the top-level value")
	}
	return v, nil
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// compare fails t unless Decode and the reference agree on data (value
// and error text), and the fast parser accepts exactly the inputs the
// reference accepts, with the same value.
func compare(t testing.TB, name string, data []byte) {
	t.Helper()
	want, wantErr := reference(data)
	got, gotErr := jsondoc.Decode(data)
	if errString(gotErr) != errString(wantErr) || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: input %q\nDecode    %#v, %v\nreference %#v, %v", name, data, got, gotErr, want, wantErr)
	}
	fv, ok := jsondoc.Fast(data)
	if ok != (wantErr == nil) {
		t.Fatalf("%s: input %q: fast parser accepts=%v, reference error %v", name, data, ok, wantErr)
	}
	if ok && !reflect.DeepEqual(fv, want) {
		t.Fatalf("%s: input %q\nfast      %#v\nreference %#v", name, data, fv, want)
	}
	compareCanonical(t, name, data, want, wantErr)
}

// canonicalOmit is the top-level member compareCanonical leaves out.
const canonicalOmit = "budget_ms"

// compareCanonical checks DecodeCanonical against Decode and against
// encoding/json's Marshal of the reference's value (less a top-level
// canonicalOmit): the same value and error, and the canonical form
// written exactly when the fast parser accepts the input.
func compareCanonical(t testing.TB, name string, data []byte, want any, wantErr error) {
	t.Helper()
	var buf bytes.Buffer
	got, written, err := jsondoc.DecodeCanonical(data, canonicalOmit, &buf)
	if errString(err) != errString(wantErr) || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: input %q\nDecodeCanonical %#v, %v\nreference       %#v, %v", name, data, got, err, want, wantErr)
	}
	if _, fastOK := jsondoc.Fast(data); written != fastOK || (!written && buf.Len() > 0) {
		t.Fatalf("%s: input %q: canonical form written %v (%d bytes), fast parser accepts %v", name, data, written, buf.Len(), fastOK)
	}
	if !written {
		return
	}
	if m, ok := want.(map[string]any); ok {
		m = maps.Clone(m)
		delete(m, canonicalOmit)
		want = m
	}
	marshaled, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), marshaled) {
		t.Fatalf("%s: input %q\ncanonical %q\nMarshal   %q", name, data, buf.Bytes(), marshaled)
	}
}

// tricky inputs; ok is whether encoding/json accepts them.
var tricky = []struct {
	in string
	ok bool
}{
	{"", false},
	{" ", false},
	{" \t\r\n", false},
	{"\f1", false},
	{"1\f", false},
	{"\v1", false},
	{"\xef\xbb\xbf{}", false},
	{"\u00a01", false},
	{"null", true},
	{" null ", true},
	{"nul", false},
	{"nulll", false},
	{"nullx", false},
	{"True", false},
	{"true", true},
	{"false", true},
	{"fals", false},
	{"[true,false,null]", true},
	{"[truefalse]", false},
	{"0", true},
	{"-0", true},
	{"-", false},
	{"--1", false},
	{"+1", false},
	{"01", false},
	{"-01", false},
	{"00", false},
	{"1.", false},
	{".5", false},
	{"1.5", true},
	{"1.50", true},
	{"1e", false},
	{"1e+", false},
	{"1e-", false},
	{"1e5", true},
	{"1E5", true},
	{"1e+05", true},
	{"1E-005", true},
	{"-0.0e-0", true},
	{"1.e5", false},
	{"1e5.5", false},
	{"0x10", false},
	{"Infinity", false},
	{"NaN", false},
	{"-Infinity", false},
	{"123456789012345678901234567890123456789012345678901234567890", true},
	{"1e999999", true},
	{"[1,2,]", false},
	{"[,1]", false},
	{"[1 2]", false},
	{"[-]", false},
	{"[01]", false},
	{"[1.]", false},
	{"[]", true},
	{"[ ]", true},
	{"[\n]", true},
	{"{}", true},
	{"{ }", true},
	{`{"a":1,}`, false},
	{`{"a" 1}`, false},
	{`{"a":}`, false},
	{`{a:1}`, false},
	{`{1:1}`, false},
	{`{"a":1 "b":2}`, false},
	{`{"a":1,"a":2}`, true},
	{`{"a":1,"b":{"a":3},"a":[2]}`, true},
	{`{"":1,"":""}`, true},
	{`{"\u0061":1,"a":2}`, true},
	{`{"a":1}x`, false},
	{"{} {}", false},
	{"{}x", false},
	{"{}  \n", true},
	{"{}\t\r\n ", true},
	{"{},", false},
	{"[] []", false},
	{"1 2", false},
	{"1x", false},
	{`"a" "b"`, false},
	{`"a"x`, false},
	{"{}}", false},
	{"[]]", false},
	{"[", false},
	{"{", false},
	{`{"a"`, false},
	{`{"a":`, false},
	{`{"a":1`, false},
	{`"`, false},
	{`"abc`, false},
	{`"abc\`, false},
	{`"abc\"`, false},
	{`""`, true},
	{`"\""`, true},
	{`"\\"`, true},
	{`"\/"`, true},
	{`"\b\f\n\r\t"`, true},
	{`"\'"`, false},
	{`"\a"`, false},
	{`"\x41"`, false},
	{`"\u"`, false},
	{`"\u12"`, false},
	{`"\u12G4"`, false},
	{`"\u00e9\u00E9"`, true},
	{`"\u0000"`, true},
	{`"\uD83D\uDE00"`, true},
	{`"\ud83d\ude00"`, true},
	{`"\ud83d"`, true},
	{`"\ude00"`, true},
	{`"\ude00\ud83d"`, true},
	{`"\ud83d\ud83d\ude00"`, true},
	{`"\ud83dx"`, true},
	{`"\ud83d\n"`, true},
	{`"\ud83d\u0041"`, true},
	{`"\ud83d\u"`, false},
	{`"\ud83d\`, false},
	{`"\ud83d\uZZZZ"`, false},
	{`"\uDBFF\uDFFF"`, true},
	{`"\uFFFD\uFFFF\uFFFE"`, true},
	{"\"a\x00b\"", false},
	{"\"a\x1fb\"", false},
	{"\"a\nb\"", false},
	{"\"a\tb\"", false},
	{"\"a\x7fb\"", true},
	{"\"é😀\"", true},
	{"\"a\xffb\"", true},
	{"\"\xff\xfe\"", true},
	{"\"\xe2\x82\"", true},
	{"\"\xe2\x82\xac\"", true},
	{"\"\xf0\x9f\x98\"", true},
	{"\"\xed\xa0\x80\"", true},
	{"\"\xc0\xaf\"", true},
	{"\"\xef\xbf\xbd\"", true},
	{"\"\xf4\x90\x80\x80\"", true},
	{"\"\xffa\\n\xff\"", true},
	{"{\"k\xff\":\"v\xfe\"}", true},
	{"\xff", false},
	{"[\"a\"\xff]", false},
	{`["\u00e9","é","\u00e9"]`, true},
	{`[[[[[]]]]]`, true},
	{`[{"a":[{"b":[]}]}]`, true},
	{`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8}`, true},
	{`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9}`, true},
	{`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"a":9}`, true},
	{`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"i":10,"b":11}`, true},
	{`{"a":1,"a":2,"a":3,"a":4,"a":5,"a":6,"a":7,"a":8,"a":9,"b":1}`, true},
	{`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,}`, false},
	{`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9`, false},
}

func TestTricky(t *testing.T) {
	for _, c := range tricky {
		_, err := reference([]byte(c.in))
		if (err == nil) != c.ok {
			t.Errorf("reference on %q: error %v, table says ok=%v", c.in, err, c.ok)
		}
		compare(t, "tricky", []byte(c.in))
	}
}

// TestValues pins the values of a few inputs (not only their agreement
// with the reference).
func TestValues(t *testing.T) {
	cases := []struct {
		in   string
		want any
	}{
		{`[]`, []any{}},
		{`{}`, map[string]any{}},
		{`{"a":1,"a":2}`, map[string]any{"a": json.Number("2")}},
		{`[1.50,-0,1E+05]`, []any{json.Number("1.50"), json.Number("-0"), json.Number("1E+05")}},
		{`"\ud800x"`, "\ufffdx"},
		{`"\ud83d\ude00"`, "😀"},
		{`"\ude00\ud83d"`, "\ufffd\ufffd"},
		{"\"a\xe2\x82b\"", "a\ufffd\ufffdb"},
		{`[true,false,null,"s"]`, []any{true, false, nil, "s"}},
	}
	for _, c := range cases {
		got, err := jsondoc.Decode([]byte(c.in))
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Decode(%q) = %#v, %v; want %#v", c.in, got, err, c.want)
		}
		if s, ok := got.([]any); ok && s == nil {
			t.Errorf("Decode(%q) gave a nil slice", c.in)
		}
		if m, ok := got.(map[string]any); ok && m == nil {
			t.Errorf("Decode(%q) gave a nil map", c.in)
		}
	}
}

// TestDepth: encoding/json accepts nesting 10000 deep and refuses 10001.
func TestDepth(t *testing.T) {
	for _, n := range []int{9999, 10000, 10001, 10002} {
		arr := strings.Repeat("[", n) + strings.Repeat("]", n)
		compare(t, fmt.Sprintf("array depth %d", n), []byte(arr))
		obj := strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n)
		compare(t, fmt.Sprintf("object depth %d", n), []byte(obj))
		mixed := strings.Repeat(`[{"a":`, n/2) + "[]" + strings.Repeat("}]", n/2)
		compare(t, fmt.Sprintf("mixed depth %d", n/2*2+1), []byte(mixed))
		_, err := jsondoc.Decode([]byte(arr))
		if (err == nil) != (n <= 10000) {
			t.Errorf("depth %d: error %v", n, err)
		}
	}
}

// TestSharing: repeated short values are shared within a document, so
// texts that differ in one byte, in length or in kind (string or number)
// must not be taken for one another.
func TestSharing(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for rep := 0; rep < 2; rep++ {
		for n := 0; n <= 20; n++ {
			base := strings.Repeat("7", n)
			fmt.Fprintf(&b, "%q,%s,", base, "1"+base)
			for i := 0; i < n; i++ {
				alt := base[:i] + "8" + base[i+1:]
				fmt.Fprintf(&b, "%q,%s,{%q:%q},", alt, "1"+alt, alt, base)
			}
			fmt.Fprintf(&b, "%q,%q,", base+"\u0000", "\u00e9"+base)
		}
	}
	b.WriteString("0]")
	compare(t, "sharing", []byte(b.String()))
}

// TestNoAliasing: the values do not share memory with the input.
func TestNoAliasing(t *testing.T) {
	in := []byte(`{"key":["value",12.5,"\u00e9x"]}`)
	v, err := jsondoc.Decode(in)
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		in[i] = 'X'
	}
	want := map[string]any{"key": []any{"value", json.Number("12.5"), "éx"}}
	if !reflect.DeepEqual(v, want) {
		t.Fatalf("after overwriting the input: %#v", v)
	}
}

// gen writes random JSON-ish documents: mostly valid, with every corner
// of the grammar, and (when bad is set) occasional invalid pieces.
type gen struct {
	r   *rand.Rand
	b   []byte
	bad bool
}

func (g *gen) chance(n int) bool { return g.r.IntN(n) == 0 }

func (g *gen) ws() {
	for n := g.r.IntN(4) - 1; n > 0; n-- {
		g.b = append(g.b, " \t\n\r"[g.r.IntN(4)])
	}
	if g.bad && g.chance(200) {
		g.b = append(g.b, "\f\v\x00\xa0"[g.r.IntN(4)])
	}
}

var keyPool = []string{"a", "b", "id", "cpu", `\u0061`, `\"q\"`, "é", `\ud83d\ude00`, "\xff", ""}

func (g *gen) value(depth int) {
	g.ws()
	k := g.r.IntN(10)
	if depth > 6 {
		k = g.r.IntN(6)
	}
	switch k {
	case 0:
		g.b = append(g.b, []string{"true", "false", "null"}[g.r.IntN(3)]...)
		if g.bad && g.chance(50) {
			g.b = append(g.b, []string{"tru", "nul", "falsey", "TRUE"}[g.r.IntN(4)]...)
		}
	case 1, 2, 3:
		g.number()
	case 4, 5:
		g.str()
	case 6, 7:
		g.b = append(g.b, '[')
		n := g.r.IntN(5)
		for i := 0; i < n; i++ {
			if i > 0 {
				g.ws()
				g.b = append(g.b, ',')
			}
			g.value(depth + 1)
		}
		if g.bad && g.chance(50) {
			g.b = append(g.b, ',')
		}
		g.ws()
		g.b = append(g.b, ']')
	default:
		g.b = append(g.b, '{')
		n := g.r.IntN(5)
		if g.chance(6) { // past the members a map takes directly
			n = 7 + g.r.IntN(10)
		}
		for i := 0; i < n; i++ {
			if i > 0 {
				g.ws()
				g.b = append(g.b, ',')
			}
			g.ws()
			if g.chance(2) {
				g.b = append(g.b, '"')
				g.b = append(g.b, keyPool[g.r.IntN(len(keyPool))]...)
				g.b = append(g.b, '"')
			} else {
				g.str()
			}
			g.ws()
			g.b = append(g.b, ':')
			g.value(depth + 1)
		}
		g.ws()
		g.b = append(g.b, '}')
	}
	g.ws()
}

func (g *gen) digits(min int) {
	for n := min + g.r.IntN(4); n > 0; n-- {
		g.b = append(g.b, byte('0'+g.r.IntN(10)))
	}
}

var badNumbers = []string{"01", "-", "1.", ".5", "1e", "1e+", "--1", "+1", "0x1", "1.e2", "NaN", "-Infinity", "00", "-01"}

func (g *gen) number() {
	if g.bad && g.chance(30) {
		g.b = append(g.b, badNumbers[g.r.IntN(len(badNumbers))]...)
		return
	}
	if g.chance(4) {
		g.b = append(g.b, []string{"0", "-0", "0.0", "1e0", "1E+0", "-0e-0", "9007199254740993", "1e400", "4.9e-324",
			"123456789012345678901234567890123456789", "0.000000000000000000000000000000000000001"}[g.r.IntN(11)]...)
		return
	}
	if g.chance(2) {
		g.b = append(g.b, '-')
	}
	if g.chance(3) {
		g.b = append(g.b, '0')
	} else {
		g.b = append(g.b, byte('1'+g.r.IntN(9)))
		g.digits(0)
	}
	if g.chance(2) {
		g.b = append(g.b, '.')
		g.digits(1)
	}
	if g.chance(3) {
		g.b = append(g.b, "eE"[g.r.IntN(2)])
		if g.chance(2) {
			g.b = append(g.b, "+-"[g.r.IntN(2)])
		}
		g.digits(1)
	}
}

func (g *gen) hex4(v int) {
	s := fmt.Sprintf("%04x", v)
	if g.chance(2) {
		s = strings.ToUpper(s)
	}
	g.b = append(g.b, `\u`+s...)
}

func (g *gen) str() {
	g.b = append(g.b, '"')
	for n := g.r.IntN(8); n > 0; n-- {
		switch g.r.IntN(12) {
		case 0, 1, 2:
			g.b = append(g.b, byte(' '+g.r.IntN(95)))
			if g.b[len(g.b)-1] == '"' || g.b[len(g.b)-1] == '\\' {
				g.b[len(g.b)-1] = 'z'
			}
		case 3:
			g.b = append(g.b, []string{`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`}[g.r.IntN(8)]...)
		case 4:
			g.hex4(g.r.IntN(0x10000))
		case 5: // surrogates: pairs, lone halves, reversed
			hi, lo := 0xd800+g.r.IntN(0x400), 0xdc00+g.r.IntN(0x400)
			switch g.r.IntN(4) {
			case 0:
				g.hex4(hi)
				g.hex4(lo)
			case 1:
				g.hex4(hi)
			case 2:
				g.hex4(lo)
			default:
				g.hex4(lo)
				g.hex4(hi)
			}
		case 6:
			g.b = utf8.AppendRune(g.b, rune(0x80+g.r.IntN(0x10ff80)))
		case 7:
			g.b = append(g.b, byte(0x80+g.r.IntN(0x80)))
		case 8:
			g.b = append(g.b, "é€😀\u2028\ufffd"...)
		case 9:
			g.b = append(g.b, []string{"\xe2\x82", "\xed\xa0\x80", "\xc0\xaf", "\xf0\x9f\x98", "\xef\xbf\xbd"}[g.r.IntN(5)]...)
		default:
			if g.bad && g.chance(10) {
				g.b = append(g.b, []string{"\x00", "\n", `\'`, `\x`, `\u12`, `\uZZZZ`, "\x1f"}[g.r.IntN(7)]...)
			} else {
				g.b = append(g.b, "plain"...)
			}
		}
	}
	g.b = append(g.b, '"')
}

// mutate damages a generated document: truncation, a byte flipped,
// inserted or deleted, or something appended after the value.
func (g *gen) mutate() {
	if len(g.b) == 0 {
		return
	}
	switch g.r.IntN(5) {
	case 0:
		g.b = g.b[:g.r.IntN(len(g.b))]
	case 1:
		g.b[g.r.IntN(len(g.b))] = byte(g.r.IntN(256))
	case 2:
		i := g.r.IntN(len(g.b) + 1)
		const ins = "{}[]\",:-.eE0\\ "
		g.b = append(g.b[:i], append([]byte{ins[g.r.IntN(len(ins))]}, g.b[i:]...)...)
	case 3:
		i := g.r.IntN(len(g.b))
		g.b = append(g.b[:i], g.b[i+1:]...)
	default:
		g.b = append(g.b, []string{"x", " {}", " 1", ",", "]", "}", " \"s\"", "\x00", " \n"}[g.r.IntN(9)]...)
	}
}

// differentialDocs is how many generated documents TestDifferential
// compares; at about 0.3 s for this many, every branch of the generator
// occurs many times.
const differentialDocs = 30000

func TestDifferential(t *testing.T) {
	g := gen{r: rand.New(rand.NewPCG(7, 11))}
	accepted := 0
	for i := 0; i < differentialDocs; i++ {
		g.b = g.b[:0]
		g.bad = i%3 == 1
		g.value(0)
		if i%3 == 2 {
			g.mutate()
		}
		compare(t, fmt.Sprintf("doc %d", i), g.b)
		if _, err := reference(g.b); err == nil {
			accepted++
		}
	}
	// Both halves must be exercised: the clean third alone is accepted.
	if accepted < differentialDocs/3 || accepted == differentialDocs {
		t.Errorf("%d of %d generated documents accepted", accepted, differentialDocs)
	}
}

// TestRepositoryFiles compares every *.json in the solvers' testdata and
// in examples/.
func TestRepositoryFiles(t *testing.T) {
	var files []string
	for _, root := range []string{"../../solver", "../../examples"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(path, ".json") &&
				(root != "../../solver" || strings.Contains(filepath.ToSlash(path), "/testdata/")) {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// minFiles guards against the walk silently finding nothing (57
	// files when this was written).
	const minFiles = 40
	if len(files) < minFiles {
		t.Fatalf("found %d JSON files, want at least %d", len(files), minFiles)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		compare(t, f, data)
	}
}

// benchDocs are the benchmark documents: the 10,000-task Tetris assign
// request of benchmarks/tetris BenchmarkAssign10kRunner, compact and
// indented.
var benchDocs = sync.OnceValue(func() []struct {
	name string
	data []byte
} {
	req := assign.GenerateRequest(rand.New(rand.NewPCG(1, 2)), 250, 10000, 100, 0.9, 1)
	compact, err := json.Marshal(req)
	if err != nil {
		panic(err)
	}
	indented, err := json.MarshalIndent(req, "", "  ")
	if err != nil {
		panic(err)
	}
	return []struct {
		name string
		data []byte
	}{{"compact", compact}, {"indented", indented}}
})

// TestBenchDocs: the benchmark documents take the fast path and decode
// as the reference does.
func TestBenchDocs(t *testing.T) {
	for _, d := range benchDocs() {
		if _, ok := jsondoc.Fast(d.data); !ok {
			t.Fatalf("%s: the fast parser rejects the benchmark document", d.name)
		}
		compare(t, d.name, d.data)
	}
}

func FuzzDecode(f *testing.F) {
	for _, c := range tricky {
		f.Add([]byte(c.in))
	}
	g := gen{r: rand.New(rand.NewPCG(3, 5)), bad: true}
	for i := 0; i < 50; i++ {
		g.b = g.b[:0]
		g.value(0)
		f.Add(bytes.Clone(g.b))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		compare(t, "fuzz", data)
	})
}

func BenchmarkDecode(b *testing.B) {
	for _, d := range benchDocs() {
		b.Run(d.name, func(b *testing.B) {
			b.SetBytes(int64(len(d.data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := jsondoc.Decode(d.data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkReference(b *testing.B) {
	for _, d := range benchDocs() {
		b.Run(d.name, func(b *testing.B) {
			b.SetBytes(int64(len(d.data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := reference(d.data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestWideObjects: after an object of more than 8 members, the next at
// its depth is parsed wide (every member on the stack, the map made at its
// final size); wide or not, small or large, with repeated keys or empty,
// objects decode as the reference decodes them.
func TestWideObjects(t *testing.T) {
	obj := func(n int, dup bool) string {
		var b strings.Builder
		b.WriteByte('{')
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			k := i
			if dup && i%3 == 2 {
				k = i / 2 // a key seen before, with a new value
			}
			fmt.Fprintf(&b, `"k%d":%d`, k, i)
		}
		b.WriteByte('}')
		return b.String()
	}
	var elems []string
	for i, n := range []int{9, 2, 12, 0, 3, 20, 20, 8, 9, 1, 30} {
		elems = append(elems, obj(n, i%2 == 0))
	}
	flat := "[" + strings.Join(elems, ",") + "]"
	nested := `{"a":` + flat + `,"b":[` + obj(10, true) + `,{"x":` + flat + `}],"c":` + obj(3, true) + "}"
	for _, doc := range []string{flat, nested, "[" + nested + "," + nested + "]"} {
		compare(t, doc[:20], []byte(doc))
	}
}
