package fairshare

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/xflex/xflex/solver/solvertest"
)

func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.json")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	for _, fn := range files {
		t.Run(filepath.Base(fn), func(t *testing.T) {
			raw, err := os.ReadFile(fn)
			if err != nil {
				t.Fatal(err)
			}
			out := solvertest.Check(t, Problem(), raw)
			if testing.Verbose() {
				b, _ := os.ReadFile(fn)
				_ = b
				t.Logf("%v", out["meta"])
			}
		})
	}
}
