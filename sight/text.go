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

// footSize is the font size of a footnote line.
const footSize = 10

// Footnote writes notes (what the picture aggregated or left out) as
// small text under everything drawn, wrapped to the canvas width, and
// grows the canvas to hold them; the desc should say the same for
// readers who cannot see the picture. No notes, no change.
func (d *Doc) Footnote(notes []string) {
	if len(notes) == 0 {
		return
	}
	var lines []string
	line := ""
	for _, w := range strings.Fields(strings.Join(notes, "; ")) {
		if line != "" && TextWidth(line+" "+w, footSize) > d.W-16 {
			lines, line = append(lines, line), w
			continue
		}
		line = strings.TrimSpace(line + " " + w)
	}
	lines = append(lines, line)
	for _, l := range lines {
		d.H += footSize * 1.5
		d.Text(8, d.H-5, l, Style{Class: "note", Fill: Ink, Size: footSize})
	}
}
