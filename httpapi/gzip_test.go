package httpapi

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/xflex/xflex/solver"
)

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// postEncoded posts body with the given Content-Encoding.
func postEncoded(h http.Handler, encoding string, body io.Reader, length int64) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "http://localhost/v1/selftest", body)
	req.ContentLength = length
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Content-Encoding", encoding)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestGzipRequestSameAnswer(t *testing.T) {
	h := newHarness(t, Config{MaxBodyBytes: 1024})
	body := []byte(`{"mode":"ok","n":7}`)
	type answer struct {
		Result map[string]int `json:"result"`
		Meta   solver.Meta    `json:"meta"`
	}
	var got [2]answer
	for i, rec := range []*httptest.ResponseRecorder{
		post(t, h.srv.Handler(), "/v1/selftest", "application/json", string(body)),
		postEncoded(h.srv.Handler(), "gzip", bytes.NewReader(gzipped(t, body)), -1),
	} {
		if rec.Code != http.StatusOK {
			t.Fatalf("request %d: status %d: %s", i, rec.Code, rec.Body)
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &got[i]); err != nil {
			t.Fatal(err)
		}
	}
	if got[0].Result["n"] != 7 || got[1].Result["n"] != 7 || got[0].Meta.InputSHA256 != got[1].Meta.InputSHA256 {
		t.Fatalf("plain %+v and gzip %+v answers differ", got[0], got[1])
	}
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// TestGzipBombTooLarge sends 1 GiB of zeros compressed to about 1 MB (1,024
// gzip members of 1 MiB each, which a gzip reader reads as one stream):
// the limit applies to the decompressed bytes, so it is a 413 after about
// the limit's worth of body, read and allocated. The compressed bomb is
// under the limit, so only the decompressed bytes can exceed it.
func TestGzipBombTooLarge(t *testing.T) {
	const limit = 4 << 20
	h := newHarness(t, Config{MaxBodyBytes: limit})
	member := gzipped(t, make([]byte, 1<<20))
	bomb := bytes.Repeat(member, 1024)
	body := &countingReader{r: bytes.NewReader(bomb)}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rec := postEncoded(h.srv.Handler(), "gzip", body, int64(len(bomb)))
	runtime.ReadMemStats(&after)
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, want 413: %s", rec.Code, rec.Body)
	}
	decodeProblem(t, rec)
	if body.n > int64(len(bomb))/10 {
		t.Errorf("read %d of the bomb's %d compressed bytes", body.n, len(bomb))
	}
	t.Logf("read %d of %d compressed bytes, allocated %d", body.n, len(bomb), after.TotalAlloc-before.TotalAlloc)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4*limit {
		t.Errorf("allocated %d bytes for a %d-byte limit", alloc, limit)
	}
}

func TestGzipCorruptIs400(t *testing.T) {
	h := newHarness(t, Config{})
	good := gzipped(t, []byte(`{"mode":"ok","n":7}`))
	flipped := bytes.Clone(good)
	flipped[len(flipped)-5] ^= 0xff // the CRC-32 trailer
	for name, b := range map[string][]byte{
		"not gzip":  []byte(`{"mode":"ok"}`),
		"truncated": good[:len(good)-6],
		"bad crc":   flipped,
	} {
		t.Run(name, func(t *testing.T) {
			rec := postEncoded(h.srv.Handler(), "gzip", bytes.NewReader(b), int64(len(b)))
			if rec.Code != http.StatusBadRequest || decodeProblem(t, rec).Type == "" {
				t.Fatalf("status %d, want 400: %s", rec.Code, rec.Body)
			}
		})
	}
}

func TestUnsupportedContentEncodingIs415(t *testing.T) {
	h := newHarness(t, Config{})
	for _, enc := range []string{"br", "deflate", "gzip, br"} {
		rec := postEncoded(h.srv.Handler(), enc, strings.NewReader(`{"mode":"ok"}`), 13)
		if rec.Code != http.StatusUnsupportedMediaType || rec.Header().Get("Accept-Encoding") != "gzip" {
			t.Fatalf("%s: status %d, Accept-Encoding %q, want 415 and gzip: %s",
				enc, rec.Code, rec.Header().Get("Accept-Encoding"), rec.Body)
		}
		decodeProblem(t, rec)
	}
	if rec := postEncoded(h.srv.Handler(), "identity", strings.NewReader(`{"mode":"ok"}`), 13); rec.Code != http.StatusOK {
		t.Fatalf("identity: status %d: %s", rec.Code, rec.Body)
	}
}

func get(h http.Handler, path, acceptEncoding string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, "http://localhost"+path, nil)
	if acceptEncoding != "" {
		req.Header.Set("Accept-Encoding", acceptEncoding)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestGzipResponseOnlyWhenAsked: a response of at least compressMinSize is
// gzipped only for a client that accepts gzip, and decodes to the same
// bytes; a small one is never compressed; Vary is always set.
func TestGzipResponseOnlyWhenAsked(t *testing.T) {
	h := newHarness(t, Config{})
	plain := get(h.srv.Handler(), "/v1/schemas/common.json", "")
	if plain.Code != http.StatusOK || plain.Body.Len() < compressMinSize || plain.Header().Get("Content-Encoding") != "" {
		t.Fatalf("plain: status %d, %d bytes, encoding %q", plain.Code, plain.Body.Len(), plain.Header().Get("Content-Encoding"))
	}
	zipped := get(h.srv.Handler(), "/v1/schemas/common.json", "br;q=1, gzip;q=0.5")
	if zipped.Header().Get("Content-Encoding") != "gzip" || zipped.Body.Len() >= plain.Body.Len() {
		t.Fatalf("gzip asked: encoding %q, %d bytes of %d", zipped.Header().Get("Content-Encoding"), zipped.Body.Len(), plain.Body.Len())
	}
	zr, err := gzip.NewReader(zipped.Body)
	if err != nil {
		t.Fatal(err)
	}
	decoded, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(decoded, plain.Body.Bytes()) {
		t.Fatalf("decoded gzip response differs from the plain one (err %v)", err)
	}
	small := get(h.srv.Handler(), "/healthz", "gzip")
	if small.Header().Get("Content-Encoding") != "" || small.Body.String() != `{"status":"ok"}`+"\n" {
		t.Fatalf("small response compressed: %q %q", small.Header().Get("Content-Encoding"), small.Body)
	}
	for _, rec := range []*httptest.ResponseRecorder{plain, zipped, small} {
		if !strings.Contains(rec.Header().Get("Vary"), "Accept-Encoding") {
			t.Errorf("Vary %q lacks Accept-Encoding", rec.Header().Get("Vary"))
		}
	}
}

// TestTricklingGzipClientIsCutOff: a gzip body that stalls mid-stream
// still gets 408 after ReadBodyTimeout (the read deadline's timeout
// reaches refuse through the decompressor), and the connection closes.
func TestTricklingGzipClientIsCutOff(t *testing.T) {
	h := newHarness(t, Config{ReadBodyTimeout: 100 * time.Millisecond})
	srv := httptest.NewServer(h.srv.Handler())
	defer srv.Close()
	part := gzipped(t, []byte(`{"mode":"ok","n":7}`))[:15]
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second)) // bounds the test
	head := "POST /v1/selftest HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n" +
		"Content-Encoding: gzip\r\nContent-Length: 1000\r\n\r\n"
	if _, err := io.WriteString(conn, head+string(part)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Errorf("status %d, want 408", resp.StatusCode)
	}
	if _, err := io.Copy(io.Discard, conn); err != nil {
		t.Fatalf("connection not closed: %v", err)
	}
}
