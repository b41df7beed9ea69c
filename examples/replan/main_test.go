package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/problems"
)

// server is a real xflex server (every problem) on a local port.
func server(t *testing.T) string {
	t.Helper()
	runner, err := solver.NewRunner(problems.All(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(httpapi.New(httpapi.Config{}, runner, zerolog.Nop()).Handler())
	t.Cleanup(ts.Close)
	return ts.URL
}

// writeState writes the example request, changed by edit, as the state.
func writeState(t *testing.T, file, example string, edit func(map[string]any)) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", example))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(doc)
	}
	if b, err = json.Marshal(doc); err == nil {
		err = os.WriteFile(file, b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestCMMFReplan: the loop's first round places everything, a round on
// the same cluster moves nothing, and a round with one more user moves
// no more machines than replanning from scratch would.
func TestCMMFReplan(t *testing.T) {
	url := server(t)
	state := filepath.Join(t.TempDir(), "cluster.json")
	writeState(t, state, "cmmf.json", nil)
	var out strings.Builder
	args := []string{"--server", url, "--state", state, "--problem", "cmmf", "--rounds", "2", "--every", "1ms"}
	if err := run(context.Background(), args, &out); err != nil {
		t.Fatal(err)
	}
	t.Logf("two rounds on the same cluster:\n%s", out.String())
	if !strings.Contains(out.String(), "round 1: optimal, 0 machines moved\n  ") ||
		!strings.Contains(out.String(), "round 2: optimal, 0 machines moved\n") || strings.Count(out.String(), "\n  ") == 0 {
		t.Fatalf("want round 1 to list the placements and round 2 none:\n%s", out.String())
	}
	round2 := out.String()[strings.Index(out.String(), "round 2"):]
	if strings.Contains(round2, "\n  ") {
		t.Errorf("round 2 on an unchanged cluster moved machines:\n%s", round2)
	}

	// A third round with a new user: the replan moves the fewest machines.
	api, err := (&config{}).apiFor(url)
	if err != nil {
		t.Fatal(err)
	}
	loop := &cmmfLoop{api: api, state: state, out: &out}
	ctx := context.Background()
	if err := loop.round(ctx, 1); err != nil {
		t.Fatal(err)
	}
	before := loop.prev
	writeState(t, state, "cmmf.json", func(doc map[string]any) {
		doc["users"] = append(doc["users"].([]any), map[string]any{"name": "newcomer"})
	})
	out.Reset()
	if err := loop.round(ctx, 2); err != nil {
		t.Fatal(err)
	}
	t.Logf("a new user:\n%s", out.String())
	scratch := &cmmfLoop{api: api, state: state, out: &strings.Builder{}}
	if err := scratch.round(ctx, 1); err != nil {
		t.Fatal(err)
	}
	replanned, fresh := moved(before, loop.prev), moved(before, scratch.prev)
	if replanned <= 0 || replanned > fresh || !strings.Contains(out.String(), "newcomer") {
		t.Errorf("the replan moved %g machines, a solve from scratch %g:\n%s", replanned, fresh, out.String())
	}
}

// moved is how many machines changed user between two allocations.
func moved(prev, next map[string]map[string]float64) float64 {
	total := 0.0
	for _, line := range moves(prev, next) {
		var d float64
		f := strings.Fields(line)
		if err := json.Unmarshal([]byte(strings.TrimPrefix(f[len(f)-1], "+")), &d); err == nil && d > 0 {
			total += d
		}
	}
	return total
}

// TestAssignLoop: X-Schedule rounds print their grants and carry the pair
// contexts the server returned into the next round.
func TestAssignLoop(t *testing.T) {
	url := server(t)
	state := filepath.Join(t.TempDir(), "round.json")
	writeState(t, state, "xschedule-assign.json", nil)
	var out strings.Builder
	args := []string{"--server", url, "--state", state, "--problem", "xschedule-assign", "--rounds", "2", "--every", "1ms"}
	if err := run(context.Background(), args, &out); err != nil {
		t.Fatal(err)
	}
	t.Logf("two rounds:\n%s", out.String())
	if strings.Count(out.String(), "round ") != 2 || !strings.Contains(out.String(), "  grant ") {
		t.Fatalf("want two rounds with grants:\n%s", out.String())
	}
	api, err := (&config{}).apiFor(url)
	if err != nil {
		t.Fatal(err)
	}
	loop := &assignLoop{api: api, state: state, out: &strings.Builder{}}
	if err := loop.round(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if len(loop.pairs) == 0 || loop.pairs[0].A == "" {
		t.Errorf("no pair contexts kept for the next round: %+v", loop.pairs)
	}
}
