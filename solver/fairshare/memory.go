package fairshare

import "github.com/xflex/xflex/solver"

// Memory estimate (Typed.Memory), in bytes: an upper bound of the peak
// resident memory of a request above an idle process, fitted to `xflex
// solve` (docs/MEMORY.md). Progressive filling (and the rounding of the
// exact policies' optima) simulates every server copy, up to maxCopies:
// a copy costs its residual capacities (8 bytes a resource) and about
// 100 bytes of bookkeeping; measured 116 B a copy with one resource, 141
// with two, 596 with 64 (a 1.4 kB body took 600 MB). Every (framework,
// server entry) pair is charged memPerPair for the solve's per-pair state
// (the filler's dense δ rows, per-group framework lists, the exact
// policies' variables): fitted when build still made dense δ and utility
// rows, 9 bytes a pair (5,000 × 5,000 pairs from a 444 kB body took 265
// MB; 21 MB since the rows are sparse), and kept, as that state was not
// measured apart; every server a
// framework lists by name (servers, utility) its decoded forms, about
// 300 bytes measured on 200 frameworks listing 885,000 names.
const (
	memBase            = 4 << 20
	memPerCopy         = 160
	memPerCopyResource = 10
	memPerPair         = 16
	memPerListed       = 450
)

// memory estimates the memory a built request needs at its peak.
func memory(b solver.Built[Request, *instance]) int64 {
	in := b.In
	copies := int64(0)
	for _, s := range in.servers {
		copies += int64(s.count)
	}
	if copies > maxCopies {
		copies = 0 // no copy is simulated: newFiller refuses the request
	}
	listed := int64(0)
	for _, f := range b.Req.Frameworks {
		listed += int64(len(f.Servers) + len(f.Utility))
	}
	pairs := int64(len(in.fws)) * int64(len(in.servers))
	return memBase + copies*(memPerCopy+memPerCopyResource*int64(len(in.resources))) +
		pairs*memPerPair + listed*memPerListed
}
