// Package ui is the planners' web page served at /ui/: plain HTML, CSS
// and JavaScript embedded in the binary (no build step, no CDN, nothing
// fetched from outside), which talks to the same public API as any
// client (POST /v1/{problem}, the jobs API, GET /v1/examples/{problem})
// with the same Bearer tokens.
package ui

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed static
var static embed.FS

// contentSecurityPolicy lets the page load only its own files and talk
// only to its own server; pictures are shown from blob: URLs (an SVG in
// an <img> runs no script), so a picture cannot reach the page.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; " +
	"connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"

// Handler serves the page's files below prefix (e.g. "/ui/"): the page
// itself at prefix, its scripts and styles beside it.
func Handler(prefix string) http.Handler {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded tree always has static/
	}
	files := http.StripPrefix(prefix, http.FileServer(http.FS(sub)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", contentSecurityPolicy)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		files.ServeHTTP(w, r)
	})
}
