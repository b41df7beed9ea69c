package xschedule

import (
	"context"
	"io"
)

// Report prints the X-Flex paper's Table 1 reproduction (Table1Report):
// scale small runs two readings, full all 24 of RESULTS.md. The
// decision round's speed is measured by the Go benchmarks.
func Report(ctx context.Context, w io.Writer, scale string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := Table1Report(w, scale); err != nil {
		return err
	}
	return Table1SimReport(ctx, w, scale)
}
