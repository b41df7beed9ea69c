package jobs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"
	"github.com/rs/zerolog"

	"github.com/xflex/xflex/jobs/jobtest"
)

// bigSleep is a sleep job whose input takes about n bytes.
func bigSleep(n int) map[string]any {
	nodes := make([]map[string]any, 0, n/40)
	for i := range n / 40 {
		nodes = append(nodes, map[string]any{"name": fmt.Sprintf("node-%06d", i), "cap": 1})
	}
	return map[string]any{"problem": jobtest.Name, "input": map[string]any{"ms": 0, "value": 1, "nodes": nodes}}
}

// ready polls /readyz until it answers want.
func (h *harness) ready(want int) reply {
	h.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		r := h.do("GET", "/readyz", nil)
		if r.status == want {
			return r
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("/readyz still %d after %s, want %d: %s", r.status, waitLimit, want, r.body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// wantStoreFull submits body and checks the answer is a 503 store_full
// problem with a Retry-After.
func (h *harness) wantStoreFull(body any) {
	h.t.Helper()
	r := h.do("POST", "/v1/jobs", body)
	if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" ||
		!strings.Contains(string(r.body), `"type":"https://xflex.dev/problems/store_full"`) {
		h.t.Fatalf("submit to a full store: %d Retry-After %q: %s; want 503 store_full with Retry-After",
			r.status, r.header.Get("Retry-After"), r.body)
	}
}

// TestFullStoreRefusesAndRecovers fills a SQLite store the way SQLite sees
// a full disk (PRAGMA max_page_count at the pages it has: every write
// that needs a page fails with SQLITE_FULL): a submission gets 503
// store_full with Retry-After, not 500; /readyz says not ready; once the
// limit is lifted /readyz is ready again, submissions are accepted and
// jobs run, the one queued before the fault included.
func TestFullStoreRefusesAndRecovers(t *testing.T) {
	h := newHarness(t, storeURL(t, "sqlite"), Config{})
	h.ready(http.StatusOK)
	before := h.submit(map[string]any{"problem": jobtest.Name, "input": map[string]any{"ms": 50, "value": 2}})
	ctx := context.Background()
	var pages int64
	if _, err := h.svc.db.ExecContext(ctx, `VACUUM`); err != nil { // no free pages left to reuse
		t.Fatal(err)
	}
	if err := h.svc.db.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.db.ExecContext(ctx, fmt.Sprintf(`PRAGMA max_page_count = %d`, pages)); err != nil {
		t.Fatal(err)
	}
	h.wantStoreFull(bigSleep(200 << 10))
	r := h.ready(http.StatusServiceUnavailable)
	if !strings.Contains(string(r.body), "job_store") {
		t.Fatalf("/readyz while full: %s; want it to name the job store", r.body)
	}
	if _, err := h.svc.db.ExecContext(ctx, `PRAGMA max_page_count = 1073741823`); err != nil {
		t.Fatal(err)
	}
	h.ready(http.StatusOK)
	after := h.submit(bigSleep(200 << 10))
	for _, id := range []string{before, after} {
		if j := h.waitTerminal(id); j.State != StateSucceeded {
			t.Fatalf("job %s: %s %+v", id, j.State, j.Error)
		}
	}
}

// TestFullDiskRefusesAndRecovers is the same on a real full file system:
// a 4 MiB tmpfs holding the store, filled by another file. It needs root
// (mount) and is skipped without.
func TestFullDiskRefusesAndRecovers(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (needs root): %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	h := newHarness(t, "sqlite:"+filepath.Join(dir, "jobs.db"), Config{StoreMinFree: 256 << 10})
	h.ready(http.StatusOK)
	queued := h.submit(map[string]any{"problem": jobtest.Name, "input": map[string]any{"ms": 20, "value": 2}})
	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	_ = f.Close()
	h.wantStoreFull(bigSleep(600 << 10))
	h.ready(http.StatusServiceUnavailable)
	if err := os.Remove(filler); err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	h.ready(http.StatusOK)
	after := h.submit(bigSleep(600 << 10))
	for _, id := range []string{queued, after} {
		if j := h.waitTerminal(id); j.State != StateSucceeded {
			t.Fatalf("job %s: %s %+v", id, j.State, j.Error)
		}
	}
}

// TestReadyProbe: on either store the write probe passes on a healthy
// store, so /readyz says ready.
func TestReadyProbe(t *testing.T) {
	forEachStore(t, func(t *testing.T, store string) {
		h := newHarness(t, store, Config{})
		if err := h.svc.probeStore(context.Background()); err != nil {
			t.Fatal(err)
		}
		h.ready(http.StatusOK)
	})
}

// TestStoreFaultSnoozes: a worker attempt that failed for a store fault
// is snoozed (not counted, tried again), any other error passes through.
func TestStoreFaultSnoozes(t *testing.T) {
	svc := &Service{log: zerolog.Nop(), health: &storeHealth{}}
	err := svc.snoozeOnStoreFault("j", fmt.Errorf("claim: %w", syscall.ENOSPC))
	var snooze *rivertype.JobSnoozeError
	if !errors.As(err, &snooze) || snooze.Duration != storeFaultSnooze {
		t.Fatalf("ENOSPC: %v, want a snooze of %s", err, storeFaultSnooze)
	}
	other := errors.New("bug")
	if err := svc.snoozeOnStoreFault("j", other); err != other {
		t.Fatalf("other error: %v, want it unchanged", err)
	}
	for err, want := range map[error]string{
		fmt.Errorf("x: %w", syscall.ENOSPC):               faultFull,
		fmt.Errorf("x: %w", syscall.EDQUOT):               faultFull,
		fmt.Errorf("x: %w", syscall.EROFS):                faultUnavailable,
		errors.New("syntax error"):                        "",
		fmt.Errorf("begin: %w", context.DeadlineExceeded): "",
		nil: "",
	} {
		if got := storeFault(err); got != want {
			t.Errorf("storeFault(%v) = %q, want %q", err, got, want)
		}
	}
}
