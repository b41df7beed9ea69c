package solver

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestCanonicalMatchesMarshal: the streamed canonical form equals
// encoding/json's Marshal of the decoded document byte for byte, on random
// documents whose strings mix ASCII, control characters, HTML-sensitive
// characters, multi-byte runes, U+2028/9 and invalid UTF-8.
func TestCanonicalMatchesMarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	pieces := []string{"a", "Z", "0", " ", "\"", "\\", "/", "<", ">", "&", "\b", "\f", "\n", "\r", "\t", "\x00", "\x1f", "\x7f",
		"é", "日本", "\u2028", "\u2029", "\xff", "\xc3", "😀", "\ufffd"}
	str := func() string {
		var b strings.Builder
		for n := rng.IntN(8); n > 0; n-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	var gen func(depth int) any
	gen = func(depth int) any {
		k := rng.IntN(7)
		if depth > 3 {
			k = rng.IntN(4)
		}
		switch k {
		case 0:
			return nil
		case 1:
			return rng.IntN(2) == 0
		case 2:
			return json.Number([]string{"0", "-1", "3.25", "1e-9", "12345678901234567890", "-0.0"}[rng.IntN(6)])
		case 3:
			return str()
		case 4:
			a := make([]any, rng.IntN(4))
			for i := range a {
				a[i] = gen(depth + 1)
			}
			return a
		default:
			m := map[string]any{}
			for n := rng.IntN(5); n > 0; n-- {
				m[str()] = gen(depth + 1)
			}
			if rng.IntN(3) == 0 {
				m["budget_ms"] = json.Number("5")
			}
			return m
		}
	}
	for trial := 0; trial < 3000; trial++ {
		doc := gen(0)
		want, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		c := canonical{h: writerHash{&buf}}
		if err := c.write(doc, false); err != nil {
			t.Fatal(err)
		}
		buf.Write(c.b)
		if !bytes.Equal(buf.Bytes(), want) {
			t.Fatalf("trial %d:\n got %q\nwant %q", trial, buf.Bytes(), want)
		}
	}
}

// TestCanonicalHashIgnoresBudget: budget_ms at the top level does not
// change the hash; anywhere else it does.
func TestCanonicalHashIgnoresBudget(t *testing.T) {
	h := func(s string) string {
		doc, err := DecodeAny([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		v, err := CanonicalHash(doc)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if h(`{"a": 1, "budget_ms": 5}`) != h(`{"budget_ms": 900, "a": 1}`) {
		t.Error("top-level budget_ms changed the hash")
	}
	if h(`{"a": {"budget_ms": 5}}`) == h(`{"a": {"budget_ms": 6}}`) {
		t.Error("nested budget_ms ignored")
	}
	if h(`{"a": 1.0}`) == h(`{"a": 1}`) {
		t.Error("numbers are hashed as written: 1.0 and 1 must differ")
	}
}

// writerHash is a hash.Hash that only collects what it is given, so the
// test sees the canonical bytes, chunk boundaries included.
type writerHash struct{ w *bytes.Buffer }

func (h writerHash) Write(p []byte) (int, error) { return h.w.Write(p) }
func (h writerHash) Sum(b []byte) []byte         { return b }
func (h writerHash) Reset()                      { h.w.Reset() }
func (h writerHash) Size() int                   { return 0 }
func (h writerHash) BlockSize() int              { return 1 }

// A document of several chunks (canonicalChunk) hashes as json.Marshal's
// bytes do: the chunk boundaries lose nothing.
func TestCanonicalHashAcrossChunks(t *testing.T) {
	var tasks []any
	for i := range 20000 {
		tasks = append(tasks, map[string]any{"id": fmt.Sprintf("t<%d>", i), "demand": map[string]any{"cpu": json.Number("0.25"), "mem": json.Number(fmt.Sprint(i))}})
	}
	doc := map[string]any{"tasks": tasks, "budget_ms": json.Number("5")}
	want, err := json.Marshal(map[string]any{"tasks": tasks})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 4*canonicalChunk {
		t.Fatalf("document of %d bytes does not span chunks", len(want))
	}
	got, err := CanonicalHash(doc)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(want)
	if got != hex.EncodeToString(sum[:]) {
		t.Fatal("hash differs from the SHA-256 of json.Marshal's bytes")
	}
}

// TestDecodeHashedMatchesCanonicalHash: the hash taken during the parse
// (decodeHashed, what Run reports as meta.input_sha256) is CanonicalHash
// of the decoded document on every JSON file of the repository's examples
// and testdata, on documents whose keys come unsorted or repeated, with
// budget_ms at the top and below it, and on a document nested too deeply
// for the fast parser (hashed from the value instead).
func TestDecodeHashedMatchesCanonicalHash(t *testing.T) {
	docs := map[string][]byte{
		"unsorted":  []byte(`{"users": [{"name": "b", "w": 2, "a": 1}], "budget_ms": 7, "a": {"z": [3, {"y": 1, "x": 2}], "b": "\u003c&\u2028"}}`),
		"repeated":  []byte(`{"a": 1, "b": {"k": 1, "k": 2, "j": 0}, "a": 3, "budget_ms": 1, "budget_ms": 2}`),
		"nested":    []byte(`{"x": {"budget_ms": 5, "a": 1}}`),
		"array":     []byte(`[{"b": 1, "a": 2}, "budget_ms", {}]`),
		"too deep":  []byte(strings.Repeat("[", 10001) + strings.Repeat("]", 10001)),
		"only skip": []byte(`{"budget_ms": 3}`),
	}
	for _, root := range []string{"../examples", "."} {
		files, err := filepath.Glob(filepath.Join(root, "*", "testdata", "*", "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		flat, _ := filepath.Glob(filepath.Join(root, "*", "testdata", "*.json"))
		top, _ := filepath.Glob(filepath.Join(root, "*.json"))
		for _, f := range slices.Concat(files, flat, top) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			docs[f] = data
		}
	}
	if len(docs) < 80 {
		t.Fatalf("only %d documents", len(docs))
	}
	for name, raw := range docs {
		doc, sum, err := decodeHashed(raw)
		want, wantErr := DecodeAny(raw)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(doc, want) {
			t.Fatalf("%s: decodeHashed %v, DecodeAny %v", name, err, wantErr)
		}
		if err != nil {
			continue
		}
		if sum == "" {
			if name != "too deep" {
				t.Errorf("%s: not hashed in the parse", name)
			}
			continue
		}
		wantSum, err := CanonicalHash(want)
		if err != nil {
			t.Fatal(err)
		}
		if sum != wantSum {
			t.Errorf("%s: hash %s, CanonicalHash %s", name, sum, wantSum)
		}
	}
}
