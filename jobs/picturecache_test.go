package jobs

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/jobs/jobtest"
	"github.com/xflex/xflex/solver"
)

// countingHarness serves the sleep problem with its picture counted.
func countingHarness(t *testing.T, store string, apiCfg httpapi.Config) (*harness, *atomic.Int64) {
	t.Helper()
	var draws atomic.Int64
	p := jobtest.Problem()
	draw := p.Picture
	p.Picture = func(request, response json.RawMessage) ([]byte, error) {
		draws.Add(1)
		time.Sleep(20 * time.Millisecond) // let concurrent requests overlap the draw
		return draw(request, response)
	}
	if shared := p.PictureShared; shared != nil { // a scenario's variants draw here, twice each
		p.PictureShared = func(request, response json.RawMessage, tops map[string]float64) ([]byte, map[string]float64, error) {
			draws.Add(1)
			time.Sleep(20 * time.Millisecond)
			return shared(request, response, tops)
		}
	}
	set, err := jobtest.Schemas()
	if err != nil {
		t.Fatal(err)
	}
	runner, err := solver.NewRunnerWithSchemas([]solver.Problem{p}, time.Minute, set)
	if err != nil {
		t.Fatal(err)
	}
	return newHarnessWith(t, store, Config{}, runner, apiCfg), &draws
}

// TestJobPictureDrawnOnce: 8 concurrent picture requests for one finished
// scenario, then 8 more, draw each variant once in all (the first draw
// is shared and stored), and every answer is the same picture.
func TestJobPictureDrawnOnce(t *testing.T) {
	forEachStore(t, testJobPictureDrawnOnce)
}

func testJobPictureDrawnOnce(t *testing.T, store string) {
	h, draws := countingHarness(t, store, httpapi.Config{})
	id := h.submit(map[string]any{"problem": jobtest.Name, "input": map[string]any{"ms": 0, "value": 2},
		"variants": []map[string]any{{"name": "three", "patch": map[string]any{"value": 3}}}})
	if j := h.waitTerminal(id); j.State != StateSucceeded {
		t.Fatalf("job %s", j.State)
	}
	before := tenantBytes(t, h)
	var first []byte
	for round := range 2 {
		var wg sync.WaitGroup
		answers := make([]reply, 8)
		for i := range answers {
			wg.Go(func() { answers[i] = h.do("GET", "/v1/jobs/"+id+"/result", nil, "Accept", httpapi.MediaSVG) })
		}
		wg.Wait()
		for i, a := range answers {
			if a.status != http.StatusOK || a.header.Get("Content-Type") != httpapi.MediaSVG {
				t.Fatalf("round %d request %d: %d %s: %s", round, i, a.status, a.header.Get("Content-Type"), a.body)
			}
			if first == nil {
				first = a.body
			}
			if !bytes.Equal(a.body, first) {
				t.Fatalf("round %d request %d: another picture", round, i)
			}
		}
	}
	if n := draws.Load(); n != 4 { // the base and the variant, each in both passes of one shared-scale draw
		t.Fatalf("%d variant pictures drawn for 16 requests, want 4 (one scenario draw: 2 variants x 2 passes)", n)
	}
	if after := tenantBytes(t, h); after-before != int64(len(first)) {
		t.Fatalf("tenant bytes %d -> %d, want the stored picture's %d more", before, after, len(first))
	}
}

// tenantBytes is what the local tenant's byte quota counts now.
func tenantBytes(t *testing.T, h *harness) int64 {
	t.Helper()
	var u usage
	ctx := context.Background()
	if err := h.svc.st.withTx(ctx, func(tx *sql.Tx) error {
		var err error
		u, err = h.svc.st.usageTx(ctx, tx, httpapi.LocalTenant)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return u.TenantBytes
}

// TestJobPictureAdmitted: drawing a picture takes a solve slot like a
// solve: while the only slot is held, a picture request waits the queue
// wait and gets 503 with Retry-After, drawing nothing; once the slot is
// free it is drawn.
func TestJobPictureAdmitted(t *testing.T) {
	h, draws := countingHarness(t, storeURL(t, "sqlite"), httpapi.Config{MaxConcurrent: 1, QueueWait: 50 * time.Millisecond})
	id := h.submit(map[string]any{"problem": jobtest.Name, "input": map[string]any{"ms": 0, "value": 2}})
	if j := h.waitTerminal(id); j.State != StateSucceeded {
		t.Fatalf("job %s", j.State)
	}
	release, err := h.api.Admit(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	r := h.do("GET", "/v1/jobs/"+id+"/result", nil, "Accept", httpapi.MediaSVG)
	if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" || draws.Load() != 0 {
		t.Fatalf("picture while the slot is held: %d Retry-After %q, %d draws: %s; want 503 with Retry-After and no draw",
			r.status, r.header.Get("Retry-After"), draws.Load(), r.body)
	}
	release()
	if r := h.do("GET", "/v1/jobs/"+id+"/result", nil, "Accept", httpapi.MediaSVG); r.status != http.StatusOK || draws.Load() != 1 {
		t.Fatalf("picture once the slot is free: %d, %d draws: %s", r.status, draws.Load(), r.body)
	}
}
