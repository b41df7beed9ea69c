package tetris

import "math"

// NormCap is the capacity vector remaining work is normalised by: the mean
// machine capacity per resource (§3.3.1 normalises "as before", i.e. by
// machine capacity; with heterogeneous machines the mean is the neutral
// choice). Resources no machine has get 0 and are skipped.
func NormCap(machines []Machine) []float64 {
	if len(machines) == 0 {
		return nil
	}
	out := make([]float64, len(machines[0].Cap))
	for _, m := range machines {
		for k, c := range m.Cap {
			out[k] += c
		}
	}
	for k := range out {
		out[k] /= float64(len(machines))
	}
	return out
}

// TaskWork is one task's contribution to its job's remaining work p
// (§3.3.1): the sum of its demands normalised by norm, times its duration.
func TaskWork(demand []float64, duration float64, norm []float64) float64 {
	s := 0.0
	for k, d := range demand {
		if norm[k] > 0 {
			s += d / norm[k]
		}
	}
	return s * duration
}

// AutoEpsilon is the paper's default ε = ā/p̄ (§3.3.2). p̄ is the mean
// remaining work over jobs with pending tasks. ā is the mean alignment over
// every (pending task, machine) pair, computed exactly without the pairs by
// bilinearity: a(t,m) = Σ_r d_tr·f_mr/c_mr², so the mean is
// Σ_r mean_t(d_tr)·mean_m(f_mr/c_mr²) (fit and remote adjustments are left
// out; ε only has to put the two scores on one scale). It returns 0 when
// there is nothing pending or no remaining work.
func AutoEpsilon(machines []Machine, groups []*Group, jobs []Job, mask []bool) float64 {
	if len(machines) == 0 {
		return 0
	}
	d := len(machines[0].Cap)
	meanD := make([]float64, d)
	n := 0
	pendJob := make([]bool, len(jobs))
	for _, g := range groups {
		if g.Count == 0 {
			continue
		}
		pendJob[g.Job] = true
		for k, x := range g.Demand {
			meanD[k] += x * float64(g.Count)
		}
		n += g.Count
	}
	if n == 0 {
		return 0
	}
	abar := 0.0
	for k := 0; k < d; k++ {
		if mask != nil && !mask[k] {
			continue
		}
		mf := 0.0
		for _, m := range machines {
			if m.Cap[k] > 0 {
				mf += math.Max(m.Free[k], 0) / (m.Cap[k] * m.Cap[k])
			}
		}
		abar += meanD[k] / float64(n) * mf / float64(len(machines))
	}
	pbar, nj := 0.0, 0
	for j, ok := range pendJob {
		if ok {
			pbar += jobs[j].Work
			nj++
		}
	}
	pbar /= float64(nj)
	if pbar <= 0 || abar <= 0 {
		return 0
	}
	return abar / pbar
}
