package flex

import "github.com/xflex/xflex/solver"

// Memory estimate (Typed.Memory), in bytes: an upper bound of the peak
// resident memory of a request above an idle process, fitted to `xflex
// solve` (docs/MEMORY.md): 500 jobs took 12 MB, 5,000 36 MB, 20,000 78
// MB, 50,000 165 MB and 100,000 264 MB (on 100,000 slots; 50,000 jobs on
// 1,000 slots 123 MB), 50 to 150 times the body.
const (
	memBase   = 24 << 20
	memPerJob = 4 << 10
)

// memory estimates the memory a built request needs at its peak.
func memory(b solver.Built[Request, *Instance]) int64 {
	return memBase + memPerJob*int64(len(b.Req.Jobs))
}
