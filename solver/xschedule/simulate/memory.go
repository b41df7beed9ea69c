package simulate

import "github.com/xflex/xflex/solver"

// Memory estimate (Typed.Memory), in bytes: an upper bound of the peak
// resident memory of a request above an idle process, fitted to `xflex
// solve` (docs/MEMORY.md). Memory grows with the containers the trace
// and the masters ask for, not with the body: a 1.4 kB trace asking for
// 10^6 containers took 570 MB, of which about 600 bytes a container; the
// events and series recorded while they run add up to a plateau of about
// 220 MB, reached already by 40 asks of up to 100 containers on 32.
// Each request of the trace also costs its decoded forms (document,
// request, the assign model's ask, the sorted trace) whatever it asks
// for: issue 28's 100,000 requests (13.4 MB, 200,000 containers) peaked
// at 761 MB above idle in 10 s against 446 estimated, about 3.2 kB a
// request more; memPerRequest charges 4 kB.
const (
	memBase         = 4 << 20
	memPerRequest   = 4 << 10
	memPerContainer = 640
	memRecordPerAsk = 128 << 10
	memRecordCap    = 320 << 20
	// maxAsked caps the count, far above what any budget simulates, so
	// the products below cannot overflow.
	maxAsked = 1 << 40
)

// memory estimates the memory a built request needs at its peak.
func memory(b solver.Built[Request, *Instance]) int64 {
	asked := int64(0)
	for _, a := range b.Req.Requests {
		asked += int64(a.Count)
	}
	for _, m := range b.Req.Masters {
		for _, j := range m.Jobs {
			asked += int64(j.Tasks)
		}
	}
	asked = min(asked, maxAsked)
	record := min(memRecordPerAsk*asked, memRecordCap)
	return memBase + record + memPerContainer*asked + memPerRequest*int64(len(b.Req.Requests))
}
