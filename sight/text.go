package sight

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Notes joins a picture's notes (what it aggregated or left out) into a
// sentence for its desc, " First note; second note.", or "" for none.
func Notes(notes []string) string {
	if len(notes) == 0 {
		return ""
	}
	s := strings.Join(notes, "; ")
	r, n := utf8.DecodeRuneInString(s)
	return " " + string(unicode.ToUpper(r)) + s[n:] + "."
}
