//go:build nobench

package main

import "github.com/xflex/xflex/benchmarks"

// benchReports is empty in a binary built with -tags nobench (see
// reports.go): `xflex bench` then names the build tag instead of a report.
func benchReports() []benchmarks.Report { return nil }
