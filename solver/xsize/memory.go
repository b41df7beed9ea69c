package xsize

import "github.com/xflex/xflex/solver"

// Memory estimate (Typed.Memory), in bytes: an upper bound of the peak
// resident memory of a request above an idle process, fitted to `xflex
// solve` (docs/MEMORY.md): 10^6 sampled requests took 1,303 MB with 4
// resources and 788 MB with one (802 MB with 10 distinct sizes instead
// of 1,000); 10^5 with 4 resources 220 MB; 3·10^5 with 2 resources 292
// MB. About 600 bytes a request, 180 a coordinate, and the search over
// the distinct sizes.
const (
	memBase          = 4 << 20
	memPerRequest    = 800
	memPerCoordinate = 200
	memPerDistinct   = 128 << 10
)

// memory estimates the memory a built request needs at its peak.
func memory(b solver.Built[Request, *prepared]) int64 {
	reqs := int64(len(b.Req.Requests))
	dims := int64(len(b.Req.Resources))
	return memBase + memPerRequest*reqs + memPerCoordinate*reqs*dims + memPerDistinct*int64(len(b.In.raw))
}
