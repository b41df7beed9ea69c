package jsondoc

import (
	"io"
	"slices"
	"strings"

	"github.com/xflex/xflex/internal/jsonenc"
)

// DecodeCanonical is Decode that also writes the document's canonical
// form to w, in the same pass: exactly what encoding/json's Marshal writes
// for the decoded value (object keys sorted bytewise, a repeated key once
// with its last value, no white space, strings escaped as Marshal escapes
// them, numbers as written), except that a member of a top-level object
// named omit is left out. solver.CanonicalHash computes the same bytes
// from the decoded value; on a 100,000-machine CMMF request (22.5 MB) it
// spent 0.3 s, most of it sorting the keys of 100,000 maps that come out
// of Go's map iteration in random order, whereas here keys arrive in the
// order written, which is usually sorted already (an object is reordered
// only when it is not).
//
// canonical reports whether the form was written: it is false, and
// nothing is written, when the input did not take the fast parser (it is
// malformed, or nested too deeply), and the caller then computes it from
// the value. w's errors are not reported: it is meant for a hash, whose
// Write never fails. Until it returns, the canonical form of the whole
// document is held in memory, about the size of the input.
func DecodeCanonical(data []byte, omit string, w io.Writer) (v any, canonical bool, err error) {
	p := parser{data: data, canonical: true, canon: make([]byte, 0, len(data))}
	p.skipSpace()
	if v, ok := p.value(); ok {
		p.skipSpace()
		if p.pos == len(p.data) {
			p.writeCanonical(omit, w)
			return v, true, nil
		}
	}
	v, err = reference(data)
	return v, false, err
}

// member is an object member's canonical text in parser.canon: its key,
// and where `"key":value` starts and ends.
type member struct {
	key        string
	start, end int
}

// beginMember writes the separator and the key of the object member
// numbered n and returns where the member starts (after the separator).
func (p *parser) beginMember(key string, n int) int {
	if !p.canonical {
		return 0
	}
	if n > 0 {
		p.canon = append(p.canon, ',')
	}
	start := len(p.canon)
	p.canon = append(jsonenc.String(p.canon, key), ':')
	return start
}

// endObject closes the canonical text of the object whose '{' is at
// canon[opening] and whose members are members[base:]: members already in
// strictly ascending key order stay where they are; otherwise they are
// rewritten sorted, each key once. A top-level object's members are kept
// in root instead, for writeCanonical, which leaves omit out.
func (p *parser) endObject(opening, base int) {
	ms := p.members[base:]
	if p.depth == 1 {
		p.root = ms
		return
	}
	p.members = p.members[:base]
	if strictlySorted(ms) {
		p.canon = append(p.canon, '}')
		return
	}
	ms = sortMembers(ms) // valid: nothing is appended to members before this returns
	body := opening + 1
	p.moved = append(p.moved[:0], p.canon[body:]...)
	p.canon = p.canon[:body]
	for i, m := range ms {
		if i > 0 {
			p.canon = append(p.canon, ',')
		}
		p.canon = append(p.canon, p.moved[m.start-body:m.end-body]...)
	}
	p.canon = append(p.canon, '}')
}

// writeCanonical writes the canonical form of the accepted document to w:
// canon as it is, or for a top-level object its members sorted, each key
// once, without omit.
func (p *parser) writeCanonical(omit string, w io.Writer) {
	if p.root == nil {
		w.Write(p.canon)
		return
	}
	out := []byte{'{'}
	first := true
	for _, m := range sortMembers(p.root) {
		if m.key == omit {
			continue
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		w.Write(out)
		w.Write(p.canon[m.start:m.end])
		out = out[:0]
	}
	w.Write(append(out, '}'))
}

// strictlySorted reports whether the members' keys ascend strictly.
func strictlySorted(ms []member) bool {
	for i := 1; i < len(ms); i++ {
		if ms[i-1].key >= ms[i].key {
			return false
		}
	}
	return true
}

// sortMembers sorts ms by key in place and keeps, of members with the
// same key, the last written, as the decoded map does.
func sortMembers(ms []member) []member {
	slices.SortStableFunc(ms, func(a, b member) int { return strings.Compare(a.key, b.key) })
	out := ms[:0]
	for i, m := range ms {
		if i+1 < len(ms) && ms[i+1].key == m.key {
			continue
		}
		out = append(out, m)
	}
	return out
}
