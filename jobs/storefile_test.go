package jobs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/xflex/xflex/jobs/jobtest"
)

// TestEmptyStoreFileRefused: a store path naming an existing 0-byte file
// (a truncated store) is refused with a message saying so and naming the
// flag, and is left as it was; with AllowEmptyStore (--store-allow-empty)
// it is opened as a new store. A missing file is still created.
func TestEmptyStoreFileRefused(t *testing.T) {
	runner, err := jobtest.Runner(time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, err = Open(ctx, Config{Store: "sqlite:" + empty}, runner, zerolog.Nop())
	if err == nil || !strings.Contains(err.Error(), "0-byte") || !strings.Contains(err.Error(), "--store-allow-empty") {
		t.Fatalf("0-byte store file: %v; want a refusal naming --store-allow-empty", err)
	}
	if info, err := os.Stat(empty); err != nil || info.Size() != 0 {
		t.Fatalf("refused file changed: %v %v", info, err)
	}
	for _, c := range []Config{
		{Store: "sqlite:" + empty, AllowEmptyStore: true},
		{Store: "sqlite:" + filepath.Join(dir, "missing.db")},
	} {
		svc, err := Open(ctx, c, runner, zerolog.Nop())
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		_ = svc.db.Close()
	}
}
