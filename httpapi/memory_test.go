package httpapi

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/cmmf"
)

// shortCMMF is a 200-byte cmmf request whose solve needs tens of
// megabytes: Choosy's baseline orders its 5,000,000 machines one by one.
const shortCMMF = `{"divisible":false,"users":[{"name":"a"},{"name":"b"}],"machine_types":[{"name":"t","count":5000000}]}`

// TestSolveReservesItsEstimate: a short cmmf body is charged its solve's
// memory estimate before the solve, not only 10 bytes per body byte.
// With all but 2 MB of a 32 MB budget held elsewhere it gets 503 with
// Retry-After (it was solved, at 2 kB, before the estimate); once the
// memory is free it is solved (its estimate, 42 MB, is above the whole
// budget: it runs alone), and all it reserved is returned. (Checked
// to fail without Typed.Memory's reservation.)
func TestSolveReservesItsEstimate(t *testing.T) {
	runner, err := solver.NewRunner([]solver.Problem{cmmf.Problem()}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	s := New(Config{MaxConcurrent: 2, QueueWait: 20 * time.Millisecond, MaxInflightBytes: 32 << 20}, runner, zerolog.Nop())
	held, err := s.adm.admit(context.Background(), 3<<20) // 30 MB
	if err != nil {
		t.Fatal(err)
	}
	rec := post(t, s.Handler(), "/v1/cmmf", "application/json", shortCMMF)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("got %d (Retry-After %q), want 503 with Retry-After: %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	if p := decodeProblem(t, rec); p.Type != TypeBase+"overloaded" {
		t.Fatalf("problem type %q", p.Type)
	}
	held.release()
	if rec := post(t, s.Handler(), "/v1/cmmf", "application/json", shortCMMF); rec.Code != http.StatusOK {
		t.Fatalf("with the memory free: %d %s", rec.Code, rec.Body)
	}
	if bodies, reserved := s.adm.inflightBytes(); bodies != 0 || reserved != 0 {
		t.Fatalf("after the solves: %d bytes of bodies and %d reserved, want none", bodies, reserved)
	}
}

// TestTopUpsDoNotDeadlock: two short cmmf requests whose estimates each
// need the whole budget, solved at once on two slots, are both answered
// 200, one after the other. (Waiting for the top-up while holding the
// slot and the body's charge, each waited for the other's charge until
// both got 503.)
func TestTopUpsDoNotDeadlock(t *testing.T) {
	runner, err := solver.NewRunner([]solver.Problem{cmmf.Problem()}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	s := New(Config{MaxConcurrent: 2, QueueWait: 5 * time.Second, MaxInflightBytes: 32 << 20}, runner, zerolog.Nop())
	codes := make(chan int, 2)
	for range 2 {
		go func() { codes <- post(t, s.Handler(), "/v1/cmmf", "application/json", shortCMMF).Code }()
	}
	for range 2 {
		if code := <-codes; code != http.StatusOK {
			t.Fatalf("got %d, want 200 for both", code)
		}
	}
}
