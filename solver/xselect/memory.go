package xselect

import "github.com/xflex/xflex/solver"

// Memory estimate (Typed.Memory), in bytes: an upper bound of the peak
// resident memory of a request above an idle process, fitted to `xflex
// solve` (docs/MEMORY.md): 10,000 nodes and 100 applications took 160
// MB, with 10 applications 76 MB; 50,000 nodes and 10 applications 236
// MB; 2,000 nodes and 1,000 applications 236 MB; 1,000 and 100 36 MB:
// about 3 kB a node and 100 bytes a (node, application) pair, 10 to 190
// times the body.
const (
	memBase    = 24 << 20
	memPerNode = 5 << 10
	memPerPair = 160
)

// memory estimates the memory a built request needs at its peak.
func memory(b solver.Built[Request, *model]) int64 {
	nodes := int64(len(b.Req.Nodes))
	return memBase + memPerNode*nodes + memPerPair*nodes*int64(len(b.Req.Apps))
}
