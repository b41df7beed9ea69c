package fairshare

import "context"

// Best-fit DRF keeps, per framework, its best-fit copy: the candidate with
// the lexicographically smallest (bfScore, index), the very choice a scan of
// every candidate makes. A placement changes one copy's residual and may add
// one candidate (the next untouched copy of the group, which never beats a
// cached choice), so every cached choice is updated in O(R) per framework, and only the frameworks whose
// cached copy just changed rescan, and only when their turn comes. At
// 1,000 frameworks on 10,000 copies the full scan per framework per task
// did not finish in 60 s.

// bestFit is framework n's cached best-fit copy (-1: none allowed) and its
// score; stale marks an entry to recompute by a scan.
type bestFit struct {
	copy  int
	score float64
	stale bool
}

func (f *filler) runBestFit(ctx context.Context) error {
	N := len(f.in.fws)
	order := make([]int, N)
	best := make([]bestFit, N)
	for n := range order {
		order[n] = n
		best[n].stale = true
	}
	steps := 0
	for {
		if steps++; steps%ctxEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		// DRF order with the tie-break; the order persists between steps
		// and changes by one framework, so the insertion sort is cheap.
		sortBy(order, func(a, b int) bool { return f.better(f.crit(a, 0), a, 0, f.crit(b, 0), b, 0) })
		placed := false
		for _, n := range order {
			if f.x[n] >= f.capN[n] {
				continue
			}
			if best[n].stale {
				best[n] = f.scanBestFit(n)
			}
			if i := best[n].copy; i >= 0 && f.fitsOn(n, i) {
				f.placeBestFit(n, i, best)
				placed = true
				break
			}
		}
		if !placed {
			return nil
		}
	}
}

// scanBestFit is n's best-fit copy among all candidates: every touched copy
// and the lowest untouched copy of each group.
func (f *filler) scanBestFit(n int) bestFit {
	b := bestFit{copy: -1}
	for _, i := range f.touched {
		f.offerBestFit(n, i, &b)
	}
	for g := range f.untouched {
		if h := f.head[g]; h < len(f.untouched[g]) {
			f.offerBestFit(n, f.untouched[g][h], &b)
		}
	}
	return b
}

// offerBestFit makes copy i n's best-fit copy if n may use it and it beats
// b: a smaller score, or an equal one on a lower index.
func (f *filler) offerBestFit(n, i int, b *bestFit) {
	if !f.in.fws[n].allowed[f.srvOf[i]] {
		return
	}
	s := f.bfScore(n, i)
	if b.copy < 0 || s < b.score || (s == b.score && i < b.copy) {
		b.copy, b.score = i, s
	}
}

// placeBestFit places one task of n on copy i and updates every cached
// best-fit choice: the frameworks whose choice was i rescan on their next
// turn; the others compare i's new residual. When i was its group's lowest
// untouched copy, the next one becomes a candidate, but it has the residual
// i had and a higher index, so it beats no choice that i did not.
func (f *filler) placeBestFit(n, i int, best []bestFit) {
	f.place(n, i)
	for m := range best {
		b := &best[m]
		if b.stale || f.x[m] >= f.capN[m] {
			continue
		}
		if b.copy == i {
			b.stale = true
			continue
		}
		f.offerBestFit(m, i, b)
	}
}
