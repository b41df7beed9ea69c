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

// files are the page's files: index.html (the page) and, beside it, its
// scripts and style sheet.
var files = func() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded tree always has static/
	}
	return sub
}()

// page is the file served as the page itself.
const page = "index.html"

// contentSecurityPolicy lets the page load only its own files and talk
// only to its own server; pictures are shown from blob: URLs (an SVG in
// an <img> runs no script), so a picture cannot reach the page.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; " +
	"connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"

func setHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Security-Policy", contentSecurityPolicy)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
}

// Page serves the page (text/html). Its files are named by absolute
// paths below /ui/, so it works at /ui and /ui/ alike.
func Page(w http.ResponseWriter, r *http.Request) {
	setHeaders(w)
	b, err := fs.ReadFile(files, page)
	if err != nil {
		panic(err) // embedded
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(b)
}

// ServeFile serves the page's file name (app.js, app.css, ...) and
// reports whether there is one; the page itself is not a file here (it
// is at /ui/).
func ServeFile(w http.ResponseWriter, r *http.Request, name string) bool {
	if name == page || !fs.ValidPath(name) {
		return false
	}
	if st, err := fs.Stat(files, name); err != nil || st.IsDir() {
		return false
	}
	setHeaders(w)
	http.ServeFileFS(w, r, files, name)
	return true
}
