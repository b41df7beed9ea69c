package jobs

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/xflex/xflex/jobs/jobtest"
)

// TestSubmitInvalidUTF8: a submission with bytes that are not UTF-8 gets
// 400 naming the first one's offset in the body; decoded leniently, the
// two variant names below would both read "a\uFFFD" and collide.
func TestSubmitInvalidUTF8(t *testing.T) {
	h := newHarness(t, storeURL(t, "sqlite"), Config{})
	body := `{"problem":"` + jobtest.Name + `","input":{"ms":0,"value":1},"variants":[` +
		"{\"name\":\"a\xff\",\"patch\":{}},{\"name\":\"a\xfe\",\"patch\":{}}]}"
	r := h.do("POST", "/v1/jobs", body)
	off := strings.IndexByte(body, 0xff)
	if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "byte offset "+strconv.Itoa(off)+" ") {
		t.Fatalf("invalid UTF-8 submission: %d %s; want 400 at byte offset %d", r.status, r.body, off)
	}
}

// TestHeadOnJobRoutes: the job routes answer HEAD like GET, without a
// body.
func TestHeadOnJobRoutes(t *testing.T) {
	h := newHarness(t, storeURL(t, "sqlite"), Config{})
	id := h.submit(map[string]any{"problem": jobtest.Name, "input": map[string]any{"ms": 0, "value": 1}})
	h.waitTerminal(id)
	for _, path := range []string{"/v1/jobs", "/v1/jobs/" + id, "/v1/jobs/" + id + "/result"} {
		r := h.do("HEAD", path, nil)
		if r.status != http.StatusOK || len(r.body) != 0 || r.header.Get("Content-Type") != "application/json" {
			t.Errorf("HEAD %s: %d %q, %d bytes", path, r.status, r.header.Get("Content-Type"), len(r.body))
		}
	}
}
