// Package jsondoc parses one JSON document into the generic values
// encoding/json produces with Decoder.UseNumber (map[string]any, []any,
// json.Number, string, bool, nil), and returns exactly what a json.Decoder
// with UseNumber followed by a check for trailing data returns for every
// input (reference below), only faster. solver.DecodeAny is Decode.
//
// Request bodies are decoded generically before schema validation; a
// 10,000-task Tetris assign request is 1.58 MB and json.Decoder spent
// 28-42 ms and 338,749 allocations on it. Decode makes one pass over the
// input without copying it into a growing buffer: a string without
// escapes is one allocation straight from the input bytes, a number is
// json.Number of its literal bytes, an array is made at its final length
// from a shared scratch stack, an object's map is filled directly up to 8
// members (one Swiss-table group whatever the size hint) and made at its
// final size beyond (straight away when the previous object at the same
// depth was that large: on a 100,000-machine CMMF request, whose machines
// have 21 attributes each, that saved the 8-member map every attributes
// object was started in, 200,000 of its 1,050,000 allocations and a third
// of the time), and short strings, object keys and numbers that
// repeat (field names, job and machine names, small constants) are shared
// within one document instead of being allocated again. Shared values are
// immutable (a string or json.Number in an interface), and no value
// aliases the input.
//
// What remains is mostly the maps themselves: the benchmark document's
// 25,960 objects take 8.7 MB of its 10.2 MB (336 bytes and 2 allocations
// each: the map header and one 8-slot group), and making one small map
// measured 270 ns alongside, about 7 ms of the 13-18 ms below.
//
// Against the libraries on the same request in one run (benchmarks/json):
// bytedance/sonic with UseNumber took 1.20-1.45x its time (median ratios
// of four runs; 1.40-1.46x on their minimum times) and goccy/go-json
// 1.47-1.82x, so it stays (issue 17 keeps hand-written code that beats the
// best library by more than 25%; this is the closest call).
//
// Anything the fast parser does not accept (every malformed document, a
// nesting deeper than encoding/json allows) is handed to the reference
// decoder, so values and error messages of rejected inputs are
// encoding/json's by construction; the tests and FuzzDecode compare both
// on accepted and rejected inputs.
//
// DecodeCanonical (canonical.go) is Decode that also writes the
// document's canonical form, json.Marshal's bytes for the decoded value,
// in the same pass: the request hash (solver.CanonicalHash) without a
// second walk over the document.
//
// Medians of 5 runs (go test -bench . -count 5, linux/amd64, 2 CPUs shared
// with other work, so absolute times are noisy; the ratio is within one
// run), the assign.GenerateRequest(PCG(1,2), 250, 10000, 100, 0.9, 1)
// document that benchmarks/tetris BenchmarkAssign10kRunner decodes:
//
//	                     ns/op        MB/s  B/op        allocs/op
//	compact, 1.58 MB:
//	  Decode             17,688,403   89.3  10,243,011   89,062
//	  encoding/json      41,867,632   37.7  16,537,126  338,749
//	indented, 2.89 MB:
//	  Decode             13,170,536  219.1  10,243,012   89,062
//	  encoding/json      41,341,643   69.8  20,731,432  338,750
//
// and a second run of 5 on a less loaded box (ns/op, MB/s):
//
//	compact:   Decode 11,284,815  139.9   encoding/json 25,227,507  62.6
//	indented:  Decode 11,609,857  248.5   encoding/json 34,907,623  82.7
package jsondoc

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/xflex/xflex/internal/jsonenc"
)

// maxDepth is encoding/json's nesting limit (scanner.go maxNestingDepth):
// a document whose arrays and objects nest deeper is rejected there, so
// the fast parser gives up beyond it and lets the reference say so.
const maxDepth = 10000

// maxShared is the longest string or number literal looked up in the
// per-document table of values already made: field names, ids and small
// numbers are short, longer literals rarely repeat, and up to 16 bytes the
// text fits in two words of the table's entry.
const maxShared = 16

