package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/problems"
	tetrisassign "github.com/xflex/xflex/solver/tetris/assign"
)

// TestQuickLoad is the harness's small version, run in CI: 16 clients
// (8 per solve slot) post a small tetris/assign snapshot for a second to
// an in-process server with a tight memory budget; every answer must be
// 200 or 503, never another status or a transport error, and some must
// succeed. The full runs (10 MB bodies, 30 s, a real `xflex serve`) are
// made by hand: RESULTS.md.
func TestQuickLoad(t *testing.T) {
	runner, err := solver.NewRunner(problems.All(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := tetrisassign.Generate(1, map[string]string{"machines": "50", "tasks": "500"})
	if err != nil {
		t.Fatal(err)
	}
	body, err := json.Marshal(inst)
	if err != nil {
		t.Fatal(err)
	}
	api := httpapi.New(httpapi.Config{MaxConcurrent: 2, QueueWait: 50 * time.Millisecond,
		MaxInflightBytes: int64(3 * len(body) * httpapi.MemoryPerBodyByte)}, runner, zerolog.Nop())
	srv := httptest.NewServer(api.Handler())
	defer srv.Close()
	res := run(context.Background(), config{url: srv.URL + "/v1/tetris/assign", body: body, clients: 16,
		duration: time.Second, expectContinue: true, ignoreRetryAfter: true})
	for status, n := range res.statuses {
		if status != 200 && status != 503 {
			t.Errorf("%d answers with status %d", n, status)
		}
	}
	if len(res.errors) > 0 {
		t.Errorf("transport errors: %v", res.errors)
	}
	if res.ok == 0 {
		t.Errorf("no request succeeded: %v", res.statuses)
	}
	t.Log(res.row())
}
