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
