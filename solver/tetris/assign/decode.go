package assign

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// A request carries one object per pending task, and encoding/json's
// reflective decoding of 10,000 of them (maps, strings, floats through
// reflect) was the largest part of Solve. TaskReq therefore decodes itself:
// the shape the schema allows (the six fields, plain strings, numbers, a
// flat demand object, input objects) is parsed directly, and everything
// else, escaped strings, duplicate or unknown keys, nulls, other types,
// goes through encoding/json with unknown fields refused, as solver.Decode
// would. encoding/json has checked the syntax of the bytes before it hands
// them over.

// UnmarshalJSON decodes a request: the tasks as TaskReq's parser does,
// every other member through encoding/json with unknown fields refused;
// anything unusual at the top level (duplicate, unknown or case-varied
// keys, a task the parser hands over, a member encoding/json rejects)
// sends the whole request through encoding/json, so the value or the
// error is its own. Decoding the top level here also spares encoding/json
// a second pass over every task before handing it to TaskReq.
func (r *Request) UnmarshalJSON(data []byte) error {
	var x Request
	if parseRequest(data, &x) {
		*r = x
		return nil
	}
	type request Request // without this method
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode((*request)(r))
}

// strict decodes one JSON value into v as solver.Decode would.
func strict(raw []byte, v any) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v) == nil
}

// parseRequest parses a request's top level into x, reporting false on
// anything unusual (see Request.UnmarshalJSON).
func parseRequest(data []byte, x *Request) bool {
	l := lexer{b: data}
	if !l.is('{') {
		return false
	}
	seen := map[string]bool{}
	for !l.is('}') {
		if len(seen) > 0 && !l.is(',') {
			return false
		}
		k, ok := l.str()
		if !ok || !l.is(':') || seen[string(k)] {
			return false
		}
		seen[string(k)] = true
		if string(k) == "tasks" {
			if !l.is('[') {
				return false
			}
			x.Tasks = []TaskReq{} // an empty array decodes to an empty, non-nil slice
			if l.is(']') {
				continue
			}
			for {
				x.Tasks = append(x.Tasks, TaskReq{})
				if !parseTaskL(&l, &x.Tasks[len(x.Tasks)-1]) {
					return false
				}
				if l.is(',') {
					continue
				}
				if !l.is(']') {
					return false
				}
				break
			}
			continue
		}
		raw, ok := l.value()
		if !ok {
			return false
		}
		var dst any
		switch string(k) {
		case "machines":
			dst = &x.Machines
		case "jobs":
			dst = &x.Jobs
		case "knobs":
			dst = &x.Knobs
		case "roles":
			dst = &x.Roles
		case "max_unplaced":
			dst = &x.MaxUnplaced
		case "budget_ms":
			dst = &x.BudgetMS
		case "seed":
			dst = &x.Seed
		case "heartbeat":
			dst = &x.Heartbeat
		default:
			return false
		}
		if !strict(raw, dst) {
			return false
		}
	}
	l.ws()
	return l.i == len(l.b)
}

// value skips one JSON value, up to the comma or closing bracket after
// it, and returns its bytes; on bytes that are not JSON it returns without
// panicking (any answer: the Runner refuses such a body).
func (l *lexer) value() ([]byte, bool) {
	l.ws()
	start, depth := l.i, 0
	for l.i < len(l.b) {
		switch c := l.b[l.i]; {
		case c == '"':
			for l.i++; l.i < len(l.b) && l.b[l.i] != '"'; l.i++ {
				if l.b[l.i] == '\\' {
					l.i++
				}
			}
			if l.i >= len(l.b) {
				// Unterminated: not JSON. (Problem.Decode sees bodies
				// before they are validated.)
				return nil, false
			}
			l.i++
		case c == '{' || c == '[':
			depth++
			l.i++
		case c == '}' || c == ']':
			if depth == 0 {
				return l.b[start:l.i], l.i > start
			}
			depth--
			l.i++
		case c == ',' && depth == 0:
			return l.b[start:l.i], l.i > start
		default:
			l.i++
		}
	}
	return l.b[start:l.i], l.i > start
}

// UnmarshalJSON decodes one task object (see above).
func (t *TaskReq) UnmarshalJSON(data []byte) error {
	var x TaskReq
	if parseTask(data, &x) {
		*t = x
		return nil
	}
	type task TaskReq // without this method
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode((*task)(t))
}

// lexer reads the tokens of one JSON value. It is exact on valid JSON and
// never reads out of bounds on anything else (Problem.Decode runs it on
// bodies before the Runner has checked their syntax).
type lexer struct {
	b []byte
	i int
}

func (l *lexer) ws() {
	for l.i < len(l.b) {
		switch l.b[l.i] {
		case ' ', '\t', '\n', '\r':
			l.i++
		default:
			return
		}
	}
}

