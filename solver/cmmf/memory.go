package cmmf

import "github.com/xflex/xflex/solver"

// Memory estimate (Typed.Memory), in bytes: an upper bound of the peak
// resident memory of a request above an idle process, fitted to `xflex
// solve` on the generator's large instances (docs/MEMORY.md): 5,000 users
// × 100 types of 100,000 listed machines peaked 700 MB above idle,
// 50,000 users × 1,000 types of 10^6 machines 400 MB (up to 650 MB on a
// long budget), 100,000 users × 20 types 540 MB. A user costs its
// decoded and built forms, the flow network's nodes and its answer; an
// allowed (user, type) pair an arc; a listed machine its decoded
// attributes and its line of the answer; a counted machine, up to
// ChoosyMaxMachines, its place in Choosy's order.
const (
	memBase       = 4 << 20
	memPerUser    = 8 << 10
	memPerEdge    = 16
	memPerMachine = 10 << 10
	memPerCounted = 8
	memPerCurrent = 16 // a cell of the users × types current allocation
)

// memory estimates the memory a built request needs at its peak.
func memory(b solver.Built[Request, *Instance]) int64 {
	in := b.In
	users, types := int64(len(in.Users)), int64(len(in.Types))
	n := memBase + memPerUser*users
	for _, u := range in.Users {
		n += memPerEdge * int64(len(u.Allowed))
	}
	for _, t := range in.Types {
		n += memPerMachine * int64(len(t.Machines))
	}
	if c := machineCount(in); c <= ChoosyMaxMachines {
		n += memPerCounted * int64(c)
	}
	if in.Current != nil {
		n += memPerCurrent * users * types
	}
	return n
}
