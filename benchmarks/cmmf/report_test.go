package cmmf

import (
	"bytes"
	"context"
	"testing"
)

// TestReportSmall runs the report at a tiny scale so the benchmark code
// stays working (timings are printed, never asserted).
func TestReportSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("report runs real solves")
	}
	var buf bytes.Buffer
	if err := Report(context.Background(), &buf, "small"); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + buf.String())
}
