package solvertest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/xflex/xflex/sight/sighttest"
	"github.com/xflex/xflex/solver"
)

// MaxPictureBytes is the most an example's picture may weigh (the
// picture contract: every SVG small, aggregating past a few hundred
// nodes or jobs).
const MaxPictureBytes = 300 << 10

// Picture solves raw twice through a Runner holding only p and draws each
// answer with p.Picture, as the front ends do. It fails t unless both
// drawings are the same bytes (so a picture depends on neither
// meta.elapsed_ms nor anything else that varies between runs), the SVG is
// well-formed with a viewBox, title and desc (sighttest.Check) and it is
// at most MaxPictureBytes. It returns the SVG, the response it drew and
// the SVG's shape, for the caller to compare counts with the answer.
func Picture(t testing.TB, p solver.Problem, raw []byte) ([]byte, []byte, sighttest.Shape) {
	t.Helper()
	if p.Picture == nil {
		t.Fatalf("%s has no Picture", p.Name)
	}
	var svgs, resps [2][]byte
	for i := range svgs {
		b, xe := Run(t, p, raw)
		if xe != nil {
			t.Fatalf("solve failed: %v", xe)
		}
		resps[i] = append(b, '\n') // as Response.Wire
		svg, err := p.Picture(raw, resps[i])
		if err != nil {
			t.Fatalf("picture: %v", err)
		}
		svgs[i] = svg
	}
	if !bytes.Equal(svgs[0], svgs[1]) {
		t.Fatalf("two runs drew different pictures:\n%.3000s\n----\n%.3000s", svgs[0], svgs[1])
	}
	if len(svgs[0]) > MaxPictureBytes {
		t.Errorf("picture of %d bytes, want at most %d", len(svgs[0]), MaxPictureBytes)
	}
	return svgs[0], resps[0], sighttest.Check(t, svgs[0])
}

// PictureFile is Picture of the request stored in the file path.
func PictureFile(t testing.TB, p solver.Problem, path string) ([]byte, []byte, sighttest.Shape) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return Picture(t, p, raw)
}

// EachPicture runs a subtest per request of p's: each file
// testdata/*.json of the calling test's package, then example (a path),
// then, when generate is not nil, the instance it makes, marshalled
// ("generated"). Each solves and draws its request with Picture, decodes
// the response's result into an R and hands it, with the request and the
// SVG's shape, to count, which compares the problem's class counts with
// the answer.
func EachPicture[R any](t *testing.T, p solver.Problem, example string, generate func() (any, error), count func(t *testing.T, raw []byte, res *R, s sighttest.Shape)) {
	t.Helper()
	files, _ := filepath.Glob("testdata/*.json")
	files = append(files, example)
	if generate != nil {
		files = append(files, "generated")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw := readOrGenerate(t, f, generate)
			_, resp, shape := Picture(t, p, raw)
			var r struct{ Result R }
			if err := json.Unmarshal(resp, &r); err != nil {
				t.Fatal(err)
			}
			count(t, raw, &r.Result, shape)
		})
	}
}

// readOrGenerate reads the request file f, or for "generated" marshals
// what generate makes.
func readOrGenerate(t *testing.T, f string, generate func() (any, error)) []byte {
	t.Helper()
	if f != "generated" {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	inst, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(inst)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
