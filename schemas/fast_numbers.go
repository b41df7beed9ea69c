package schemas

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// Numbers and canonical keys: const, enum and uniqueItems compare values
// with the library's equality (numbers by value, objects by key set, arrays
// elementwise), decided here on a canonical serialisation whose numbers are
// their float64's shortest decimal (float.go), and parseNumber reads a JSON
// number's text without converting it.

// key returns v's canonical key; it sets the unsure flag when v holds a
// value the library path cannot compare (non-JSON type, a number it
// refuses).
func (st *fastState) key(v any) (string, bool) {
	k, ok := canonicalKey(v)
	if !ok {
		st.unsure = true
	}
	return k, ok
}

// canonicalKey serialises a JSON value so that two values have the same
// key exactly when the library's equals says they are equal on the float
// view (float.go): numbers as their float64's shortest decimal (0 for
// both zeros), strings length-prefixed, object keys sorted.
func canonicalKey(v any) (string, bool) {
	var b strings.Builder
	ok := writeKey(&b, v)
	return b.String(), ok
}

func writeKey(b *strings.Builder, v any) bool {
	switch v := v.(type) {
	case nil:
		b.WriteByte('z')
	case bool:
		if v {
			b.WriteByte('t')
		} else {
			b.WriteByte('f')
		}
	case json.Number:
		f, ok := floatOf(string(v))
		if !ok {
			return false
		}
		if f == 0 {
			f = 0 // -0 equals 0
		}
		b.WriteByte('n')
		b.WriteString(shortest(f))
		b.WriteByte(';')
	case string:
		b.WriteByte('s')
		b.WriteString(strconv.Itoa(len(v)))
		b.WriteByte(':')
		b.WriteString(v)
	case []any:
		b.WriteByte('[')
		for _, x := range v {
			if !writeKey(b, x) {
				return false
			}
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for _, k := range keys {
			writeKey(b, k)
			if !writeKey(b, v[k]) {
				return false
			}
		}
		b.WriteByte('}')
	default:
		return false
	}
	return true
}

// numInfo describes a JSON number text -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
// without converting it.
type numInfo struct {
	ok      bool // the text is a JSON number
	neg     bool
	intPart string
	frac    string
	exp     int64 // the explicit exponent (saturated)
}

func parseNumber(s string) numInfo {
	var ni numInfo
	i := 0
	if i < len(s) && s[i] == '-' {
		ni.neg = true
		i++
	}
	start := i
	if i < len(s) && s[i] == '0' {
		i++
	} else if i < len(s) && s[i] >= '1' && s[i] <= '9' {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	} else {
		return ni
	}
	ni.intPart = s[start:i]
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == fs {
			return ni
		}
		ni.frac = s[fs:i]
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		es := i
		var e int64
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			if e < 1<<40 {
				e = e*10 + int64(s[i]-'0')
			}
			i++
		}
		if i == es {
			return ni
		}
		if eneg {
			e = -e
		}
		ni.exp = e
	}
	if i != len(s) {
		return ni
	}
	ni.ok = true
	return ni
}

// canonical is the reduced decimal of an ok number: sign,
// digits without leading or trailing zeros, and the exponent of the last
// digit. Equal values give equal strings ("1.0", "1e0", "10e-1": "1e0").
func (ni numInfo) canonical() string {
	digits := strings.TrimLeft(ni.intPart+ni.frac, "0")
	if digits == "" {
		return "0"
	}
	e := ni.exp - int64(len(ni.frac))
	trimmed := strings.TrimRight(digits, "0")
	e += int64(len(digits) - len(trimmed))
	sign := ""
	if ni.neg {
		sign = "-"
	}
	return sign + trimmed + "e" + strconv.FormatInt(e, 10)
}
