package httpapi

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/xflex/xflex/schemas"
	"github.com/xflex/xflex/sight"
	"github.com/xflex/xflex/sight/sighttest"
	"github.com/xflex/xflex/solver"
)

func TestNegotiate(t *testing.T) {
	both := []string{MediaJSON, MediaSVG}
	for _, c := range []struct{ accept, want string }{
		{"", MediaJSON},
		{"*/*", MediaJSON},
		{"*", MediaJSON},
		{"application/json", MediaJSON},
		{"image/svg+xml", MediaSVG},
		{"image/*", MediaSVG},
		{"text/html, image/svg+xml;q=0.9, */*;q=0.8", MediaSVG},
		{"image/svg+xml;q=0.5, application/json", MediaJSON},
		{"application/json;q=0, */*", MediaSVG},
		{"*/*;q=0.1, image/svg+xml", MediaSVG},
		{"text/csv", ""},
		{"image/svg+xml;q=0", ""},
		{"application/problem+json", ""},
		{"garbage;;, image/svg+xml", MediaSVG},
		{"image/svg+xml;q=2", ""},
	} {
		if got := Negotiate(c.accept, both...); got != c.want {
			t.Errorf("Negotiate(%q) = %q, want %q", c.accept, got, c.want)
		}
	}
	if got := Negotiate("image/svg+xml", MediaJSON); got != "" {
		t.Errorf("SVG from a JSON-only offer: %q", got)
	}
}

// pictureServer serves two test problems: "drawn", whose picture is an SVG
// naming the answer's n (with padding past gzip's threshold), and "plain",
// which has none.
func pictureServer(t *testing.T) http.Handler {
	t.Helper()
	solve := func(_ context.Context, raw json.RawMessage, _ solver.Options) (any, solver.Meta, error) {
		var req selftestReq
		if err := solver.Decode(raw, &req); err != nil {
			return nil, solver.Meta{}, err
		}
		if req.Mode == "invalid" {
			return nil, solver.Meta{}, solver.Invalid("/n", "no")
		}
		return map[string]int{"n": req.N}, solver.Meta{Status: solver.StatusOptimal, Solver: "t"}, nil
	}
	picture := func(request, response json.RawMessage) ([]byte, error) {
		var resp struct {
			Result struct{ N int } `json:"result"`
		}
		if err := json.Unmarshal(response, &resp); err != nil {
			return nil, err
		}
		d := sight.New(100, 100, "answer", "the answer's n as bars")
		for i := range resp.Result.N {
			d.Rect(float64(i), 0, 1, 10, sight.Style{Class: "bar", Fill: sight.Colour(i), Tip: strings.Repeat("pad ", 20)})
		}
		return d.Bytes(), nil
	}
	set, err := schemas.LoadWith(map[string][]byte{"selftest.request.json": []byte(selftestSchema)})
	if err != nil {
		t.Fatal(err)
	}
	ps := []solver.Problem{
		{Name: "drawn", RequestSchema: "selftest.request.json", Solve: solve, Picture: picture},
		{Name: "plain", RequestSchema: "selftest.request.json", Solve: solve},
	}
	runner, err := solver.NewRunnerWithSchemas(ps, time.Second, set)
	if err != nil {
		t.Fatal(err)
	}
	return New(Config{}, runner, zerolog.Nop()).Handler()
}

func postAccept(h http.Handler, path, accept, body string, gz bool) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "http://localhost"+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if gz {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestSolveAccept checks the negotiation of POST /v1/{problem}: SVG on
// request, JSON by default, 406 (problem+json listing the offers) for what
// cannot be produced, problem+json for errors, Vary: Accept always, and
// gzip still applied to pictures.
func TestSolveAccept(t *testing.T) {
	h := pictureServer(t)
	body := `{"mode":"ok","n":12}`
	for _, c := range []struct {
		path, accept, body string
		status             int
		ctype              string
	}{
		{"/v1/drawn", "", body, 200, MediaJSON},
		{"/v1/drawn", "*/*", body, 200, MediaJSON},
		{"/v1/drawn", "application/json", body, 200, MediaJSON},
		{"/v1/drawn", "image/svg+xml", body, 200, MediaSVG},
		{"/v1/drawn", "text/csv", body, 406, "application/problem+json"},
		{"/v1/drawn", "image/svg+xml", `{"mode":"invalid"}`, 422, "application/problem+json"},
		{"/v1/drawn", "image/svg+xml", `{"mode":1}`, 422, "application/problem+json"},
		{"/v1/plain", "image/svg+xml", body, 406, "application/problem+json"},
		{"/v1/plain", "", body, 200, MediaJSON},
	} {
		rec := postAccept(h, c.path, c.accept, c.body, false)
		if rec.Code != c.status || rec.Header().Get("Content-Type") != c.ctype {
			t.Errorf("%s Accept %q: %d %s, want %d %s: %s", c.path, c.accept, rec.Code, rec.Header().Get("Content-Type"), c.status, c.ctype, rec.Body)
		}
		if !strings.Contains(strings.Join(rec.Header().Values("Vary"), ","), "Accept") {
			t.Errorf("%s Accept %q: Vary %q lacks Accept", c.path, c.accept, rec.Header().Values("Vary"))
		}
		if c.status == 406 {
			p := decodeProblem(t, rec)
			_, offered, _ := strings.Cut(p.Detail, "it produces ")
			if want := strings.Join(Offers(c.path == "/v1/drawn"), ", "); offered != want {
				t.Errorf("406 detail %q does not list the offers", p.Detail)
			}
		}
	}
	svg := postAccept(h, "/v1/drawn", "image/svg+xml", body, false).Body.Bytes()
	if s := sighttest.Check(t, svg); s.Classes["bar"] != 12 {
		t.Errorf("bars %d, want 12", s.Classes["bar"])
	}
	rec := postAccept(h, "/v1/drawn", "image/svg+xml", body, true)
	if rec.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("picture of %d bytes not gzipped (headers %v)", len(svg), rec.Header())
	}
	zr, err := gzip.NewReader(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	unz, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(unz, svg) {
		t.Errorf("gzipped picture differs from the plain one (%v)", err)
	}
}
