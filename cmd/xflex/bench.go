package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/xflex/xflex/benchmarks"
)

func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runBench(ctx, benchReports(), args, stdout, stderr)
}

// noBenchMessage is what `xflex bench` says in a binary built without the
// reports (-tags nobench).
const noBenchMessage = "xflex bench: this binary was built with -tags nobench and has no reports; build it without that tag (go build ./cmd/xflex) to run them\n"

// runBench is cmdBench over the given reports.
func runBench(ctx context.Context, reports []benchmarks.Report, args []string, stdout, stderr io.Writer) int {
	if len(reports) == 0 {
		fmt.Fprint(stderr, noBenchMessage)
		return 2
	}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	scale := fs.String("scale", "small", "small (seconds) or full (the issue's sizes)")
	if len(args) < 1 || isHelp(args[0]) {
		text := fmt.Sprintf("usage: xflex bench PROBLEM [--scale small|full]\nproblems: %s\n", strings.Join(benchNames(reports), ", "))
		return usageExit(text, len(args) > 0, stdout, stderr)
	}
	name := args[0]
	if err := fs.Parse(args[1:]); err != nil {
		return flagExit(err)
	}
	if *scale != "small" && *scale != "full" {
		fmt.Fprintf(stderr, "xflex bench: --scale must be small or full\n")
		return 2
	}
	for _, r := range reports {
		if r.Problem == name {
			if err := r.Run(ctx, stdout, *scale); err != nil {
				fmt.Fprintf(stderr, "xflex bench %s: %v\n", name, err)
				return 1
			}
			return 0
		}
	}
	fmt.Fprintf(stderr, "xflex bench: no report for %q; have: %s\n", name, strings.Join(benchNames(reports), ", "))
	return 2
}

// benchNames lists the reports' names.
func benchNames(reports []benchmarks.Report) []string {
	var out []string
	for _, r := range reports {
		out = append(out, r.Problem)
	}
	return out
}
