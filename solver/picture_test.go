package solver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/xflex/xflex/schemas"
)

// TestRunnerPicture checks Picture's outcomes: the drawing's bytes given
// the request and response unchanged, and the typed error of each way it
// can fail.
func TestRunnerPicture(t *testing.T) {
	set, err := schemas.LoadWith(map[string][]byte{"toy.request.json": []byte(toySchema)})
	if err != nil {
		t.Fatal(err)
	}
	draw := func(req, resp json.RawMessage) ([]byte, error) {
		switch string(req) {
		case "panic":
			panic("boom")
		case "fail":
			return nil, errors.New("bad response")
		}
		return append(append([]byte("svg:"), req...), resp...), nil
	}
	ps := []Problem{
		{Name: "drawn/one", RequestSchema: "toy.request.json", Picture: draw},
		{Name: "plain", RequestSchema: "toy.request.json"},
	}
	r, err := NewRunnerWithSchemas(ps, time.Second, set)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Picture("drawn-one", []byte("a"), []byte("b"))
	if err != nil || !bytes.Equal(got, []byte("svg:ab")) {
		t.Fatalf("Picture by CLI name = %q, %v; want svg:ab", got, err)
	}
	if !r.HasPicture("drawn/one") || r.HasPicture("plain") || r.HasPicture("nope") {
		t.Error("HasPicture wrong")
	}
	for _, c := range []struct {
		name, req string
		want      Kind
	}{
		{"nope", "a", KindUnknownProblem},
		{"plain", "a", KindNotAcceptable},
		{"drawn/one", "fail", KindInternal},
		{"drawn/one", "panic", KindInternal},
	} {
		_, err := r.Picture(c.name, []byte(c.req), nil)
		var xe *Error
		if !errors.As(err, &xe) || xe.Kind != c.want {
			t.Errorf("Picture(%s, %s) error %v, want kind %s", c.name, c.req, err, c.want)
		}
	}
}

// TestTypedPicture checks that Typed hands its Picture to its Problem.
func TestTypedPicture(t *testing.T) {
	f := func(_, _ json.RawMessage) ([]byte, error) { return []byte("x"), nil }
	p := Typed[struct{}, int]{Name: "t", Picture: f}.Problem()
	if p.Picture == nil {
		t.Fatal("Typed.Problem dropped Picture")
	}
	if b, _ := p.Picture(nil, nil); string(b) != "x" {
		t.Fatalf("Picture = %q", b)
	}
}

// DecodePicture decodes the request, the response's result and its meta,
// and says which of the two did not decode.
func TestDecodePicture(t *testing.T) {
	type req struct{ N int }
	type res struct{ M int }
	r, s, meta, err := DecodePicture[req, res]([]byte(`{"n":1}`), []byte(`{"result":{"m":2},"meta":{"status":"optimal"}}`))
	if err != nil || r.N != 1 || s.M != 2 || meta.Status != "optimal" {
		t.Errorf("got %+v %+v %q %v", r, s, meta.Status, err)
	}
	for _, c := range []struct{ request, response, want string }{
		{`{`, `{"result":{}}`, "request: "},
		{`{}`, `{"result":7}`, "response: "},
	} {
		_, _, _, err := DecodePicture[req, res]([]byte(c.request), []byte(c.response))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s, %s: error %v, want %q…", c.request, c.response, err, c.want)
		}
	}
}

// TestRunnerPictures checks a problem with a SharedPictureFunc draws
// answers side by side on the largest top any of them needs (here each
// answer needs its response's number and writes the top it was given),
// skips absent answers, and that a problem without one draws each answer
// as Picture does.
func TestRunnerPictures(t *testing.T) {
	set, err := schemas.LoadWith(map[string][]byte{"toy.request.json": []byte(toySchema)})
	if err != nil {
		t.Fatal(err)
	}
	shared := func(req, resp json.RawMessage, tops map[string]float64) ([]byte, map[string]float64, error) {
		var need float64
		if err := json.Unmarshal(resp, &need); err != nil {
			return nil, nil, err
		}
		top := max(need, tops["x"])
		return []byte(fmt.Sprintf("%s:%g", req, top)), map[string]float64{"x": need}, nil
	}
	plain := func(req, resp json.RawMessage) ([]byte, error) { return append(append([]byte{}, req...), resp...), nil }
	ps := []Problem{
		{Name: "shared", RequestSchema: "toy.request.json", Picture: plain, PictureShared: shared},
		{Name: "plain", RequestSchema: "toy.request.json", Picture: plain},
	}
	r, err := NewRunnerWithSchemas(ps, time.Second, set)
	if err != nil {
		t.Fatal(err)
	}
	reqs := [][]byte{[]byte("a"), []byte("b"), []byte("c")}
	resps := [][]byte{[]byte("3"), nil, []byte("7")}
	got, err := r.Pictures("shared", reqs, resps)
	if err != nil || fmt.Sprintf("%q", got) != `["a:7" "" "c:7"]` {
		t.Errorf("Pictures(shared) = %q, %v; want both drawn to 7, none for b", got, err)
	}
	got, err = r.Pictures("plain", reqs, resps)
	if err != nil || fmt.Sprintf("%q", got) != `["a3" "" "c7"]` {
		t.Errorf("Pictures(plain) = %q, %v", got, err)
	}
	if _, err := r.Pictures("shared", reqs[:1], [][]byte{[]byte("x")}); err == nil {
		t.Error("an answer that does not decode drew")
	}
}
