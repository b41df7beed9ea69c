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
const footSize = MinText

// Footnote writes notes (what the picture aggregated or left out) as
// small text under everything drawn, wrapped to the canvas width, and
// grows the canvas to hold them; the desc should say the same for
// readers who cannot see the picture. No notes, no change.
func (d *Doc) Footnote(notes []string) {
	if len(notes) == 0 {
		return
	}
	for _, l := range wrapText(strings.Join(notes, "; "), footSize, d.W-16) {
		d.H += footSize * 1.5
		d.Text(8, d.H-5, l, Style{Class: "note", Fill: Ink, Size: footSize})
	}
}

// wrapText breaks s at spaces into lines of at most width units in a font
// of the given size (a word longer than that keeps a line of its own);
// nil for blank text.
func wrapText(s string, size, width float64) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && TextWidth(line+" "+w, size) > width {
			lines, line = append(lines, line), w
			continue
		}
		line = strings.TrimSpace(line + " " + w)
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
