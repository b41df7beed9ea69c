package assign

import (
	"context"

	"github.com/xflex/xflex/solver"
)

// This file is the model's handle for a simulator
// (solver/xschedule/simulate): it prepares requests once, queues the
// pending ones for each decision round, releases containers between
// rounds and reads the state. A round run this way is the round
// POST /v1/xschedule/assign runs.

// Prepared is a request checked against the model, ready to be queued.
type Prepared struct{ a ask }

// Requests returns the requests Build read, prepared, in request order.
func (m *Model) Requests() []Prepared {
	out := make([]Prepared, len(m.asks))
	for i, a := range m.asks {
		out[i] = Prepared{a}
	}
	return out
}

// Prepare checks a request made after Build as Build checks one; ptr
// gives the pointer of its fields for the errors.
func (m *Model) Prepare(a Ask, ptr func(field string) string) (Prepared, error) {
	var vs solver.Violations
	k, _ := m.readAsk(a, ptr, &vs)
	return Prepared{k}, vs.Err()
}

// Queued is a prepared request pending in a round: ID names it in the
// round's output and Count is how many containers it still wants.
type Queued struct {
	Ask   *Prepared
	ID    string
	Count int
}

// Round runs a decision round at now over the queued requests (equal
// priorities in queue order) and says whether every request was
// examined before ctx ended. now must not go back in time.
func (m *Model) Round(ctx context.Context, now float64, queue []Queued) (*Result, bool) {
	m.now = now
	for i := range m.conts {
		m.conts[i].fresh = false
	}
	m.asks = m.asks[:0]
	for i, q := range queue {
		a := q.Ask.a
		a.index, a.id, a.count = i, q.ID, q.Count
		m.asks = append(m.asks, a)
	}
	return m.Decide(ctx)
}

// Release frees container i at now: its user let it go. A notice on it
// completes in the next round.
func (m *Model) Release(i int, now float64) {
	m.now = now
	m.setUser(&m.conts[i], -1)
}

// ContainerInfo is a container as the simulator sees it: Owner is an
// application index, Norm its normalised size, Charge its charge rate.
type ContainerInfo struct {
	ID, Node     string
	NodeIndex    int
	Size         []float64
	Owner        int
	Norm, Charge float64
}

// Containers lists the containers in model order.
func (m *Model) Containers() []ContainerInfo {
	out := make([]ContainerInfo, len(m.conts))
	for i, c := range m.conts {
		out[i] = ContainerInfo{ID: c.id, Node: m.nodes[c.node].name, NodeIndex: c.node, Size: c.size, Owner: c.owner, Norm: c.norm, Charge: c.charge}
	}
	return out
}

// NodeInfo is a node: capacity less reserved when it came from a
// placement.
type NodeInfo struct {
	Name, Rack string
	Capacity   []float64
}

// Nodes lists the nodes in model order.
func (m *Model) Nodes() []NodeInfo {
	out := make([]NodeInfo, len(m.nodes))
	for i, n := range m.nodes {
		out[i] = NodeInfo{Name: n.name, Rack: n.rack, Capacity: n.capacity}
	}
	return out
}

// GracePeriod is the settings' grace period (default applied).
func (m *Model) GracePeriod() float64 { return m.settings.grace }

// Totals are the cluster's capacities per resource.
func (m *Model) Totals() []float64 { return m.index.totals }

// AppNames lists the applications in request order.
func (m *Model) AppNames() []string {
	out := make([]string, len(m.apps))
	for i, a := range m.apps {
		out[i] = a.name
	}
	return out
}

// Bound is Δ_ij.
func (m *Model) Bound(i, j int) float64 { return m.bound(i, j) }

// PairContext is the context of the pair (a, b), a < b: lastShare (how
// far b is in debt to a at time), lastSlope and lastCalcTime; all zero
// for a pair never touched.
func (m *Model) PairContext(a, b int) (share, slope, time float64) {
	if p := m.pairs[[2]int{a, b}]; p != nil {
		return p.share, p.slope, p.time
	}
	return 0, 0, 0
}
