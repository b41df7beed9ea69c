package assign

import "github.com/xflex/xflex/solver"

// Memory estimate (Typed.Memory), in bytes: an upper bound of the peak
// resident memory of a request above an idle process, fitted to `xflex
// solve` (docs/MEMORY.md): 50,000 nodes of 4 containers with 50,000
// requests took 616 MB, with 5,000 requests 498 MB; 5,000 nodes with
// 50,000 requests 222 MB; 10,000 with 10,000 129 MB. Containers are
// counted as built, so a placement's mix counts (up to maxContainers
// from a short body) are charged too.
const (
	memBase         = 4 << 20
	memPerNode      = 2 << 10
	memPerContainer = 2560
	memPerAsk       = 4 << 10
)

// memory estimates the memory a built request needs at its peak.
func memory(b solver.Built[Request, *Model]) int64 {
	m := b.In
	return memBase + memPerNode*int64(len(m.nodes)) + memPerContainer*int64(len(m.conts)) + memPerAsk*int64(len(m.asks))
}
