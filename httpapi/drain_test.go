package httpapi

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRefusedBodyWithoutExpectReads503: a client that posts an 8 MiB body
// without "Expect: 100-continue" while the memory budget is taken reads
// the 503 and its Retry-After, not a reset connection (issue 28: 1,000 of
// 1,211 such requests were reset): one that writes its whole body before
// it reads, and Go's client, which reads while it writes.
func TestRefusedBodyWithoutExpectReads503(t *testing.T) {
	h := newHarness(t, Config{MaxInflightBytes: 1 << 20, QueueWait: 20 * time.Millisecond, MaxConcurrent: 1})
	srv := httptest.NewServer(h.srv.Handler())
	defer srv.Close()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // holds the whole budget until released
		defer wg.Done()
		resp, err := http.Post(srv.URL+"/v1/selftest", "application/json", strings.NewReader(`{"mode":"block"`+strings.Repeat(" ", 50_000)+`}`))
		if err != nil {
			t.Errorf("blocking request: %v", err)
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("blocking request: %d %s", resp.StatusCode, b)
		}
	}()
	<-h.started
	defer func() { close(h.release); wg.Wait() }()
	body := append(append([]byte(`{"mode":"ok"`), bytes.Repeat([]byte(" "), 8<<20)...), '}')
	// A careless client: it writes its whole body, and only then reads.
	for i := range 3 {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(time.Minute))
		head := fmt.Sprintf("POST /v1/selftest HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
		if _, err := conn.Write(append([]byte(head), body...)); err != nil {
			t.Fatalf("sequential client %d: writing the body: %v, want the server to take it", i, err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("sequential client %d: %v, want the 503", i, err)
		}
		resp.Body.Close()
		conn.Close()
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("sequential client %d: status %d, want 503", i, resp.StatusCode)
		}
	}
	for i := range 3 {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/selftest", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json") // no Expect
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatalf("request %d: %v, want the 503", i, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
			t.Fatalf("request %d: status %d (Retry-After %q), want 503 with Retry-After", i, resp.StatusCode, resp.Header.Get("Retry-After"))
		}
	}
}
