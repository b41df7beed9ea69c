package plan

import (
	"math"

	"github.com/xflex/xflex/solver"
)

// Memory estimate (docs/MEMORY.md): the plan holds every stage's request
// and answer at once and runs one stage at a time, so its peak is a fixed
// part, one per node (the node list is in X-Select's request and answer
// and in the simulation's placement and packing, about six copies of a
// few hundred bytes each, and in X-Select's model) and one per trace
// request: the simulation's own estimate (xschedule/simulate's memory.go:
// 128 KB an ask for what it records, up to 320 MB, and 640 bytes a
// container asked) and the copies of its answer the plan keeps (the
// endpoint's bytes, the plan's, and the summary's decoding: about 2 KB a
// request).
const (
	memBase         = 32 << 20
	memPerNode      = 24 << 10
	memPerItem      = 4 << 10
	memRecordPerAsk = 128 << 10
	memRecordCap    = 320 << 20
	memPerContainer = 640
	memPerRequest   = 2 << 10
	// maxAsked caps the containers counted, so the products cannot
	// overflow.
	maxAsked = 1 << 40
)

// memory estimates a plan's peak bytes from its sizes.
func memory(b solver.Built[Request, *checked]) int64 {
	p := b.In
	requests, asked := int64(len(p.req.Trace.Requests)), int64(0)
	for _, a := range p.req.Trace.Requests {
		asked += int64(a.Count)
	}
	if requests == 0 {
		// Build refused a mean above twice the limit; the generator
		// refuses more than the limit, and below it a Poisson count
		// rarely exceeds its mean by six deviations.
		mean := p.expectedRequests()
		requests = min(int64(p.maxRequests()), int64(mean+6*math.Sqrt(mean))+16)
		asked = requests
	}
	asked = min(asked, maxAsked)
	sim := min(memRecordPerAsk*requests, memRecordCap) + memPerContainer*asked + memPerRequest*requests
	return memBase + memPerNode*int64(p.count) + memPerItem*int64(len(p.items)) + sim
}
