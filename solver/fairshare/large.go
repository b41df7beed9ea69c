package fairshare

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/xflex/xflex/solver"
)

// quickNote describes quickShare's allocation in meta.notes.
const quickNote = "each framework on one server it can use, each server's capacity split evenly among the frameworks sent there"

// quickWhyNot says why unsolved gave the empty allocation rather than
// quickShare's (roomy: the budget had room for quickShare).
func quickWhyNot(p params, roomy bool) string {
	switch {
	case p.integer:
		return " (integer requests get no quick allocation: whole tasks do not split evenly over a server's copies)"
	case !roomy:
		return fmt.Sprintf(" (too little of the budget was left for a quick allocation, about %v a framework)", quickPerFramework)
	}
	return fmt.Sprintf(" (no quick allocation: some framework can use a server, but none of the first %d it tried)", quickScan)
}

// Cost of the exact policies' first answer, for tooLarge. The LP of
// max-min fairness (and of efficiency) has a row per framework, and
// CLP's time on it grows about as the square of the frameworks: 1,000
// frameworks × 50 server types solve (every level) in 1.1 s
// (benchmarks/fairshare), 10,000 took 68 s for their first level on the
// 2-core machine at load 10, and 100,000 did not end their first LP in
// 34 s although CLP was given 1.4 s: CLP checks its time limit between
// iterations, and one iteration of an LP that size is already seconds,
// so the budget cannot stop it. exactFirstLevel is the first level's
// time at exactCostFrameworks frameworks, below the measured ones so
// that tooLarge skips only LPs that cannot end in the budget.
const (
	exactFirstLevel     = 500 * time.Millisecond
	exactCostFrameworks = 1000
)

// exactCost predicts the wall time before an exact LP policy (mmf,
// efficiency) has its first answer on n frameworks: exactFirstLevel ×
// (n / exactCostFrameworks)². pf is not predicted (0): its interior-point
// method checks the budget between steps and stops on time.
func exactCost(policy string, n int) time.Duration {
	if policy == PolicyPF {
		return 0
	}
	r := float64(n) / exactCostFrameworks
	return time.Duration(math.Min(float64(exactFirstLevel)*r*r, math.MaxInt64/2))
}

// tooLarge is why an exact policy is not started on in within ctx's
// deadline ("" when it is started): its LP's first answer is predicted
// to take longer than the time left (exactCost), and the LP could not be
// stopped when the budget ends. The answer is then quickShare's at once
// rather than an empty one seconds late (issue 28: mmf at 100,000 ×
// 100,000 with 2 s took 8–10 s and answered objective 0).
func (in *instance) tooLarge(ctx context.Context, p params) string {
	dl, ok := ctx.Deadline()
	if !ok {
		return ""
	}
	need, left := exactCost(p.policy, len(in.fws)), time.Until(dl)
	if need <= left || left <= 0 {
		return "" // a spent budget stops the model's build at once
	}
	return fmt.Sprintf("the exact %s LP was not started: on %d frameworks its first answer is expected to take about %.0f s (about the square of the frameworks; CLP cannot stop midway through an LP this size), more than the %d ms left of the budget",
		p.policy, len(in.fws), need.Seconds(), left.Milliseconds())
}

// orQuick is the answer of an exact policy cut by its budget: its own
// allocation a (objective obj), or quickShare's when that is better (an
// LP stopped before its first level leaves every framework at zero; pf
// stopped before its first step, at -Inf). The bound meta holds stays:
// it bounds every allocation. quickShare costs about 0.5 µs a framework
// of CPU, 50 ms at 100,000, spent only on a timeout.
func (in *instance) orQuick(p params, a alloc, obj float64, meta *solver.Meta) (alloc, float64) {
	q, inert, ok := in.quickShare(p)
	if !ok {
		return a, obj
	}
	qobj := (&model{in: in, inert: inert}).objectiveOf(p, q)
	if !(qobj > obj) && !math.IsNaN(obj) {
		return a, obj
	}
	meta.Notes = append(meta.Notes, "the budget ran out before the exact solve's allocation beat a quick feasible one; the allocation is the quick one: "+quickNote)
	return q, qobj
}
