package cmmf

import "github.com/xflex/xflex/solver"

// decode is Problem.Decode, solver.DecodeSonic: the typed decode of a
// 100,000-machine request (22 MB, 21 attributes a machine, decoded into
// maps) took 1.1 s CPU with encoding/json, the largest part of the request
// (benchmarks/cmmf/RESULTS.md).
var decode = solver.DecodeSonic[Request]
