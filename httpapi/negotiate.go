package httpapi

import (
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// The media types answers come in: JSON, always offered and the default,
// and the SVG picture of problems that have one (solver.PictureFunc).
const (
	MediaJSON = "application/json"
	MediaSVG  = "image/svg+xml"
)

// Negotiate picks the offer the Accept header ranks highest (RFC 9110
// 12.5.1): each offer takes the q of the most specific media range that
// matches it (type/subtype over type/* over */*), ties go to the earlier
// offer, and q=0 refuses. An absent or empty header takes offers[0]; ""
// means no offer is acceptable (406). Ranges that do not parse are
// skipped. The standard library has no Accept parser and none of the Go
// modules for it is in use here; this is the part of it xflex needs.
func Negotiate(accept string, offers ...string) string {
	if strings.TrimSpace(accept) == "" {
		return offers[0]
	}
	ranges := parseAccept(accept)
	best, bestQ := "", 0.0
	for _, o := range offers {
		if q := qualityOf(o, ranges); q > bestQ {
			best, bestQ = o, q
		}
	}
	return best
}

// mediaRange is one element of an Accept header.
type mediaRange struct {
	typ, sub string
	q        float64
}

// parseAccept reads an Accept header's media ranges; "*" alone (sent by
// some old clients) reads as */*.
func parseAccept(accept string) []mediaRange {
	var out []mediaRange
	for _, part := range strings.Split(accept, ",") {
		part = strings.TrimSpace(part)
		if part == "*" || strings.HasPrefix(part, "*;") {
			part = "*/*" + part[1:]
		}
		mt, params, err := mime.ParseMediaType(part)
		if err != nil {
			continue
		}
		typ, sub, ok := strings.Cut(mt, "/")
		if !ok {
			continue
		}
		q := 1.0
		if s, ok := params["q"]; ok {
			if q, err = strconv.ParseFloat(s, 64); err != nil || q < 0 || q > 1 {
				continue
			}
		}
		out = append(out, mediaRange{typ, sub, q})
	}
	return out
}

// qualityOf is the q of the most specific range matching offer (0 when
// none does); among equally specific ones, the first.
func qualityOf(offer string, ranges []mediaRange) float64 {
	typ, sub, _ := strings.Cut(offer, "/")
	q, spec := 0.0, -1
	for _, r := range ranges {
		s := -1
		switch {
		case r.typ == typ && r.sub == sub:
			s = 2
		case r.typ == typ && r.sub == "*":
			s = 1
		case r.typ == "*" && r.sub == "*":
			s = 0
		}
		if s > spec {
			q, spec = r.q, s
		}
	}
	return q
}

// NotAcceptable writes the 406 problem for a request whose Accept names
// none of offers, listing them.
func NotAcceptable(w http.ResponseWriter, r *http.Request, offers []string) {
	SimpleProblem(w, r, http.StatusNotAcceptable, "not_acceptable", "Not acceptable",
		"Accept: "+r.Header.Get("Accept")+" names nothing "+r.URL.Path+" can produce; it produces "+strings.Join(offers, ", "))
}

// Offers is what a problem's answers come in: JSON, and SVG when it has a
// picture.
func Offers(hasPicture bool) []string {
	if hasPicture {
		return []string{MediaJSON, MediaSVG}
	}
	return []string{MediaJSON}
}
