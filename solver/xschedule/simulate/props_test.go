package simulate

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/xschedule/assign"
)

// propTol bounds float disagreement between the model's incremental pair
// contexts and the from-scratch sums over the event log (hundreds of
// additions of products of numbers below 1000).
const propTol = 1e-7

// TestProperties simulates random traces and checks the issue's
// invariants on each run against the event log: a container has at most
// one user, Garbo containers are never lent, owned_only never gets
// another's container, no preemption without eligibility (debt at the
// bound, or an owner's reclaim under bound 0: reading zero_bound
// on_demand), no takeover from an owner (takeover borrowed_only), every pair
// series point equals the context recomputed from the events, every
// grant fits its request; under DRF no node is overfilled.
func TestProperties(t *testing.T) {
	for seed := range int64(60) {
		params := map[string]string{
			"nodes": strconv.Itoa(2 + int(seed%5)), "apps": strconv.Itoa(2 + int(seed%3)), "garbo": strconv.Itoa(int(seed % 2)),
			"requests": "30", "bound": []string{"0", "0.5", "3"}[seed%3], "grace": []string{"0", "4", "2.5"}[seed%3],
			"span": "60", "max_duration": "40",
		}
		v, err := Generate(seed, params)
		if err != nil {
			t.Fatal(err)
		}
		req := v.(*Request)
		// Bound 0 with grace 0 can thrash for ever (each side preempts
		// the other as soon as it is in debt): the horizon ends it.
		horizon := 400.0
		req.Horizon = &horizon
		if seed%4 == 1 {
			iv := 0.5 + float64(seed%3)
			req.Settings.SchedulingInterval = &iv
		}
		res := simulate(t, req)
		name := fmt.Sprintf("seed %d", seed)
		checkXRun(t, name, req, res)
		checkDRFRun(t, name, req, &res.Baselines.DRF)
	}
}

