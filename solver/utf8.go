package solver

import (
	"fmt"
	"unicode/utf8"
)

// CheckUTF8 refuses a body that is not valid UTF-8 (RFC 8259 8.1: JSON
// exchanged between systems is UTF-8). Go's JSON decoders replace each
// invalid byte by U+FFFD silently, so two distinct names could otherwise
// arrive as one and be refused as duplicates, or be answered under a name
// the client never sent. The error (400, malformed) gives the byte offset
// of the first invalid byte. utf8.Valid runs at memory speed on ASCII:
// about 1 ms on a 10 MB body.
func CheckUTF8(raw []byte) *Error {
	if utf8.Valid(raw) {
		return nil
	}
	off := firstInvalidUTF8(raw)
	return &Error{Kind: KindMalformed, Detail: fmt.Sprintf(
		"the body is not valid UTF-8: byte offset %d (0x%02x) starts no valid UTF-8 sequence; send JSON text as UTF-8", off, raw[off])}
}

// firstInvalidUTF8 returns the offset of the first byte of raw that does
// not start a valid UTF-8 sequence (raw must hold one).
func firstInvalidUTF8(raw []byte) int {
	for i := 0; i < len(raw); {
		r, n := utf8.DecodeRune(raw[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(raw) - 1
}
