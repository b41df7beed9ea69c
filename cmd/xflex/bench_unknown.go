package main

import (
	"fmt"
	"strings"

	"github.com/xflex/xflex/benchmarks"
)

// unknownReport is what `xflex bench NAME` says when no report is named
// NAME: the reports there are, or, in a binary built with -tags nobench
// (which has none, see reports.go), how to get them.
func unknownReport(name string, reports []benchmarks.Report) string {
	if len(reports) == 0 {
		return "xflex bench: this binary was built with -tags nobench and has no reports; build it without that tag (go build ./cmd/xflex) to run them\n"
	}
	names := make([]string, len(reports))
	for i, r := range reports {
		names[i] = r.Problem
	}
	return fmt.Sprintf("xflex bench: no report for %q%s; have: %s\n", name, didYouMean(name, names), strings.Join(names, ", "))
}
