package lp

import "math"

// Gap is the relative gap |Objective − Bound| / max(1, |Objective|) of an
// Optimal or Feasible solution (0 for a proven LP optimum), and NaN for the
// other statuses or an infinite bound. The max(1, ·) keeps it meaningful for
// objectives near zero.
func (s *Solution) Gap() float64 {
	if s == nil || (s.Status != Optimal && s.Status != Feasible) || math.IsNaN(s.Bound) || math.IsInf(s.Bound, 0) {
		return math.NaN()
	}
	return math.Abs(s.Objective-s.Bound) / math.Max(1, math.Abs(s.Objective))
}