// The shared-value tables have one slot per bytesPerSlot bytes of input,
// a power of two from minSlots to maxSlots for values (2048 slots of 40
// bytes are 80 KB, against the 10 MB of maps a 1.6 MB document decodes
// into; 1024 to 8192 slots measured within noise of each other) and to
// maxKeySlots for object keys (documents have tens of distinct keys, and
// 10 KB stays in the first-level cache).
const (
	bytesPerSlot = 64
	minSlots     = 8
	maxSlots     = 2048
	maxKeySlots  = 256
)

// Decode parses one JSON document into generic Go values, exactly as
// json.Decoder with UseNumber followed by a check that nothing but
// whitespace follows the value (solver.DecodeAny): objects are
// map[string]any (a repeated key keeps its last value), arrays []any
// (never nil), numbers json.Number holding the literal text, strings with
// invalid UTF-8 and lone surrogates turned into U+FFFD. Errors are
// "malformed JSON: ..." with encoding/json's message.
func Decode(data []byte) (any, error) {
	if v, ok := fast(data); ok {
		return v, nil
	}
	return reference(data)
}

// fast parses data without the reference decoder; ok is false for any
// input it does not accept.
func fast(data []byte) (v any, ok bool) {
	p := parser{data: data}
	p.skipSpace()
	if v, ok = p.value(); ok {
		p.skipSpace()
		if p.pos == len(p.data) {
			return v, true
		}
	}
	return nil, false
}

// reference is encoding/json's answer (what solver.DecodeAny was before
// it called Decode), the behaviour Decode reproduces; every input the fast
// parser does not accept goes through it.
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

// parser is one document's state. Every method returns ok=false on input
// it does not accept; Decode then hands the whole document to reference.
type parser struct {
	data  []byte
	pos   int
	depth int

	// elems holds the elements of the arrays being parsed, innermost
	// last; keys and vals the members past the first smallObject of the
	// objects being parsed.
	elems []any
	keys  []string
	vals  []any

	// wide[d] records whether the last object closed at depth d had more
	// than smallObject members (object).
	wide []bool

	// scratch receives the unescaped bytes of strings with escapes or
	// invalid UTF-8.
	scratch []byte

	// table holds boxed short strings and numbers already made, by their
	// text; keyTable the object keys.
	table    []entry
	keyTable []entry

	// canonical turns on the canonical form (DecodeCanonical, canonical.go):
	// canon receives it value by value, members holds the spans of the
	// members of the objects being parsed (innermost last), moved is
	// scratch for reordering an object's members, and root the members of
	// a top-level object, written out once the whole input is accepted.
	canonical bool
	canon     []byte
	members   []member
	moved     []byte
	root      []member
}

