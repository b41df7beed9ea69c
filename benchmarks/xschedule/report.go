package xschedule

import (
	"context"
	"io"
)

// Report prints the X-Flex paper's Table 1 reproduction (Table1Report):
// scale small runs two readings, full all 24 of RESULTS.md; the same
// through the X-Schedule simulator with and without sharing
// (Table1SimReport); and the bursty/light workload where sharing helps
// (BurstyReport). The decision round's speed is measured by the Go
// benchmarks.
func Report(ctx context.Context, w io.Writer, scale string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := Table1Report(w, scale); err != nil {
		return err
	}
	if err := Table1SimReport(ctx, w, scale); err != nil {
		return err
	}
	return BurstyReport(ctx, w)
}
