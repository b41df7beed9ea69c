package httpapi

import "net/http"

// Content-Security-Policy of the API's answers. None is a page to run:
// a JSON document or problem needs nothing, a picture only the inline
// style attributes sight writes. Either way no script, no fetch, no
// framing (frame-ancestors), and sandbox on top, so an answer opened in a
// browser (a picture drawn from a request's names, say) can do nothing
// but show itself.
const (
	cspDocument = "default-src 'none'; frame-ancestors 'none'; sandbox"
	cspPicture  = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; sandbox"
)

// setAnswerHeaders marks an API answer of the given media type as not to
// be content-sniffed (a browser must not take a JSON or SVG body for
// HTML) and gives it its Content-Security-Policy.
func setAnswerHeaders(h http.Header, media string) {
	h.Set("X-Content-Type-Options", "nosniff")
	if media == MediaSVG {
		h.Set("Content-Security-Policy", cspPicture)
		return
	}
	h.Set("Content-Security-Policy", cspDocument)
}
