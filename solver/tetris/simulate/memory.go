package simulate

import "github.com/xflex/xflex/solver"

// Memory estimate (Typed.Memory), in bytes: an upper bound of the peak
// resident memory of a request above an idle process, fitted to `xflex
// solve` (docs/MEMORY.md). A 213-byte trace of one stage of 10^6 tasks
// took 220 MB, the same as 2·10^6 tasks (MaxTasks) or the generator's
// 236,651 tasks of 200 jobs on 200 machines (213 MB): memory grows with
// the tasks up to a plateau, about a kilobyte a task below it.
const (
	memBase    = 4 << 20
	memPerTask = 2 << 10
	memCap     = 320 << 20
)

// memory estimates the memory a built request needs at its peak.
func memory(b solver.Built[Request, *Instance]) int64 {
	tasks := int64(0)
	for _, j := range b.Req.Jobs {
		for _, s := range j.Stages {
			tasks += int64(s.Tasks)
		}
	}
	return memBase + min(memPerTask*tasks, memCap)
}
