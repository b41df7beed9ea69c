package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	benchrepro "github.com/xflex/xflex/benchmarks/repro"
)

func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	scale := fs.String("scale", "small", "small (seconds), full (the issue's sizes) or large (budget only: issue 28's largest instances, part of full)")
	quick := fs.Bool("quick", false, "repro: recompute only the quick claims (CI)")
	out := fs.String("out", "docs", "repro: the directory REPRODUCTION.md and repro/*.svg are written to")
	if len(args) < 1 || isHelp(args[0]) {
		text := fmt.Sprintf("usage: xflex bench PROBLEM [--scale small|full]\n       xflex bench repro [--quick] [--out DIR]\nproblems: %s\n", strings.Join(benchNames(), ", "))
		return usageExit(text, len(args) > 0, stdout, stderr)
	}
	name := args[0]
	if err := fs.Parse(args[1:]); err != nil {
		return flagExit(err)
	}
	if name == "repro" {
		// Regenerates the document rather than printing a table.
		if err := benchrepro.Write(ctx, *out, *quick); err != nil {
			fmt.Fprintf(stderr, "xflex bench repro: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(*out, "REPRODUCTION.md"))
		return 0
	}
	if *scale != "small" && *scale != "full" && (*scale != "large" || name != "budget") {
		fmt.Fprintf(stderr, "xflex bench: --scale must be small or full (or large, for budget)\n")
		return 2
	}
	for _, r := range benchReports() {
		if r.Problem == name {
			if err := r.Run(ctx, stdout, *scale); err != nil {
				fmt.Fprintf(stderr, "xflex bench %s: %v\n", name, err)
				return 1
			}
			return 0
		}
	}
	fmt.Fprint(stderr, unknownReport(name, benchReports()))
	return 2
}

func benchNames() []string {
	var out []string
	for _, r := range benchReports() {
		out = append(out, r.Problem)
	}
	return out
}
