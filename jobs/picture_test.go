package jobs

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/xflex/xflex/jobs/jobtest"
	"github.com/xflex/xflex/sight/sighttest"
)

const svgAccept = "image/svg+xml"

// TestResultPicture: GET /v1/jobs/{id}/result with Accept: image/svg+xml
// answers the job's picture, byte for byte what POST /v1/{problem} draws
// for the same input; a scenario's shows its variants side by side (a
// failed one as a panel saying so); JSON stays the default and an Accept
// the server cannot produce is a 406.
func TestResultPicture(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, store string) {
		h := newHarness(t, store, Config{})
		nodes := `[{"name":"a","cap":5},{"name":"b","cap":2},{"name":"c","cap":1}]`
		in := sleepInput(1, 3, "nodes", nodes)
		id := h.submit(job(in))
		h.waitTerminal(id)
		r := h.do("GET", "/v1/jobs/"+id+"/result", nil, "Accept", svgAccept)
		sync := h.do("POST", "/v1/"+jobtest.Name, in, "Accept", svgAccept)
		if r.status != 200 || r.header.Get("Content-Type") != svgAccept || !bytes.Equal(r.body, sync.body) {
			t.Fatalf("job picture %d %s %s\nsynchronous %s", r.status, r.header.Get("Content-Type"), r.body, sync.body)
		}
		if s := sighttest.Check(t, r.body); s.Classes["node"] != 3 {
			t.Errorf("job picture has %d nodes, want 3", s.Classes["node"])
		}
		if !strings.Contains(strings.Join(r.header.Values("Vary"), ","), "Accept") {
			t.Errorf("Vary %v lacks Accept", r.header.Values("Vary"))
		}
		if r := h.do("GET", "/v1/jobs/"+id+"/result", nil, "Accept", "text/csv"); r.status != http.StatusNotAcceptable ||
			r.header.Get("Content-Type") != "application/problem+json" || !strings.Contains(string(r.body), svgAccept) {
			t.Errorf("text/csv: %d %s %s", r.status, r.header.Get("Content-Type"), r.body)
		}
		if r := h.do("GET", "/v1/jobs/"+id+"/result", nil, "Accept", "*/*"); r.header.Get("Content-Type") != "application/json" {
			t.Errorf("*/* answered %s", r.header.Get("Content-Type"))
		}

		sid := h.submit(map[string]any{"problem": jobtest.Name, "input": in, "variants": []any{
			map[string]any{"name": "cheaper", "patch": map[string]any{"value": 1.5}},
			map[string]any{"name": "broken", "patch": map[string]any{"fail": true}},
		}})
		h.waitTerminal(sid)
		r = h.do("GET", "/v1/jobs/"+sid+"/result", nil, "Accept", svgAccept)
		if r.status != 200 || r.header.Get("Content-Type") != svgAccept {
			t.Fatalf("scenario picture %d %s", r.status, r.body)
		}
		s := sighttest.Check(t, r.body)
		if s.Classes["panel"] != 3 || s.Classes["panel-label"] != 3 || s.Classes["node"] != 6 || s.Classes["no-result"] != 1 {
			t.Errorf("scenario picture classes %v, want 3 panels (base, cheaper, broken), 6 nodes, 1 no-result", s.Classes)
		}
		for _, want := range []string{"base", "cheaper", "broken", "failed"} {
			if !strings.Contains(s.Text, want) {
				t.Errorf("scenario picture text lacks %q:\n%s", want, s.Text)
			}
		}
		vr := h.do("GET", "/v1/jobs/"+sid+"/variants/cheaper/result", nil, "Accept", svgAccept)
		vsync := h.do("POST", "/v1/"+jobtest.Name, sleepInput(1, 1.5, "nodes", nodes), "Accept", svgAccept)
		if vr.status != 200 || !bytes.Equal(vr.body, vsync.body) {
			t.Errorf("variant picture %d %s\nsynchronous %s", vr.status, vr.body, vsync.body)
		}
	})
}

// TestPictureWith: GET /v1/jobs/{id}/picture?with=ID,... draws the job's
// answer on the scales it shares with the other jobs' answers (the
// page's comparison of past jobs): a 3-node answer drawn with a 5-node
// one is as wide as 5 nodes, alone as 3; jobs of another problem,
// unknown, or too many are 422 at /query/with.
func TestPictureWith(t *testing.T) {
	t.Parallel()
	h := newHarness(t, storeURL(t, "sqlite"), Config{})
	node := func(n int) string {
		var parts []string
		for i := range n {
			parts = append(parts, fmt.Sprintf(`{"name":"n%d","cap":%d}`, i, i+1))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	small := h.submit(job(sleepInput(1, 3, "nodes", node(3))))
	big := h.submit(job(sleepInput(1, 3, "nodes", node(5))))
	h.waitTerminal(small)
	h.waitTerminal(big)
	width := func(path string) float64 {
		t.Helper()
		r := h.do("GET", path, nil)
		if r.status != 200 {
			t.Fatalf("%s: %d %s", path, r.status, r.body)
		}
		return sighttest.Check(t, r.body).Width
	}
	alone, shared := width("/v1/jobs/"+small+"/picture"), width("/v1/jobs/"+small+"/picture?with="+big)
	if alone != 20*3+20 || shared != 20*5+20 {
		t.Errorf("3-node picture %g wide alone, %g with the 5-node job; want 80 and 120", alone, shared)
	}
	if w := width("/v1/jobs/" + big + "/picture?with=" + small); w != 20*5+20 {
		t.Errorf("5-node picture %g wide with the 3-node job, want its own 120", w)
	}
	for _, with := range []string{"nope", big + ",nope", strings.Repeat(big+",", maxWith) + big} {
		r := h.do("GET", "/v1/jobs/"+small+"/picture?with="+with, nil)
		if r.status != http.StatusUnprocessableEntity || !strings.Contains(string(r.body), `"/query/with"`) {
			t.Errorf("with=%s: %d %s", with, r.status, r.body)
		}
	}
}