func simulate(t *testing.T, req *Request) *Result {
	t.Helper()
	in, err := Build(req)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := solve(context.Background(), solver.Built[Request, *Instance]{Req: req, In: in}, solver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return out.(*Result)
}

// world is what a test knows of a request: containers, apps, asks.
type world struct {
	conts  map[string]Container
	garbo  map[string]bool
	index  map[string]int
	bounds func(a, b string) float64
	asks   map[string]Ask
	totals []float64
	fit    float64
	grace  float64
}

func newWorld(req *Request) *world {
	w := &world{conts: map[string]Container{}, garbo: map[string]bool{}, index: map[string]int{}, asks: map[string]Ask{}, fit: 2, grace: 30}
	for _, c := range req.Containers {
		w.conts[c.ID] = c
	}
	delta := map[string]assign.App{}
	for i, a := range req.Apps {
		w.garbo[a.Name] = a.Mode == assign.ModeGarbo
		w.index[a.Name] = i
		delta[a.Name] = a
	}
	d := func(a, b string) float64 {
		if x, ok := delta[a].SharingBounds[b]; ok {
			return x
		}
		return delta[a].SharingBound
	}
	w.bounds = func(a, b string) float64 { return min(d(a, b), d(b, a)) }
	for _, a := range req.Requests {
		w.asks[a.ID] = a
	}
	w.totals = make([]float64, len(req.Resources))
	for _, n := range req.Nodes {
		for r, x := range n.Capacity {
			w.totals[r] += x
		}
	}
	if s := req.Settings; s != nil {
		w.fit = deref(s.Fitness, w.fit)
		w.grace = deref(s.GracePeriod, w.grace)
	}
	return w
}

// ledger recomputes the pair contexts from the event log: share is how
// far b is in debt to a (a before b in application order).
type ledger struct {
	w     *world
	share map[[2]string]float64
	slope map[[2]string]float64
	at    map[[2]string]float64
}

func (l *ledger) key(o, u string) ([2]string, float64) {
	if l.w.index[o] < l.w.index[u] {
		return [2]string{o, u}, 1
	}
	return [2]string{u, o}, -1
}

// move adds sign·charge to u's debt slope toward owner o at t.
func (l *ledger) move(t float64, c Container, u string, sign float64) {
	if u == c.Owner || l.w.garbo[u] || l.w.garbo[c.Owner] {
		return
	}
	k, s := l.key(c.Owner, u)
	l.share[k] += l.slope[k] * (t - l.at[k])
	l.at[k] = t
	l.slope[k] += s * sign * normalized(c.Size, l.w.totals)
}

// debt is how far u is in debt to o at t.
func (l *ledger) debt(t float64, u, o string) float64 {
	k, s := l.key(o, u)
	return s * (l.share[k] + l.slope[k]*(t-l.at[k]))
}

func checkXRun(t *testing.T, name string, req *Request, res *Result) {
	t.Helper()
	w := newWorld(req)
	l := &ledger{w: w, share: map[[2]string]float64{}, slope: map[[2]string]float64{}, at: map[[2]string]float64{}}
	users := map[string]string{}
	pts := seriesByTime(res.Imbalance)
	for i, e := range res.Events {
		c := w.conts[e.Container]
		checkEvent(t, name, w, l, users, e, c)
		if i+1 == len(res.Events) || res.Events[i+1].T != e.T {
			checkSeriesAt(t, name, l, pts[e.T], e.T)
		}
	}
	if res.Dropped != 0 {
		t.Errorf("%s: %d events dropped under the default cap", name, res.Dropped)
	}
}

// checkEvent replays one event: the container's one user, the Garbo and
// owned_only rules, the fit, and eligibility at a notice or a kill.
func checkEvent(t *testing.T, name string, w *world, l *ledger, users map[string]string, e Event, c Container) {
	t.Helper()
	switch e.Kind {
	case KindGrant:
		if users[e.Container] != "" {
			t.Errorf("%s: %s granted to %s at %g while %s uses it", name, e.Container, e.User, e.T, users[e.Container])
		}
		users[e.Container] = e.User
		a := w.asks[e.Request]
		if c.Owner != e.User && (w.garbo[c.Owner] || w.garbo[e.User]) {
			t.Errorf("%s: %s of %s used by %s across a Garbo boundary", name, e.Container, c.Owner, e.User)
		}
		if a.Type == assign.OwnedOnly && c.Owner != e.User {
			t.Errorf("%s: owned_only %s got %s of %s", name, a.ID, e.Container, c.Owner)
		}
		for r, x := range a.Size {
			if c.Size[r] < x {
				t.Errorf("%s: %s too small for %s", name, e.Container, a.ID)
			}
		}
		if normalized(c.Size, w.totals) > w.fit*normalized(a.Size, w.totals)*(1+1e-9) {
			t.Errorf("%s: %s beyond fitness for %s", name, e.Container, a.ID)
		}
		l.move(e.T, c, e.User, 1)
	case KindNotice, KindPreempt:
		if users[e.Container] != e.User {
			t.Errorf("%s: %s on %s, used by %q not %s", name, e.Kind, e.Container, users[e.Container], e.User)
		}
		if e.Kind == KindNotice || w.grace == 0 {
			if c.Owner != e.ByApp && e.User == c.Owner {
				t.Errorf("%s: %s took over %s from its owner %s at %g", name, e.ByApp, e.Container, e.User, e.T)
			}
			onDemand := c.Owner == e.ByApp && w.bounds(e.User, e.ByApp) == 0
			if d := l.debt(e.T, e.User, e.ByApp); !onDemand && !(d > 0 && d >= w.bounds(e.User, e.ByApp)-propTol) {
				t.Errorf("%s: %s of %s from %s for %s at %g: debt %g, bound %g", name, e.Kind, e.Container, e.User, e.ByApp, e.T, d, w.bounds(e.User, e.ByApp))
			}
		}
		if e.Kind == KindPreempt {
			users[e.Container] = ""
			l.move(e.T, c, e.User, -1)
		}
	case KindRelease:
		if users[e.Container] != e.User {
			t.Errorf("%s: %s released by %s, used by %q", name, e.Container, e.User, users[e.Container])
		}
		users[e.Container] = ""
		l.move(e.T, c, e.User, -1)
	}
}

// seriesByTime indexes the series points by time.
func seriesByTime(ss []PairSeries) map[float64][]struct {
	a, b string
	p    PairPoint
} {
	out := map[float64][]struct {
		a, b string
		p    PairPoint
	}{}
	for _, s := range ss {
		for _, p := range s.Points {
			out[p.T] = append(out[p.T], struct {
				a, b string
				p    PairPoint
			}{s.A, s.B, p})
		}
	}
	return out
}

func checkSeriesAt(t *testing.T, name string, l *ledger, pts []struct {
	a, b string
	p    PairPoint
}, at float64) {
	t.Helper()
	for _, x := range pts {
		k := [2]string{x.a, x.b}
		share := l.share[k] + l.slope[k]*(at-l.at[k])
		if math.Abs(share-x.p.Share) > propTol*math.Max(1, math.Abs(share)) || math.Abs(l.slope[k]-x.p.Slope) > propTol {
			t.Errorf("%s: pair (%s, %s) at %g: model share %g slope %g, event log %g %g", name, x.a, x.b, at, x.p.Share, x.p.Slope, share, l.slope[k])
		}
	}
}

// checkDRFRun replays the DRF events: each container once in use, of
// its request's size, and no node beyond its capacity.
func checkDRFRun(t *testing.T, name string, req *Request, run *Run) {
	t.Helper()
	w := newWorld(req)
	caps, used := map[string][]float64{}, map[string][]float64{}
	for _, n := range req.Nodes {
		caps[n.Name], used[n.Name] = n.Capacity, make([]float64, len(n.Capacity))
	}
	live := map[string]bool{}
	for _, e := range run.Events {
		node := e.Container[:strings.LastIndex(e.Container, "/")]
		size := w.asks[e.Request].Size
		switch e.Kind {
		case KindGrant:
			if live[e.Container] {
				t.Errorf("%s: DRF granted %s twice", name, e.Container)
			}
			live[e.Container] = true
			for r, x := range size {
				used[node][r] += x
				if used[node][r] > caps[node][r]+1e-9 {
					t.Errorf("%s: DRF overfills %s at %g", name, node, e.T)
				}
			}
		case KindRelease:
			live[e.Container] = false
			for r, x := range size {
				used[node][r] -= x
			}
		default:
			t.Errorf("%s: DRF event %s", name, e.Kind)
		}
	}
}
