package httpapi

import (
	"net/http"
	"strings"

	"github.com/klauspost/compress/gzhttp"
)

// compressMinSize is the smallest response that is compressed: below a
// kilobyte gzip's header and trailer outweigh what it saves.
const compressMinSize = 1024

// compression is the middleware for gzip on both sides (issue 20).
//
// Requests: a body sent with Content-Encoding: gzip is decompressed as it
// is read, and its Content-Length is dropped (gzhttp's
// AllowCompressedRequests), so AdmitBody treats it as a body of unknown
// length: the --max-body limit (413) applies to the decompressed bytes and
// memory is reserved in chunkedStep steps as they come, never from a
// Content-Length an attacker chose. A zip bomb therefore stops at the
// limit, with the limit's memory. A corrupt stream fails the read: 400
// malformed. Any other Content-Encoding is a 415 (requireIdentity).
//
// Responses: compressed with gzip when the client's Accept-Encoding allows
// it and the body is at least compressMinSize; Vary: Accept-Encoding is set
// on every response. Only gzip is offered (zstd off), as documented.
// It runs inside deadlines, so the write deadline and the access log's
// byte count see the compressed bytes actually sent.
func compression() func(http.Handler) http.Handler {
	wrap, err := gzhttp.NewWrapper(gzhttp.AllowCompressedRequests(true), gzhttp.MinSize(compressMinSize),
		gzhttp.EnableZstd(false))
	if err != nil {
		panic("httpapi: gzhttp options: " + err.Error()) // constant options: cannot happen
	}
	return func(next http.Handler) http.Handler { return wrap(requireIdentity(next)) }
}

// requireIdentity answers 415 to a request body in a content coding that
// is left once gzip has been undone: the server cannot read it. RFC 9110
// 15.5.16: the 415 lists the codings the server accepts in
// Accept-Encoding.
func requireIdentity(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ce := strings.TrimSpace(strings.Join(r.Header.Values("Content-Encoding"), ","))
		if ce == "" || strings.EqualFold(ce, "identity") || r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Accept-Encoding", "gzip")
		SimpleProblem(w, r, http.StatusUnsupportedMediaType, "unsupported_media_type", "Unsupported content encoding",
			"the body's Content-Encoding "+ce+" is not supported: send it uncompressed or as Content-Encoding: gzip")
	})
}
