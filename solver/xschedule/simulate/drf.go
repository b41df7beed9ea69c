package simulate

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/xflex/xflex/solver/xschedule/assign"
)

// drf is the baseline: online Dominant Resource Fairness on the same
// nodes with no containers made in advance and no ownership. Each round
// repeatedly serves the user (an ask's user, default its application)
// with the lowest dominant share, ties by first ask, one container of
// exactly the ask's size at a time, placed best-fit; a user none of
// whose asks fits anywhere is passed over for the rest of the round.
// Nothing is preempted; request types are ignored (nothing is owned).
type drf struct {
	nodes  []assign.NodeInfo
	totals []float64
	free   [][]float64
	racks  []string
	// conts holds every container made (the recorder reads released
	// ones too); live says which are in use.
	conts map[string]*drfCont
	live  map[string]bool
	seq   int
	// tag names its containers "NODE/TAGk" (drf; yarn for the YARN
	// baselines).
	tag string
	// used is each user's allocation; users their order of first ask.
	used  map[string][]float64
	users map[string]int
	// changed lists the nodes whose free capacity changed (a placement
	// or a release), in order: an ask's best-fit node, once found, is
	// kept (pending.fit) and brought up to date from the nodes changed
	// since, not from a scan of every node. remember is false only in
	// the test that checks keeping it changes nothing.
	changed  []int
	remember bool
	// fits holds the kept best fits by ask shape (size, host, rack):
	// asks of one shape share one, so a new ask of a shape seen before
	// needs no scan either.
	fits map[string]*bestFitMemo
}

// bestFitMemo is an ask's best-fit node (-1: none fits) and its
// leftover as of the first seen entries of drf.changed.
type bestFitMemo struct {
	known bool
	node  int
	left  float64
	seen  int
}

type drfCont struct {
	seq                int
	node               int
	size               []float64
	app, user, request string
	norm               float64
}

func newDRF(nodes []assign.NodeInfo, totals []float64) *drf {
	d := &drf{nodes: nodes, totals: totals, conts: map[string]*drfCont{}, live: map[string]bool{}, tag: "drf",
		used: map[string][]float64{}, users: map[string]int{}, remember: true, fits: map[string]*bestFitMemo{}}
	for _, n := range nodes {
		d.free = append(d.free, slices.Clone(n.Capacity))
		d.racks = append(d.racks, n.Rack)
	}
	return d
}

func (d *drf) prepare(p *pending) error {
	u := p.a.drfUser()
	if _, ok := d.users[u]; !ok {
		d.users[u] = len(d.users)
		d.used[u] = make([]float64, len(d.totals))
	}
	return nil
}

// dominant is u's dominant share: its largest fraction of any resource.
func (d *drf) dominant(u string) float64 {
	s := 0.0
	for r, x := range d.used[u] {
		if d.totals[r] > 0 {
			s = max(s, x/d.totals[r])
		}
	}
	return s
}

// round is progressive filling: the poorest user with an ask that fits
// gets one container, until no user can be served.
func (d *drf) round(ctx context.Context, t float64, queue []*pending) ([]decision, bool) {
	left := make(map[*pending]int, len(queue))
	for _, p := range queue {
		left[p] = p.times.len()
	}
	blocked := map[string]bool{}
	var ds []decision
	for {
		if ctx.Err() != nil {
			return ds, false
		}
		u := d.poorest(queue, left, blocked)
		if u == "" {
			return ds, true
		}
		p, n := d.firstFit(queue, left, u)
		if p == nil {
			blocked[u] = true
			continue
		}
		left[p]--
		ds = append(ds, decision{kind: KindGrant, container: d.place(p, n), request: p.a.id})
	}
}

// poorest is the unblocked user with asks left and the lowest dominant
// share, ties by first ask; "" when none.
func (d *drf) poorest(queue []*pending, left map[*pending]int, blocked map[string]bool) string {
	best, bestShare := "", 0.0
	for _, p := range queue {
		u := p.a.drfUser()
		if left[p] == 0 || blocked[u] || u == best {
			continue
		}
		s := d.dominant(u)
		if best == "" || s < bestShare || (s == bestShare && d.users[u] < d.users[best]) {
			best, bestShare = u, s
		}
	}
	return best
}

// firstFit is u's ask to serve, highest priority first, ties in queue
// order, the first that fits a node, with its best-fit node.
func (d *drf) firstFit(queue []*pending, left map[*pending]int, u string) (*pending, int) {
	var best *pending
	bestNode := -1
	for _, p := range queue {
		if left[p] == 0 || p.a.drfUser() != u || (best != nil && p.a.prio <= best.a.prio) {
			continue
		}
		if n := d.bestFitOf(p); n >= 0 {
			best, bestNode = p, n
		}
	}
	return best, bestNode
}

