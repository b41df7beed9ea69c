package plan

import (
	"math"

	"github.com/xflex/xflex/solver"
)

// Memory estimate (docs/MEMORY.md): the plan holds every stage's request
// and answer at once and the largest stage's working set, so its
// estimate is a fixed part plus one per node (X-Select's model and
// packing, written into X-Select's answer and again into the
// simulation's placement and packing) and one per trace request (the
// simulation's two runs record every request and its events, and the
// plan embeds that answer). The per-item charges are generous upper
// readings of the stages' own estimates: xselect about 6 KB a node with
// its answer, xschedule/simulate about 4 KB a request over both runs.
const (
	memBase       = 32 << 20
	memPerNode    = 24 << 10
	memPerRequest = 12 << 10
	memPerItem    = 4 << 10
)

// memory estimates a plan's peak bytes from its sizes.
func memory(b solver.Built[Request, *checked]) int64 {
	p := b.In
	requests := int64(len(p.req.Trace.Requests))
	if requests == 0 && p.req.Trace.Horizon != nil {
		requests = int64(DefaultMaxRequests)
		if m := p.req.Trace.MaxRequests; m != nil {
			requests = int64(*m)
		}
		var rate float64
		for _, it := range p.items {
			if it.Rate != nil {
				rate += *it.Rate
			}
		}
		// The generator refuses more than max_requests; below that a
		// Poisson count rarely exceeds its mean by six deviations.
		mean := rate * *p.req.Trace.Horizon
		requests = min(requests, int64(mean+6*math.Sqrt(mean))+16)
	}
	return memBase + memPerNode*int64(p.count) + memPerRequest*requests + memPerItem*int64(len(p.items))
}
