package solver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// MalformedAt is the error of a body that is not JSON, its detail saying
// where the parse stopped as a line and column (1-based, columns in bytes)
// and the byte offset, so a truncated or mistyped file can be found:
// "malformed JSON: unexpected EOF at line 12, column 3 (byte 301)".
func MalformedAt(raw []byte, err error) *Error {
	off, ok := errorOffset(raw, err)
	if !ok {
		return malformed(err)
	}
	line, col := lineColumn(raw, off)
	detail := fmt.Sprintf("%v at line %d, column %d (byte %d)", err, line, col, off)
	return &Error{Kind: KindMalformed, Detail: detail, Err: err}
}

// errorOffset is the byte offset of a JSON parse error in raw: the
// offending byte of a syntax error, the end of the body for a truncated one, and the
// start of what follows the value for trailing data.
func errorOffset(raw []byte, err error) (int64, bool) {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se) && se.Offset >= int64(len(raw)):
		return int64(len(raw)), true // "unexpected end of JSON input"
	case errors.As(err, &se):
		// Offset counts the bytes read, the offending one included.
		return max(se.Offset-1, 0), true
	case errors.As(err, &te):
		return te.Offset, true
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return int64(len(raw)), true
	}
	// Trailing data: where the first value ends, past the spaces.
	dec := json.NewDecoder(bytes.NewReader(raw))
	var v json.RawMessage
	if dec.Decode(&v) != nil {
		return 0, false
	}
	off := dec.InputOffset()
	for off < int64(len(raw)) && bytes.IndexByte([]byte(" \t\r\n"), raw[off]) >= 0 {
		off++
	}
	return off, off < int64(len(raw))
}

// lineColumn is the 1-based line and byte column of offset off in raw.
func lineColumn(raw []byte, off int64) (int, int) {
	off = min(max(off, 0), int64(len(raw)))
	before := raw[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}
