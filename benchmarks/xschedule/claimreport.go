package xschedule

import (
	"context"
	"fmt"
	"io"
	"slices"
)

// ClaimRatio is the paper's "32% more successful container requests
// than DRF" as a ratio.
const ClaimRatio = 1.32

// ClaimResult is one workload of the 32% experiment, summed over its
// seeded streams: requests asked, X-Schedule's successes (granted −
// preempted) and each baseline's (SweepBaselines order).
type ClaimResult struct {
	Name     string
	Lambda   float64
	Asked    int
	XSuccess int
	Base     []int
}

// claimSeeds is how many seeded streams a workload sums.
const claimSeeds = 5

// RunClaims runs every workload of claimWorkloads (quick: the first
// fill and the bursts).
func RunClaims(ctx context.Context, quick bool) ([]ClaimResult, error) {
	var out []ClaimResult
	for _, w := range claimWorkloads {
		if quick && !ClaimQuick(w.name) {
			continue
		}
		r := ClaimResult{Name: w.name, Base: make([]int, len(SweepBaselines))}
		for seed := range uint64(claimSeeds) {
			s := w.s
			s.seed = seed
			if !s.fill && s.burst == 0 {
				s.seed = seed + 1
			}
			o, err := runClaim(ctx, s)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", w.name, err)
			}
			r.Lambda = o.lambda
			r.Asked += o.asked
			r.XSuccess += o.xSuccess
			for b, n := range o.baseSuccess {
				r.Base[b] += n
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// ClaimQuick says whether the workload of that name runs in quick mode:
// the first fill (the paper's setting) and the two bursts.
func ClaimQuick(name string) bool {
	i := slices.IndexFunc(claimWorkloads, func(w claimWorkload) bool { return w.name == name })
	return i == 0 || i >= len(claimWorkloads)-2
}

// Ratio is X-Schedule's successes over baseline b's.
func (r ClaimResult) Ratio(b int) float64 { return float64(r.XSuccess) / float64(r.Base[b]) }

// Ceiling is the largest ratio any scheduler could show against
// baseline b: every request asked granted, over b's successes.
func (r ClaimResult) Ceiling(b int) float64 { return float64(r.Asked) / float64(r.Base[b]) }

// Verdict is the claim's verdict against baseline b: reproduced when
// the ratio reaches 1.32, undetermined when even the ceiling is below
// it (the workload cannot show the claim), refuted otherwise.
func (r ClaimResult) Verdict(b int) string {
	switch {
	case r.Ratio(b) >= ClaimRatio:
		return "reproduced"
	case r.Ceiling(b) < ClaimRatio:
		return "undetermined"
	}
	return "refuted"
}

// ClaimReport prints each workload's counts, ratio, ceiling and verdict
// under each baseline.
func ClaimReport(ctx context.Context, w io.Writer, quick bool) error {
	rs, err := RunClaims(ctx, quick)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "| workload | λ | asked | X-Schedule | baseline | its successes | ratio | ceiling | verdict |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		for b, name := range SweepBaselines {
			fmt.Fprintf(w, "| %s | %.2f | %d | %d | %s | %d | %.3f | %.3f | %s |\n", r.Name, r.Lambda, r.Asked, r.XSuccess, name,
				r.Base[b], r.Ratio(b), r.Ceiling(b), r.Verdict(b))
		}
	}
	return nil
}
