// Package jsonenc appends JSON scalars byte for byte as encoding/json's
// Marshal writes them, for the few places that write JSON by hand: the
// canonical request hash (solver/canonical.go), flex's Slots and cmmf's
// Amounts, which encode a sorted list as the map it replaces.
//
// It was the writer behind the cmmf, flex and tetris/assign results
// (solver.JSONAppender); goccy/go-json measured as fast or faster on all
// three answers (benchmarks/json/RESULTS.md) and writes them now.
package jsonenc

import (
	"math"
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

// Int appends an integer.
func Int(dst []byte, n int) []byte { return strconv.AppendInt(dst, int64(n), 10) }

// Bool appends true or false.
func Bool(dst []byte, b bool) []byte { return strconv.AppendBool(dst, b) }

// Float appends f as json.Marshal writes a float64: the shortest decimal
// that reads back as f, in exponent form below 1e-6 and from 1e21 on
// (exponent without leading zeros). NaN and ±Inf are an error.
func Float(dst []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, &UnsupportedFloat{Value: f}
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < expBelow || abs >= expFrom) {
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
