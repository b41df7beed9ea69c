package httpapi

import (
	"io"
	"net/http"
	"time"
)

// defaultDiscardRefused is Config.DiscardRefused's default: the default
// body limit, so any body the server admits can be sent to its end.
// Throwing a body away costs no memory (a 32 KiB buffer) and no solve
// slot, only the upload: 16 MiB on loopback is milliseconds of CPU.
const defaultDiscardRefused = 16 << 20

// discardTime bounds how long the server reads a refused body after its
// answer: a slow client's upload is not worth a connection for longer.
const discardTime = 2 * time.Second

// refuseUnread answers a request refused before its body was read (the
// memory budget stayed taken), then reads and throws away what the client
// still sends of the body, up to Config.DiscardRefused bytes within
// discardTime. A client that sent "Expect: 100-continue" never sends it
// (Go answers 100 Continue only on the first read, which never comes,
// and net/http then closes the connection). A client that did not sends
// it regardless; without the discard, net/http reads only 256 KiB of it,
// then closes the connection with the rest unread, and the kernel's reset
// can reach the client before it reads the 503 (issue 28: 1,000 of 1,211
// refusals of a 10.9 MB body under 100 clients were resets). The answer
// is flushed first, full duplex, so a client reading while it sends has
// the 503 at once.
func (s *Server) refuseUnread(w http.ResponseWriter, r *http.Request, err error) {
	rc := http.NewResponseController(w)
	// Only an HTTP/1 connection can be reset under an unread body: HTTP/2
	// ends the stream alone, and test recorders have no connection.
	if r.Header.Get("Expect") != "" || s.cfg.DiscardRefused <= 0 || r.ContentLength == 0 || rc.EnableFullDuplex() != nil {
		s.refuse(w, r, err)
		return
	}
	s.refuse(w, r, err)
	if r.Context().Err() != nil {
		return
	}
	_ = rc.Flush()
	_ = rc.SetReadDeadline(time.Now().Add(discardTime))
	_, _ = io.CopyN(io.Discard, r.Body, s.cfg.DiscardRefused)
}