// is consumes byte c (after white space) if it is next.
func (l *lexer) is(c byte) bool {
	l.ws()
	if l.i < len(l.b) && l.b[l.i] == c {
		l.i++
		return true
	}
	return false
}

// str reads a string without escapes holding valid UTF-8 (encoding/json
// keeps such a string's bytes as they are); ok is false otherwise.
func (l *lexer) str() (s []byte, ok bool) {
	if !l.is('"') {
		return nil, false
	}
	start, ascii := l.i, true
	for ; l.i < len(l.b); l.i++ {
		switch c := l.b[l.i]; {
		case c == '"':
			s = l.b[start:l.i]
			l.i++
			return s, ascii || utf8.Valid(s)
		case c == '\\':
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false
}

// num reads a number as encoding/json stores it in a float64; ok is false
// for anything else (another type, or out of range).
func (l *lexer) num() (float64, bool) {
	l.ws()
	start := l.i
	for l.i < len(l.b) {
		c := l.b[l.i]
		if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			l.i++
			continue
		}
		break
	}
	if l.i == start {
		return 0, false
	}
	x, err := strconv.ParseFloat(string(l.b[start:l.i]), 64)
	return x, err == nil
}

// Task keys, as bits for the duplicate check.
const (
	keyID = 1 << iota
	keyJob
	keyStage
	keyDemand
	keyDuration
	keyInputs
)

// parseTask parses the common task shape into t, reporting false (t then
// partly filled) on anything else.
func parseTask(data []byte, t *TaskReq) bool {
	l := lexer{b: data}
	if !parseTaskL(&l, t) {
		return false
	}
	l.ws()
	return l.i == len(l.b)
}

// parseTaskL is parseTask reading from l.
func parseTaskL(l *lexer, t *TaskReq) bool {
	if !l.is('{') {
		return false
	}
	if l.is('}') {
		return true
	}
	seen := 0
	for {
		k, ok := l.str()
		if !ok || !l.is(':') {
			return false
		}
		var bit int
		switch string(k) {
		case "id":
			bit = keyID
		case "job":
			bit = keyJob
		case "stage":
			bit = keyStage
		case "demand":
			bit = keyDemand
		case "duration":
			bit = keyDuration
		case "inputs":
			bit = keyInputs
		default:
			return false
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		switch bit {
		case keyID, keyJob, keyStage:
			s, ok := l.str()
			if !ok {
				return false
			}
			switch bit {
			case keyID:
				t.ID = string(s)
			case keyJob:
				t.Job = string(s)
			default:
				t.Stage = string(s)
			}
		case keyDemand:
			if !parseVector(l, &t.Demand) {
				return false
			}
		case keyDuration:
			x, ok := l.num()
			if !ok {
				return false
			}
			t.Duration = &x
		case keyInputs:
			if !parseInputs(l, &t.Inputs) {
				return false
			}
		}
		if l.is(',') {
			continue
		}
		return l.is('}')
	}
}

// parseVector parses a flat object of numbers into a new map.
func parseVector(l *lexer, out *map[string]float64) bool {
	if !l.is('{') {
		return false
	}
	m := make(map[string]float64, 8)
	*out = m
	if l.is('}') {
		return true
	}
	for {
		k, ok := l.str()
		if !ok || !l.is(':') {
			return false
		}
		if _, dup := m[string(k)]; dup {
			return false
		}
		x, ok := l.num()
		if !ok {
			return false
		}
		m[string(k)] = x
		if l.is(',') {
			continue
		}
		return l.is('}')
	}
}

// parseInputs parses an array of {"machine", "rate"} objects.
func parseInputs(l *lexer, out *[]InputReq) bool {
	if !l.is('[') {
		return false
	}
	ins := []InputReq{} // an empty array decodes to an empty, non-nil slice
	if l.is(']') {
		*out = ins
		return true
	}
	for {
		if !l.is('{') {
			return false
		}
		var in InputReq
		seen := 0
		for !l.is('}') {
			if seen != 0 && !l.is(',') {
				return false
			}
			k, ok := l.str()
			if !ok || !l.is(':') {
				return false
			}
			switch string(k) {
			case "machine":
				s, ok := l.str()
				if !ok || seen&1 != 0 {
					return false
				}
				in.Machine, seen = string(s), seen|1
			case "rate":
				x, ok := l.num()
				if !ok || seen&2 != 0 {
					return false
				}
				in.Rate, seen = x, seen|2
			default:
				return false
			}
		}
		ins = append(ins, in)
		if l.is(',') {
			continue
		}
		if !l.is(']') {
			return false
		}
		*out = ins
		return true
	}
}
