package simulate

import (
	"context"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/xschedule/assign"
)

// xsched is X-Schedule as the loop's scheduler: every round is the
// decision round of xschedule/assign on one model that lives for the
// whole run.
type xsched struct {
	m     *assign.Model
	conts []assign.ContainerInfo
	idx   map[string]int
	apps  []string
	// prepared holds the checked form of every ask id seen (the trace's
	// from Build); users and requests are the current users and requests
	// of the containers (for the packing), notices the request each
	// container under notice is promised to.
	prepared map[string]*assign.Prepared
	users    []string
	requests []string
	notices  map[string]string
	queue    []assign.Queued
}

func newXsched(m *assign.Model, trace []Ask) *xsched {
	x := &xsched{m: m, conts: m.Containers(), idx: map[string]int{}, apps: m.AppNames(),
		prepared: map[string]*assign.Prepared{}, notices: map[string]string{}}
	for i, c := range x.conts {
		x.idx[c.ID] = i
	}
	x.users, x.requests = make([]string, len(x.conts)), make([]string, len(x.conts))
	for i, p := range m.Requests() {
		x.prepared[trace[i].ID] = &p
	}
	return x
}

func (x *xsched) prepare(p *pending) error {
	if x.prepared[p.a.id] != nil {
		return nil
	}
	a := p.a
	pr, err := x.m.Prepare(assign.Ask{ID: a.id, App: a.app, Count: a.count, Size: a.size, Priority: a.prio,
		PreemptionPriority: a.pprio, Rack: a.rack, Host: a.host, Type: a.typ},
		func(f string) string { return solver.Ptr("asks", a.id, f) })
	if err != nil {
		return err
	}
	x.prepared[a.id] = &pr
	return nil
}

// round runs the assign round over the asks still wanting containers
// and turns its output into decisions: its grants in order (a grant
// taken from a user comes after that user's preemption), its withdrawn
// notices, then its notices.
func (x *xsched) round(ctx context.Context, t float64, queue []*pending) ([]decision, bool) {
	x.queue = x.queue[:0]
	for _, p := range queue {
		if p.times.len() > 0 {
			x.queue = append(x.queue, assign.Queued{Ask: x.prepared[p.a.id], ID: p.a.id, Count: p.times.len()})
		}
	}
	res, complete := x.m.Round(ctx, t, x.queue)
	var ds []decision
	for _, g := range res.Grants {
		// A preemption completes a notice only when that request was
		// given one on the container: a grace period too short to move
		// the clock (5e-324 s), or a reclaim that replaced another
		// application's notice whose deadline has come, preempts at once.
		nr, noticed := x.notices[g.Container]
		completes := g.Kind == assign.KindPreempted && noticed && nr == g.Request
		if g.From != "" {
			ds = append(ds, decision{kind: KindPreempt, container: g.Container, request: g.Request})
		}
		delete(x.notices, g.Container)
		i := x.idx[g.Container]
		x.users[i], x.requests[i] = g.App, g.Request
		ds = append(ds, decision{kind: KindGrant, container: g.Container, request: g.Request, completes: completes})
	}
	for _, n := range res.Withdrawn {
		ds = append(ds, decision{kind: kindWithdraw, container: n.Container, request: n.Request})
	}
	for _, n := range res.Notices {
		x.notices[n.Container] = n.Request
		ds = append(ds, decision{kind: KindNotice, container: n.Container, request: n.Request})
	}
	return ds, complete
}

func (x *xsched) release(t float64, c string) {
	i := x.idx[c]
	x.users[i], x.requests[i] = "", ""
	x.m.Release(i, t)
}

func (x *xsched) container(id string) contInfo {
	c := x.conts[x.idx[id]]
	return contInfo{owner: x.apps[c.Owner], node: c.Node, size: c.Size, norm: c.Norm}
}

func (x *xsched) noticed() int { return len(x.notices) }

// packing lists every container on its node with owner and user.
func (x *xsched) packing() []NodeOut {
	nodes := x.m.Nodes()
	out := make([]NodeOut, len(nodes))
	for i, n := range nodes {
		out[i] = NodeOut{Name: n.Name, Rack: n.Rack, Capacity: n.Capacity, Containers: []PackedOut{}}
	}
	for i, c := range x.conts {
		out[c.NodeIndex].Containers = append(out[c.NodeIndex].Containers,
			PackedOut{ID: c.ID, Size: c.Size, Owner: x.apps[c.Owner], User: x.users[i], Request: x.requests[i]})
	}
	return out
}

// pairAt is the pair's share extrapolated to t and its slope.
func (x *xsched) pairAt(a, b int, t float64) (float64, float64) {
	share, slope, at := x.m.PairContext(a, b)
	return share + slope*(t-at), slope
}

func (x *xsched) bound(a, b int) float64 { return x.m.Bound(a, b) }
