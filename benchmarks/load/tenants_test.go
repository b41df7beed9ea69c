package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/schemas"
	"github.com/xflex/xflex/solver"
)

// sleepSchema is the request schema of the measurement's problem: a solve
// that takes a fixed time without using the CPU, so what is measured is
// admission (who gets the slots and the memory), not how busy the
// machine's two cores are.
const sleepSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://xflex.dev/schemas/sleep.request.json",
  "type": "object",
  "additionalProperties": false,
  "properties": {"budget_ms": {"$ref": "common.json#/$defs/budget_ms"}}
}`

// solveTime is how long each sleep solve takes.
const solveTime = 100 * time.Millisecond

// tenantServer is an in-process server whose only problem sleeps for
// solveTime, with the tenant taken from the X-Tenant header (as the auth
// middleware would set it from a token).
func tenantServer(t *testing.T, cfg httpapi.Config) *httptest.Server {
	p := solver.Problem{
		Name: "sleep", RequestSchema: "sleep.request.json", ResponseSchema: "sleep.request.json",
		Solve: func(ctx context.Context, _ json.RawMessage, _ solver.Options) (any, solver.Meta, error) {
			select {
			case <-time.After(solveTime):
			case <-ctx.Done():
			}
			return struct{}{}, solver.Meta{Status: solver.StatusFeasible, Solver: "sleep"}, nil
		},
	}
	set, err := schemas.LoadWith(map[string][]byte{"sleep.request.json": []byte(sleepSchema)})
	if err != nil {
		t.Fatal(err)
	}
	runner, err := solver.NewRunnerWithSchemas([]solver.Problem{p}, time.Minute, set)
	if err != nil {
		t.Fatal(err)
	}
	api := httpapi.New(cfg, runner, zerolog.Nop()).Handler()
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pr := httpapi.Principal{Tenant: r.Header.Get("X-Tenant"), Scopes: httpapi.AllScopes}
		api.ServeHTTP(w, r.WithContext(httpapi.WithPrincipal(r.Context(), pr)))
	}))
}

// tenantStats is what one tenant's clients saw.
type tenantStats struct {
	mu        sync.Mutex
	statuses  map[int]int
	latencies []time.Duration // of the 200s
}

func (s *tenantStats) add(status int, lat time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.statuses[status]++
	if status == http.StatusOK {
		s.latencies = append(s.latencies, lat)
	}
}

// quantile is the q-quantile of the 200s' latencies, in milliseconds.
func (s *tenantStats) quantile(q float64) int64 {
	if len(s.latencies) == 0 {
		return -1
	}
	l := append([]time.Duration(nil), s.latencies...)
	sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
	return l[int(q*float64(len(l)-1))].Milliseconds()
}

// postTenant posts body as tenant and returns the status (0 on a
// transport error) and the latency.
func postTenant(ctx context.Context, url, tenant string, body []byte) (int, time.Duration) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, 0
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Tenant", tenant)
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, time.Since(start)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, time.Since(start)
}

// TestTenantFlood measures, by hand, tenant B's wait while tenant A
// floods the server (issue 16; results in RESULTS.md). Set
// XFLEX_TENANT_LOAD=1 to run it (XFLEX_TENANT_LOAD_DURATION, default 20s,
// per scenario). A's 32 clients resend at once whatever the answer; B's
// one client sends a request, waits 200 ms after the answer, and again.
// Two scenarios: A's bodies small (the slots are short) and A's bodies
// 1 MiB against a 64 MiB budget (the memory is short too: 6 fit).
func TestTenantFlood(t *testing.T) {
	if os.Getenv("XFLEX_TENANT_LOAD") == "" {
		t.Skip("a measurement made by hand: set XFLEX_TENANT_LOAD=1")
	}
	d := 20 * time.Second
	if s := os.Getenv("XFLEX_TENANT_LOAD_DURATION"); s != "" {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			t.Fatal(err)
		}
	}
	t.Log("| scenario | A OK/s | A statuses | B requests | B statuses | B p50 | B p90 | B max |")
	for _, sc := range []struct {
		name  string
		aBody int
	}{{"slots short", 1 << 10}, {"memory short", 1 << 20}} {
		srv := tenantServer(t, httpapi.Config{MaxConcurrent: 2, QueueWait: time.Second, MaxInflightBytes: 64 << 20})
		a, b := flood(srv.URL+"/v1/sleep", sc.aBody, d)
		srv.Close()
		t.Logf("| %s | %.1f | %v | %d | %v | %d | %d | %d |", sc.name, float64(a.statuses[200])/d.Seconds(),
			a.statuses, len(b.latencies)+b.statuses[503], b.statuses, b.quantile(0.5), b.quantile(0.9), b.quantile(1))
	}
}

// flood runs A's 32 clients and B's one for d and returns what each saw.
func flood(url string, aBody int, d time.Duration) (a, b *tenantStats) {
	a, b = &tenantStats{statuses: map[int]int{}}, &tenantStats{statuses: map[int]int{}}
	pad := func(n int) []byte { return []byte("{" + strings.Repeat(" ", n-2) + "}") }
	aReq, bReq := pad(aBody), pad(64)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if st, lat := postTenant(ctx, url, "A", aReq); ctx.Err() == nil {
					a.add(st, lat)
				}
			}
		}()
	}
	time.Sleep(time.Second) // A's flood is under way before B starts
	for ctx.Err() == nil {
		if st, lat := postTenant(ctx, url, "B", bReq); ctx.Err() == nil {
			b.add(st, lat)
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
	wg.Wait()
	return a, b
}
