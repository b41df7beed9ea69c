// Package xschedule benchmarks the X-Schedule decision round
// (solver/xschedule/assign) at the scale: 10,000 containers and 1,000
// pending requests, target under 50 ms. Run it with
// go test -bench . ./benchmarks/xschedule; numbers are in RESULTS.md.
package xschedule
