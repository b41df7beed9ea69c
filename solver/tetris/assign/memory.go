package assign

import "github.com/xflex/xflex/solver"

// Memory estimate (Typed.Memory), in bytes: an upper bound of the peak
// resident memory of a request above an idle process, fitted to `xflex
// solve` (docs/MEMORY.md): 40,000 tasks on 5,000 machines took 196 MB,
// on 500 machines 212 MB; 10,000 tasks on 1,000 machines 48 MB; 4,000
// on 5,000 37 MB. A body is charged about 10 bytes a byte before it is
// read; these requests took 24 to 36.
const (
	memBase       = 16 << 20
	memPerTask    = 6 << 10
	memPerMachine = 4 << 10
)

// memory estimates the memory a built request needs at its peak.
func memory(b solver.Built[Request, *Instance]) int64 {
	return memBase + memPerTask*int64(len(b.Req.Tasks)) + memPerMachine*int64(len(b.Req.Machines))
}
