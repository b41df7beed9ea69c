package cmmf

import (
	"bytes"
	"context"
	"testing"
)

// TestReportTiny runs the report on a tiny size so the benchmark code
// stays working, including its flow-versus-LP agreement check (timings are
// printed, never asserted).
func TestReportTiny(t *testing.T) {
	var buf bytes.Buffer
	if err := report(context.Background(), &buf, []Size{{50, 10, 1000}}, 2); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + buf.String())
}