// plain marks the string bytes that need no attention: ASCII from space
// up, except '"' and '\\'.
var plain = func() (t [256]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func (p *parser) skipSpace() {
	d := p.data
	i := p.pos
	for i < len(d) {
		c := d[i]
		if c > ' ' || (c != ' ' && c != '\n' && c != '\t' && c != '\r') {
			break
		}
		i++
	}
	p.pos = i
}

// value parses the value at p.pos (no leading whitespace).
func (p *parser) value() (any, bool) {
	d := p.data
	if p.pos >= len(d) {
		return nil, false
	}
	switch c := d[p.pos]; c {
	case '{':
		return p.object()
	case '[':
		return p.array()
	case '"':
		b, ok := p.str()
		if !ok {
			return nil, false
		}
		v := p.shareString(b)
		if p.canonical {
			p.canon = jsonenc.String(p.canon, v.(string))
		}
		return v, true
	case 't':
		return true, p.literal("true")
	case 'f':
		return false, p.literal("false")
	case 'n':
		return nil, p.literal("null")
	default:
		if c == '-' || c >= '0' && c <= '9' {
			return p.number()
		}
		return nil, false
	}
}

func (p *parser) literal(word string) bool {
	end := p.pos + len(word)
	if end > len(p.data) || string(p.data[p.pos:end]) != word {
		return false
	}
	p.pos = end
	if p.canonical {
		p.canon = append(p.canon, word...)
	}
	return true
}

// number parses -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, the
// grammar of encoding/json's scanner.
func (p *parser) number() (any, bool) {
	d := p.data
	start := p.pos
	i, ok := scanNumber(d, start)
	if !ok {
		return nil, false
	}
	p.pos = i
	lit := d[start:i]
	if p.canonical {
		p.canon = append(p.canon, lit...)
	}
	if len(lit) > maxShared {
		return json.Number(lit), true
	}
	e, hit := p.claim(&p.table, maxSlots, lit, numberTag)
	if !hit {
		e.v = json.Number(lit)
	}
	return e.v, true
}

// scanNumber returns the end of the number at d[i:], or false when the
// text there does not match number's grammar.
func scanNumber(d []byte, i int) (int, bool) {
	if d[i] == '-' {
		i++
		if i == len(d) {
			return 0, false
		}
	}
	switch c := d[i]; {
	case c == '0':
		i++
	case c >= '1' && c <= '9':
		i = digits(d, i+1)
	default:
		return 0, false
	}
	if i < len(d) && d[i] == '.' {
		j := digits(d, i+1)
		if j == i+1 {
			return 0, false // no digit after the point
		}
		i = j
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := digits(d, i)
		if j == i {
			return 0, false // no exponent digit
		}
		i = j
	}
	return i, true
}

// digits returns the end of the run of decimal digits at d[i:].
func digits(d []byte, i int) int {
	for i < len(d) && d[i] >= '0' && d[i] <= '9' {
		i++
	}
	return i
}

// claim finds the slot of text b of the given kind in *t (made on first
// use, up to slots slots): hit reports that it holds b's value already;
// otherwise the slot now stands for b and the caller stores the value.
func (p *parser) claim(t *[]entry, slots int, b []byte, kind uint64) (e *entry, hit bool) {
	if *t == nil {
		*t = newTable(len(p.data), slots)
	}
	e, w0, w1, tag := slot(*t, b, kind)
	if e.tag == tag && e.w0 == w0 && e.w1 == w1 {
		return e, true
	}
	e.w0, e.w1, e.tag = w0, w1, tag
	return e, false
}

// shareString returns b as a boxed string, the one made before for the
// same text if b is short and still in the table.
func (p *parser) shareString(b []byte) any {
	if len(b) > maxShared {
		return string(b)
	}
	e, hit := p.claim(&p.table, maxSlots, b, stringTag)
	if !hit {
		e.v = string(b)
	}
	return e.v
}

// shareKey returns the object key b as a string, the one made before for
// the same text if b is short and still in the key table: a document has
// few distinct keys, used over and over, so they get a table of their own
// that stays in the processor's cache.
func (p *parser) shareKey(b []byte) string {
	if len(b) > maxShared {
		return string(b)
	}
	e, hit := p.claim(&p.keyTable, maxKeySlots, b, stringTag)
	if hit {
		return e.v.(string)
	}
	k := string(b)
	e.v = k
	return k
}

// entry is one slot of the shared-value table: the text of a string or
// number literal of up to 16 bytes as two little-endian words (zero past
// its end), tag (its length and kind; 0 for an empty slot) and the box.
type entry struct {
	w0, w1 uint64
	tag    uint64
	v      any
}

// Tags tell strings from numbers of the same text; the length goes in the
// low bits, and an empty slot's tag is 0 which neither kind uses.
const (
	stringTag = 1 << 8
	numberTag = 2 << 8
)

// newTable makes a shared-value table for a document of docLen bytes:
// one slot per bytesPerSlot bytes, a power of two from minSlots to max.
func newTable(docLen, max int) []entry {
	n := minSlots
	for n < max && n*bytesPerSlot < docLen {
		n *= 2
	}
	return make([]entry, n)
}

// slot returns the entry of table t for b (at most maxShared bytes) of the
// given kind, with b's words and tag to compare and store. The table is
// direct-mapped: a new value replaces whatever held its slot, so values
// that keep repeating stay and one-off values (ids) pass through.
func slot(t []entry, b []byte, kind uint64) (e *entry, w0, w1, tag uint64) {
	w0, w1 = words(b)
	tag = kind | uint64(len(b))
	h := (w0 ^ w1*0xc2b2ae3d27d4eb4f ^ tag) * 0x9e3779b97f4a7c15
	return &t[int(h>>40)&(len(t)-1)], w0, w1, tag
}

// words returns b (at most 16 bytes) as two little-endian words, zero
// past its end, loading overlapping pieces instead of byte by byte.
func words(b []byte) (w0, w1 uint64) {
	switch n := len(b); {
	case n >= 8:
		w0 = binary.LittleEndian.Uint64(b)
		if n > 8 {
			w1 = binary.LittleEndian.Uint64(b[n-8:]) >> (8 * (16 - n))
		}
	case n >= 4:
		w0 = uint64(binary.LittleEndian.Uint32(b)) | uint64(binary.LittleEndian.Uint32(b[n-4:]))<<(8*(n-4))
	case n > 0:
		w0 = uint64(b[0]) | uint64(b[n/2])<<(8*(n/2)) | uint64(b[n-1])<<(8*(n-1))
	}
	return w0, w1
}

// str parses the string at p.pos and returns its unescaped bytes, which
// alias p.data or p.scratch and are only valid until the next call.
func (p *parser) str() ([]byte, bool) {
	d := p.data
	start := p.pos + 1
	i := start
	for i < len(d) && plain[d[i]] {
		i++
	}
	if i < len(d) && d[i] == '"' {
		p.pos = i + 1
		return d[start:i], true
	}
	// Escapes or bytes from 0x80 up: find the end, checking the escapes
	// as the scanner does (its message for a bad one is the reference's).
	escaped := false
	for {
		if i >= len(d) {
			return nil, false
		}
		c := d[i]
		switch {
		case c == '"':
			goto end
		case c == '\\':
			escaped = true
			if i+1 >= len(d) {
				return nil, false
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(d) {
					return nil, false
				}
				for _, h := range d[i+2 : i+6] {
					if !isHex(h) {
						return nil, false
					}
				}
				i += 6
			default:
				return nil, false
			}
		case c < ' ':
			return nil, false
		default:
			i++
		}
	}
end:
	p.pos = i + 1
	s := d[start:i]
	if !escaped && utf8.Valid(s) {
		return s, true
	}
	p.scratch = unquote(p.scratch[:0], s)
	return p.scratch, true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// unquote appends the string body s (escapes already checked) unescaped
// as encoding/json's unquoteBytes does: \u escapes of a valid surrogate
// pair become one rune, any other surrogate U+FFFD, and each byte that is
// not part of valid UTF-8 U+FFFD.
func unquote(dst, s []byte) []byte {
	for r := 0; r < len(s); {
		c := s[r]
		switch {
		case c == '\\':
			switch e := s[r+1]; e {
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				rr := hex4(s[r+2 : r+6])
				r += 6
				if utf16.IsSurrogate(rr) {
					rr1 := rune(-1)
					if r+6 <= len(s) && s[r] == '\\' && s[r+1] == 'u' {
						rr1 = hex4(s[r+2 : r+6])
					}
					if dec := utf16.DecodeRune(rr, rr1); dec != utf8.RuneError {
						r += 6
						dst = utf8.AppendRune(dst, dec)
						continue
					}
					rr = utf8.RuneError
				}
				dst = utf8.AppendRune(dst, rr)
				continue
			default: // '"', '\\', '/'
				dst = append(dst, e)
			}
			r += 2
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			dst = utf8.AppendRune(dst, rr)
		}
	}
	return dst
}

// hex4 decodes four hex digits (already checked).
func hex4(h []byte) rune {
	var r rune
	for _, c := range h {
		switch {
		case c <= '9':
			c -= '0'
		case c >= 'a':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// after consumes what follows an element or member: the closing byte
// (end) or a comma and the white space after it; ok is false on anything
// else.
func (p *parser) after(closing byte) (end, ok bool) {
	p.skipSpace()
	if p.pos >= len(p.data) {
		return false, false
	}
	c := p.data[p.pos]
	p.pos++
	if c == closing {
		return true, true
	}
	if c != ',' {
		return false, false
	}
	p.skipSpace()
	return false, true
}

// open enters the container whose opening bracket is at p.pos: it checks
// the nesting depth and reports whether the container is empty (closed by
// close right away, which it consumes, leaving the container).
func (p *parser) open(close byte) (empty, ok bool) {
	p.pos++
	p.depth++
	if p.depth > maxDepth {
		return false, false
	}
	p.skipSpace()
	if d := p.data; p.pos < len(d) && d[p.pos] == close {
		p.pos++
		p.depth--
		return true, true
	}
	return false, true
}

// noteWidth records whether the object being closed, of n members, is
// wide (more than smallObject members) at its depth.
func (p *parser) noteWidth(n int) {
	for len(p.wide) <= p.depth {
		p.wide = append(p.wide, false)
	}
	p.wide[p.depth] = n > smallObject
}

func (p *parser) array() (any, bool) {
	empty, ok := p.open(']')
	if !ok {
		return nil, false
	}
	if p.canonical {
		p.canon = append(p.canon, '[')
	}
	if empty {
		if p.canonical {
			p.canon = append(p.canon, ']')
		}
		return []any{}, true
	}
	base := len(p.elems)
	for {
		if p.canonical && len(p.elems) > base {
			p.canon = append(p.canon, ',')
		}
		v, ok := p.value()
		if !ok {
			return nil, false
		}
		p.elems = append(p.elems, v)
		end, ok := p.after(']')
		if !ok {
			return nil, false
		}
		if end {
			break
		}
	}
	out := make([]any, len(p.elems)-base)
	copy(out, p.elems[base:])
	p.elems = p.elems[:base]
	p.depth--
	if p.canonical {
		p.canon = append(p.canon, ']')
	}
	return out, true
}

// smallObject is how many members an object's map takes before the rest
// go to the scratch stack: up to 8 entries a map is one group whatever
// its size hint (Go's Swiss tables), so members go straight in; a larger
// object's map is made once at its final size instead of growing.
const smallObject = 8

func (p *parser) object() (any, bool) {
	empty, ok := p.open('}')
	if !ok {
		return nil, false
	}
	opening := len(p.canon)
	if p.canonical {
		p.canon = append(p.canon, '{')
	}
	if empty {
		if p.canonical {
			p.canon = append(p.canon, '}')
		}
		return map[string]any{}, true
	}
	d := p.data
	// wide: the last object closed at this depth had more than
	// smallObject members, and so probably will this one (the elements of
	// an array are usually alike): all members go to the stack and the
	// map is made once, at its final size.
	wide := p.depth < len(p.wide) && p.wide[p.depth]
	var m map[string]any
	if !wide {
		m = make(map[string]any)
	}
	n := 0
	base := len(p.keys)
	memberBase := len(p.members)
	for {
		if p.pos >= len(d) || d[p.pos] != '"' {
			return nil, false
		}
		b, ok := p.str()
		if !ok {
			return nil, false
		}
		k := p.shareKey(b)
		p.skipSpace()
		if p.pos >= len(d) || d[p.pos] != ':' {
			return nil, false
		}
		p.pos++
		p.skipSpace()
		start := p.beginMember(k, n)
		v, ok := p.value()
		if !ok {
			return nil, false
		}
		if p.canonical {
			p.members = append(p.members, member{key: k, start: start, end: len(p.canon)})
		}
		if n < smallObject && !wide {
			m[k] = v
		} else {
			p.keys = append(p.keys, k)
			p.vals = append(p.vals, v)
		}
		n++
		end, ok := p.after('}')
		if !ok {
			return nil, false
		}
		if end {
			break
		}
	}
	if wide || n > smallObject {
		// The first members are in m (unless wide), the later ones on
		// the stack; copying m first keeps the last of repeated keys.
		keys, vals := p.keys[base:], p.vals[base:]
		big := make(map[string]any, len(m)+len(keys))
		for k, v := range m {
			big[k] = v
		}
		for i, k := range keys {
			big[k] = vals[i]
		}
		p.keys = p.keys[:base]
		p.vals = p.vals[:base]
		m = big
	}
	p.noteWidth(n)
	if p.canonical {
		p.endObject(opening, memberBase)
	}
	p.depth--
	return m, true
}
