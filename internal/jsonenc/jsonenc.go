// Package jsonenc appends JSON values byte for byte as encoding/json's
// Marshal writes them (HTML-safe string escaping, ES6-style floats, map
// keys sorted), for the few result types that are large enough for
// encoding/json's reflection to dominate a request (cmmf and flex
// results). tetris/assign's 4.3 MB answer is written by goccy/go-json,
// which measured faster than this package's writer on it
// (benchmarks/json/RESULTS.md); cmmf's and flex's are yet to be measured
// the same way.
//
// Types opt in by implementing solver.JSONAppender; the equality with
// json.Marshal is what their tests check (and FuzzString, FuzzFloat here).
package jsonenc

import (
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// UnsupportedFloat is returned for a NaN or infinite float, which JSON
// cannot represent (encoding/json returns *json.UnsupportedValueError).
type UnsupportedFloat struct{ Value float64 }

func (e *UnsupportedFloat) Error() string {
	return "json: unsupported value: " + strconv.FormatFloat(e.Value, 'g', -1, 64)
}

const hex = "0123456789abcdef"

// String appends s as a JSON string, escaped as json.Marshal escapes it:
// ", \ and control characters, <, > and & (HTML-safe), U+2028 and U+2029,
// and each byte of invalid UTF-8 as \ufffd.
func String(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// Float appends f as json.Marshal writes a float64: the shortest decimal
// that reads back as f, in exponent form below 1e-6 and from 1e21 on
// (exponent without leading zeros). NaN and ±Inf are an error.
func Float(dst []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, &UnsupportedFloat{Value: f}
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-09 → e-9, as encoding/json does.
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, nil
}

// Int appends an integer.
func Int(dst []byte, n int) []byte { return strconv.AppendInt(dst, int64(n), 10) }

// Bool appends true or false.
func Bool(dst []byte, b bool) []byte { return strconv.AppendBool(dst, b) }

// smallMap is the size up to which sortedKeys sorts on the stack (a
// resource vector has a handful of entries; bigger maps allocate).
const smallMap = 16

// sortedKeys returns m's keys in encoding/json's map order (byte-wise),
// in buf when they fit.
func sortedKeys[V any](m map[string]V, buf *[smallMap]string) []string {
	keys := buf[:0]
	if len(m) > smallMap {
		keys = make([]string, 0, len(m))
	}
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// IntMap appends a map[string]int as json.Marshal does: null when nil,
// keys sorted.
func IntMap(dst []byte, m map[string]int) []byte {
	dst, _ = appendMap(dst, m, func(b []byte, v int) ([]byte, error) { return Int(b, v), nil })
	return dst
}

// FloatMap appends a map[string]float64 as json.Marshal does.
func FloatMap(dst []byte, m map[string]float64) ([]byte, error) {
	return appendMap(dst, m, Float)
}

// appendMap appends m with its values written by value.
func appendMap[V any](dst []byte, m map[string]V, value func([]byte, V) ([]byte, error)) ([]byte, error) {
	if m == nil {
		return append(dst, "null"...), nil
	}
	var buf [smallMap]string
	dst = append(dst, '{')
	for i, k := range sortedKeys(m, &buf) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = String(dst, k)
		dst = append(dst, ':')
		var err error
		if dst, err = value(dst, m[k]); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// Writer appends a JSON document member by member, placing the commas
// itself, with a sticky error (the first unsupported float): callers write
// a whole value and check Err once.
type Writer struct {
	B   []byte
	Err error
	// more: a value was written at this level, so the next needs a comma.
	more bool
}

func (w *Writer) sep() {
	if w.more {
		w.B = append(w.B, ',')
	}
	w.more = true
}

// Open starts an object ('{') or array ('[').
func (w *Writer) Open(c byte) {
	w.sep()
	w.B = append(w.B, c)
	w.more = false
}

// Close ends the object ('}') or array (']') Open started.
func (w *Writer) Close(c byte) {
	w.B = append(w.B, c)
	w.more = true
}

// Key writes an object member's name (a struct tag: no escaping needed);
// the member's value is written next.
func (w *Writer) Key(name string) {
	w.sep()
	w.B = append(w.B, '"')
	w.B = append(w.B, name...)
	w.B = append(w.B, '"', ':')
	w.more = false
}

// Null writes null.
func (w *Writer) Null() {
	w.sep()
	w.B = append(w.B, "null"...)
}

// String writes a string value.
func (w *Writer) String(s string) {
	w.sep()
	w.B = String(w.B, s)
}

// Float writes a float value; NaN or ±Inf sets Err.
func (w *Writer) Float(f float64) {
	w.sep()
	if w.Err == nil {
		w.B, w.Err = Float(w.B, f)
	}
}

// Int writes an integer value.
func (w *Writer) Int(n int) {
	w.sep()
	w.B = Int(w.B, n)
}

// Bool writes a boolean value.
func (w *Writer) Bool(b bool) {
	w.sep()
	w.B = Bool(w.B, b)
}

// IntMap writes a map[string]int value.
func (w *Writer) IntMap(m map[string]int) {
	w.sep()
	w.B = IntMap(w.B, m)
}

// FloatMap writes a map[string]float64 value; NaN or ±Inf sets Err.
func (w *Writer) FloatMap(m map[string]float64) {
	w.sep()
	if w.Err == nil {
		w.B, w.Err = FloatMap(w.B, m)
	}
}

// StringMap appends a map[string]string as json.Marshal does.
func StringMap(dst []byte, m map[string]string) []byte {
	dst, _ = appendMap(dst, m, func(b []byte, v string) ([]byte, error) { return String(b, v), nil })
	return dst
}

// StringMap writes a map[string]string value.
func (w *Writer) StringMap(m map[string]string) {
	w.sep()
	w.B = StringMap(w.B, m)
}

// Slice writes xs as json.Marshal does (null when nil), each element by
// write; Floats and Strings are it for the two plain element types.
func Slice[T any](w *Writer, xs []T, write func(*T, *Writer)) {
	if xs == nil {
		w.Null()
		return
	}
	w.Open('[')
	for i := range xs {
		write(&xs[i], w)
	}
	w.Close(']')
}

// Floats writes a []float64 as json.Marshal does.
func (w *Writer) Floats(xs []float64) {
	Slice(w, xs, func(x *float64, w *Writer) { w.Float(*x) })
}

// Strings writes a []string as json.Marshal does.
func (w *Writer) Strings(xs []string) {
	Slice(w, xs, func(s *string, w *Writer) { w.String(*s) })
}
