package lp

import (
	"compress/gzip"
	"context"
	"encoding/gob"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// clpAbortChild names the environment variable that makes
// TestCLPScalingNoAbort solve the instance itself: it runs in a child
// process, so that an abort fails the test instead of killing go test.
const clpAbortChild = "XFLEX_LP_CLP_ABORT_CHILD"

// TestCLPScalingNoAbort solves the LP on which CLP with its default
// (geometric) scaling aborted the process (see clpScaling): xselect's bound
// relaxation for 100,000 nodes and 1,000 applications, row and column names
// stripped. It fails before clpScaling was set (checked: the child dies on
// "Assertion `elValue' failed").
func TestCLPScalingNoAbort(t *testing.T) {
	if !coinAvailable() {
		t.Skip("built without cgo")
	}
	if os.Getenv(clpAbortChild) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCLPScalingNoAbort$", "-test.v")
		cmd.Env = append(os.Environ(), clpAbortChild+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestCLPScalingNoAbort") {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return
	}
	f, err := os.Open("testdata/clp_scaling_abort.gob.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var m Model
	if err := gob.NewDecoder(z).Decode(&m); err != nil {
		t.Fatal(err)
	}
	sol, err := Solve(context.Background(), &m, Options{Backend: BackendCoin})
	if err != nil {
		t.Fatal(err)
	}
	// The optimum CLP reaches without scaling (and Verify accepts).
	if sol.Status != Optimal || math.Abs(sol.Objective-68.22186910112046) > 1e-6 {
		t.Fatalf("status %v objective %.12g, want optimal 68.2218691011", sol.Status, sol.Objective)
	}
}
