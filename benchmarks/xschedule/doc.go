// Package xschedule benchmarks the X-Schedule decision round
// (solver/xschedule/assign) at the scale: 10,000 containers and 1,000
// pending requests, target under 50 ms. Run it with
// go test -bench . ./benchmarks/xschedule; numbers are in RESULTS.md.
//
// It also reproduces the X-Flex paper's Table 1 (RunTable1, Table1Report,
// `xflex bench xschedule [--scale full]`): three applications with Flex,
// Fair and FIFO application masters (solver/xschedule/master) against DRF
// with every job its own user, over readings of the task durations and
// arrivals the paper does not state.
package xschedule
