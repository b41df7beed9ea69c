package solver

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// TestCheckUTF8 names the offset of the first invalid byte: a stray
// continuation byte, a truncated sequence, an overlong encoding, a
// surrogate; valid multi-byte text passes.
func TestCheckUTF8(t *testing.T) {
	for _, c := range []struct {
		body string
		off  int // -1: valid
	}{
		{`{"name":"zürich-東京-🚀"}`, -1},
		{"{\"name\":\"a\x80\"}", 10},
		{"{\"name\":\"\xc3\"}", 9},
		{"{\"name\":\"\xc0\xaf\"}", 9},
		{"{\"n\":\"ok\",\"m\":\"\xed\xa0\x80\"}", 15},
		{"\xff", 0},
	} {
		xe := CheckUTF8([]byte(c.body))
		switch {
		case c.off < 0 && xe != nil:
			t.Errorf("%q refused: %v", c.body, xe)
		case c.off >= 0 && (xe == nil || xe.Kind != KindMalformed || !strings.Contains(xe.Detail, "byte offset "+strconv.Itoa(c.off)+" ")):
			t.Errorf("%q: %v, want malformed at byte offset %d", c.body, xe, c.off)
		}
	}
}

// BenchmarkCheckUTF8 measures the check on a 10 MB ASCII body, the size
// of `xflex gen tetris-assign --seed 3 --tasks 40000 --machines 250`.
func BenchmarkCheckUTF8(b *testing.B) {
	row := []byte(`{"name":"t012345","job":"j0123","demand":{"cpu":1.25,"memory":3.5,"disk_read":12.5},"duration":37.5},`)
	body := bytes.Repeat(row, 10_900_000/len(row))
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if CheckUTF8(body) != nil {
			b.Fatal("refused")
		}
	}
}
