package assign

import (
	"cmp"
	"math"
	"slices"

	"github.com/xflex/xflex/vecpack"
)

// class is the containers of one owner and one size. They score alike
// (the score reads only the size, the charge rate and the owner), so a
// scan ranks classes and looks inside only the best ones.
type class struct {
	owner        int
	size         []float64
	norm, charge float64
	members      []int // container indices, ascending
	// cursor: members before it are taken or under notice, and stay so
	// for the rest of the round (containers change hands within a round
	// but never become free), so scans for free ones start there.
	cursor int
	// claims counts the round's requests of the owner, not yet served,
	// that fit the class and could take a free container of it; wants
	// those that fit it (reading lending owner_first, Model.claim).
	// While claims is positive the class lends no free container; while
	// wants is, none of its containers is taken over.
	claims, wants int
}

// buildClasses groups the containers by owner and size. A model's
// containers never change, so a later round (a simulator's) keeps the
// groups and only rewinds their cursors.
func (m *Model) buildClasses() {
	if m.classes != nil {
		for j := range m.classes {
			m.classes[j].cursor, m.classes[j].claims, m.classes[j].wants = 0, 0, 0
		}
		return
	}
	type key struct {
		owner int
		size  string
	}
	idx := map[key]int{}
	m.classes = []class{}
	for i := range m.conts {
		c := &m.conts[i]
		k := key{c.owner, sizeKey(c.size)}
		j, ok := idx[k]
		if !ok {
			j = len(m.classes)
			idx[k] = j
			m.classes = append(m.classes, class{owner: c.owner, size: c.size, norm: c.norm, charge: c.charge})
		}
		m.classes[j].members = append(m.classes[j].members, i)
		c.class = j
	}
}

func sizeKey(size []float64) string {
	b := make([]byte, 0, 8*len(size))
	for _, x := range size {
		b = appendFloat(b, x)
	}
	return string(b)
}

func appendFloat(b []byte, x float64) []byte {
	u := math.Float64bits(x)
	for s := 0; s < 64; s += 8 {
		b = append(b, byte(u>>s))
	}
	return b
}

// ranked is a class with its score for the current scan.
type ranked struct {
	class int
	score float64
}

// rank lists the classes in scope whose size matches a (every dimension,
// fitness), best score first, ties by class order (which follows the
// lowest container index).
func (m *Model) rank(a *ask, scope func(owner int) bool, ttl bool) []ranked {
	out := m.rankBuf[:0]
	m.cache.pairNow++
	for _, j := range m.fitting(a) {
		k := &m.classes[j]
		if !scope(k.owner) {
			continue
		}
		s := a.norm / k.norm
		if ttl {
			s += m.ttlTerm(a.app, k.owner, k.charge)
		}
		out = append(out, ranked{j, s})
	}
	slices.SortStableFunc(out, func(x, y ranked) int { return cmp.Compare(y.score, x.score) })
	m.rankBuf = out
	return out
}

// fitting lists the classes whose size serves a (fits), ascending. A
// prepared request keeps its list (a.fit) for later rounds; the model's
// classes and the request's size never change, so the list stays true.
func (m *Model) fitting(a *ask) []int {
	if a.fit == nil || m.rescan {
		a.fit = &fitList{}
	}
	if !a.fit.done {
		for j := range m.classes {
			if m.fits(a, &m.classes[j]) {
				a.fit.classes = append(a.fit.classes, j)
			}
		}
		a.fit.done = true
	}
	return a.fit.classes
}

// fits says whether the class's size serves a: every dimension at least
// a's, aggregate normalised size within fitness times a's.
func (m *Model) fits(a *ask, k *class) bool {
	return FitsDims(k.size, a.size) && k.norm <= m.settings.fitness*a.norm*(1+vecpack.FitTol)
}

// bestIn scans the ranked classes, best score first: the first group of
// equal scores holding a candidate gives the choice, the candidate
// with the lowest container index (preempting: lowest preemption
// priority first).
func (m *Model) bestIn(a *ask, rk []ranked, preempt string) (choice, bool) {
	for g := 0; g < len(rk); {
		h := g
		for h < len(rk) && rk[h].score == rk[g].score {
			h++
		}
		best := -1
		for _, r := range rk[g:h] {
			if c := m.inClass(a, &m.classes[r.class], preempt); c >= 0 && (best < 0 || m.before(c, best, preempt)) {
				best = c
			}
		}
		if best >= 0 {
			return choice{c: best, score: rk[g].score, preempt: preempt}, true
		}
		g = h
	}
	return choice{}, false
}

// before orders two candidates: preemption priority first when
// preempting, then container index.
func (m *Model) before(c, d int, preempt string) bool {
	if pc, pd := m.conts[c].prio, m.conts[d].prio; preempt != "" && pc != pd {
		return pc < pd
	}
	return c < d
}

// inClass is the class's best candidate for a, or -1.
func (m *Model) inClass(a *ask, k *class, preempt string) int {
	if preempt == "" {
		if k.owner != a.app && k.claims > 0 {
			return -1
		}
		for k.cursor < len(k.members) && !m.conts[k.members[k.cursor]].free() {
			k.cursor++
		}
		for _, i := range k.members[k.cursor:] {
			if c := &m.conts[i]; c.free() && m.located(a, c) {
				return i
			}
		}
		return -1
	}
	best := -1
	for _, i := range k.members {
		c := &m.conts[i]
		if (c.notice == nil || m.redirects(a, c, preempt)) && m.available(a, c, preempt) && m.located(a, c) && (best < 0 || m.before(i, best, preempt)) {
			best = i
		}
	}
	return best
}

func (c *cont) free() bool { return c.user < 0 && c.notice == nil }

// located is the locality test: on the requested host and rack.
func (m *Model) located(a *ask, c *cont) bool {
	return (a.host < 0 || c.node == a.host) && (a.rack == "" || m.nodes[c.node].rack == a.rack)
}