// bestFit is the node the ask fits leaving the least normalised free
// capacity, ties by node order, and that leftover; -1 when none.
func (d *drf) bestFit(a *ask) (int, float64) {
	best, bestLeft := -1, 0.0
	for n := range d.nodes {
		if l, ok := d.leftOn(a, n); ok && (best < 0 || l < bestLeft) {
			best, bestLeft = n, l
		}
	}
	return best, bestLeft
}

// leftOn is the normalised free capacity node n would have left after
// placing the ask; false when it does not fit there.
func (d *drf) leftOn(a *ask, n int) (float64, bool) {
	if (a.host != "" && d.nodes[n].Name != a.host) || (a.rack != "" && d.racks[n] != a.rack) || !assign.FitsDims(d.free[n], a.size) {
		return 0, false
	}
	l := 0.0
	for r, x := range d.free[n] {
		if d.totals[r] > 0 {
			l += (x - a.size[r]) / d.totals[r]
		}
	}
	return l, true
}

// bestFitOf is bestFit(&p.a), kept for the ask's shape (p.fit): only
// the nodes changed since can change the answer. A changed node that
// now beats the kept one (less left, or as much and earlier) takes its
// place; the kept node changed for the worse (or no longer fitting)
// means a scan.
func (d *drf) bestFitOf(p *pending) int {
	if p.fit == nil {
		p.fit = d.shapeFit(&p.a)
	}
	f := p.fit
	// Following a change costs about what scanning a node does: past as
	// many changes as nodes, a scan is cheaper.
	if !d.remember || !f.known || len(d.changed)-f.seen > len(d.nodes) {
		f.node, f.left = d.bestFit(&p.a)
		f.known, f.seen = true, len(d.changed)
		return f.node
	}
	for _, m := range d.changed[f.seen:] {
		l, ok := d.leftOn(&p.a, m)
		if m == f.node {
			if !ok || l > f.left {
				f.node, f.left = d.bestFit(&p.a)
				break
			}
			f.left = l
		} else if ok && (f.node < 0 || l < f.left || (l == f.left && m < f.node)) {
			f.node, f.left = m, l
		}
	}
	f.seen = len(d.changed)
	return f.node
}

// shapeFit is the kept best fit of the ask's shape, made unknown when
// new.
func (d *drf) shapeFit(a *ask) *bestFitMemo {
	b := make([]byte, 0, 8*len(a.size)+len(a.host)+len(a.rack)+2)
	for _, x := range a.size {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	b = append(append(append(append(b, 0), a.host...), 0), a.rack...)
	f := d.fits[string(b)]
	if f == nil {
		f = &bestFitMemo{}
		d.fits[string(b)] = f
	}
	return f
}

// place makes a container of the ask's size on node n.
func (d *drf) place(p *pending, n int) string {
	d.seq++
	id := fmt.Sprintf("%s/%s%d", d.nodes[n].Name, d.tag, d.seq)
	c := &drfCont{seq: d.seq, node: n, size: p.a.size, app: p.a.app, user: p.a.drfUser(), request: p.a.id, norm: normalized(p.a.size, d.totals)}
	d.conts[id], d.live[id] = c, true
	d.changed = append(d.changed, n)
	u := d.used[p.a.drfUser()]
	for r, x := range p.a.size {
		d.free[n][r] -= x
		u[r] += x
	}
	return id
}

func (d *drf) release(_ float64, id string) {
	c := d.conts[id]
	delete(d.live, id)
	d.changed = append(d.changed, c.node)
	u := d.used[c.user]
	for r, x := range c.size {
		d.free[c.node][r] += x
		u[r] -= x
	}
}

func (d *drf) container(id string) contInfo {
	c := d.conts[id]
	return contInfo{node: d.nodes[c.node].Name, size: c.size, norm: c.norm}
}

func (d *drf) noticed() int { return 0 }

// packing lists the containers in use on their nodes, in creation order.
func (d *drf) packing() []NodeOut {
	out := make([]NodeOut, len(d.nodes))
	for i, n := range d.nodes {
		out[i] = NodeOut{Name: n.Name, Rack: n.Rack, Capacity: n.Capacity, Containers: []PackedOut{}}
	}
	ids := make([]string, 0, len(d.live))
	for id := range d.live {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int { return d.conts[a].seq - d.conts[b].seq })
	for _, id := range ids {
		c := d.conts[id]
		out[c.node].Containers = append(out[c.node].Containers, PackedOut{ID: id, Size: c.size, User: c.app, Request: c.request})
	}
	return out
}

// normalized is Σ size/total over the resources with a positive total.
func normalized(size, totals []float64) float64 {
	s := 0.0
	for r, x := range size {
		if totals[r] > 0 {
			s += x / totals[r]
		}
	}
	return s
}
