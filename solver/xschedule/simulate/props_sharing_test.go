package simulate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/xflex/xflex/solver/xschedule/assign"
)

// The sharing properties over random traces with grace period 0
// and every sharing bound 0 (assign's doc, "Readings that keep the
// guarantees"): the hand-over rule (no container changes hands between
// the same two applications twice without their pair context moving or
// the hold time passing) and owners protected (an application asking
// owned_only gets each of its containers within grace + one interval,
// and its response times with sharing are no worse than alone by more
// than the notices it waits for). Each is also run under the literal
// readings, where it must fail: that is what the default readings fix.

// holdTol is the float slack on the hold's share test (the ledger sums
// a few hundred products of numbers below 1000, as propTol).
const holdTol = propTol

// holdTime is the hold the tests set (the default's value, stated so the
// check does not depend on the default).
const holdTime = 60.0

// handoverViolations replays res's events and returns how many
// preemptions of a container between the same two applications as its
// previous preemption (with no release between) came within holdTime of
// it without the pair's debt moving by the container's charge rate
// times holdTime; checked counts the repeated hand-overs examined.
func handoverViolations(req *Request, res *Result) (violations, checked int, first string) {
	w := newWorld(req)
	l := &ledger{w: w, share: map[[2]string]float64{}, slope: map[[2]string]float64{}, at: map[[2]string]float64{}}
	type last struct {
		from, to string
		t, debt  float64
	}
	prev := map[string]*last{}
	for _, e := range res.Events {
		c := w.conts[e.Container]
		switch e.Kind {
		case KindGrant:
			l.move(e.T, c, e.User, 1)
		case KindRelease:
			l.move(e.T, c, e.User, -1)
			delete(prev, e.Container)
		case KindPreempt:
			l.move(e.T, c, e.User, -1)
			p := prev[e.Container]
			if p != nil && (p.from == e.User && p.to == e.ByApp || p.from == e.ByApp && p.to == e.User) {
				checked++
				moved := math.Abs(l.debt(e.T, p.from, p.to) - p.debt)
				if e.T-p.t < holdTime && moved < normalized(c.Size, w.totals)*holdTime-holdTol {
					violations++
					if first == "" {
						first = fmt.Sprintf("%s: %s→%s at %g, back %s→%s at %g, debt moved %g", e.Container, p.from, p.to, p.t, e.User, e.ByApp, e.T, moved)
					}
				}
			}
			prev[e.Container] = &last{from: e.User, to: e.ByApp, t: e.T, debt: l.debt(e.T, e.User, e.ByApp)}
		}
	}
	return violations, checked, first
}

// sharingTrace is Generate's random trace with every bound 0, grace 0
// and the hold time set.
func sharingTrace(t *testing.T, seed int64, readings *assign.Readings) *Request {
	t.Helper()
	v, err := Generate(seed, map[string]string{"nodes": strconv.Itoa(2 + int(seed%4)), "apps": strconv.Itoa(2 + int(seed%3)),
		"requests": "40", "bound": "0", "grace": "0", "span": "80", "max_duration": "40"})
	if err != nil {
		t.Fatal(err)
	}
	req := v.(*Request)
	horizon, hold := 400.0, holdTime
	req.Horizon = &horizon
	req.Settings.HoldTime = &hold
	req.Settings.Readings = readings
	return req
}

// TestHandoverRule: under the default readings, and under the literal
// takeover with the hold (the hold alone enforces the rule), no container
// changes hands twice between the same two applications within the
// hold time without their balance moving; without the hold random traces
// break the rule, under the literal readings thousands of times and even
// with the other readings at their defaults (two borrowers of a third
// application's container taking it over from each other).
func TestHandoverRule(t *testing.T) {
	holdOnly := assign.ReadingsLiteral()
	holdOnly.Hold = assign.HoldPair
	for _, tc := range []struct {
		name     string
		readings *assign.Readings
		breaks   bool
	}{{"default", nil, false}, {"owned_too with hold", holdOnly, false}, {"default but hold none", &assign.Readings{Hold: assign.HoldNone}, true},
		{"literal", assign.ReadingsLiteral(), true}} {
		bad, checked, runs, first := 0, 0, 0, ""
		for seed := range int64(40) {
			req := sharingTrace(t, seed, tc.readings)
			res := simulate(t, req)
			v, c, f := handoverViolations(req, res)
			bad, checked, runs = bad+v, checked+c, runs+1
			if first == "" && f != "" {
				first = fmt.Sprintf("seed %d: %s", seed, f)
			}
		}
		t.Logf("%s: %d repeated hand-overs in %d runs, %d within the hold without the balance moving", tc.name, checked, runs, bad)
		switch {
		case !tc.breaks && bad > 0:
			t.Errorf("%s: %d hand-overs break the rule; first %s", tc.name, bad, first)
		case tc.breaks && bad == 0:
			t.Errorf("%s: the rule holds (%d repeated hand-overs checked); the literal reading was expected to break it", tc.name, checked)
		}
	}
}

// ownerTrace is a cluster of 24 containers of (1, 1), 8 owned by each of
// o, b and c (every bound 0), and a trace: o asks owned_only for 1 or 2
// containers every 10 s (at 10k + 0.5, so the first round after an ask
// is half an interval later) held 1 to 40 s, so o never wants more than
// its 8; b and c ask owned_first or non_owned for 1 to 4, held 5 to 60 s,
// at random times over 200 s: they borrow o's idle containers and take
// from each other. alone keeps only o's requests.
func ownerTrace(seed int64, grace float64, readings *assign.Readings, alone bool) *Request {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x0a11))
	req := &Request{Resources: []string{"cpu", "mem"}}
	for _, a := range []string{"o", "b", "c"} {
		req.Apps = append(req.Apps, assign.App{Name: a, Mode: assign.ModeShare})
	}
	owners := []string{}
	for _, a := range []string{"o", "b", "c"} {
		for range 8 {
			owners = append(owners, a)
		}
	}
	rng.Shuffle(len(owners), func(i, j int) { owners[i], owners[j] = owners[j], owners[i] })
	for n := range 3 {
		req.Nodes = append(req.Nodes, assign.Node{Name: fmt.Sprintf("n%d", n), Rack: "r", Capacity: []float64{8, 8}})
	}
	for k, o := range owners {
		req.Containers = append(req.Containers, Container{ID: fmt.Sprintf("k%d", k), Node: fmt.Sprintf("n%d", k%3), Size: []float64{1, 1}, Owner: o})
	}
	for i := range 20 {
		req.Requests = append(req.Requests, Ask{ID: fmt.Sprintf("o%d", i), App: "o", Count: 1 + rng.IntN(2), Size: []float64{1, 1},
			Arrival: 10*float64(i) + 0.5, Duration: float64(1 + rng.IntN(40)), Priority: rng.IntN(3), Type: assign.OwnedOnly})
	}
	for i := range 40 {
		app := []string{"b", "c"}[i%2]
		a := Ask{ID: fmt.Sprintf("%s%d", app, i), App: app, Count: 1 + rng.IntN(4), Size: []float64{1, 1},
			Arrival: float64(rng.IntN(200)), Duration: float64(5 + rng.IntN(56)), Priority: rng.IntN(3),
			Type: []string{assign.OwnedFirst, assign.NonOwned}[rng.IntN(2)]}
		if !alone {
			req.Requests = append(req.Requests, a)
		}
	}
	// The literal readings can thrash for ever: the horizon (long after
	// the last ask and the longest hold) ends them.
	hold, horizon := holdTime, 600.0
	req.Horizon = &horizon
	req.Settings = &Settings{Settings: assign.Settings{GracePeriod: &grace, HoldTime: &hold, Readings: readings}}
	return req
}

// ownerOutcome is o's requests' last grants and the notices each sent.
type ownerOutcome struct {
	last      map[string]float64
	notices   map[string]int
	preempted int
}

func ownerRun(t *testing.T, req *Request) ownerOutcome {
	t.Helper()
	res := simulate(t, req)
	out := ownerOutcome{last: map[string]float64{}, notices: map[string]int{}}
	for _, q := range res.Requests {
		if q.App != "o" {
			continue
		}
		out.preempted += q.Preempted
		if q.Waiting == 0 && q.LastGrant != nil {
			out.last[q.ID] = *q.LastGrant
		}
	}
	for _, e := range res.Events {
		if e.ByApp == "o" && (e.Kind == KindNotice || e.Kind == KindPreempt) {
			out.notices[e.ByRequest]++
		}
	}
	return out
}

// ownerViolations checks o's requests in one trace: each fully granted
// within grace + interval of its ask and never preempted; and its last
// grant (so its completion: it holds each container for its duration)
// no later than alone by more than grace for each notice it sent (its
// notices complete at the round at the deadline: the grace is a whole
// number of intervals).
func ownerViolations(t *testing.T, seed int64, grace float64, readings *assign.Readings) (late, worse int, first string) {
	t.Helper()
	shared := ownerRun(t, ownerTrace(seed, grace, readings, false))
	alone := ownerRun(t, ownerTrace(seed, grace, readings, true))
	note := func(s string) {
		if first == "" {
			first = fmt.Sprintf("seed %d: %s", seed, s)
		}
	}
	if shared.preempted > 0 {
		late += shared.preempted
		note(fmt.Sprintf("o's tasks preempted %d times", shared.preempted))
	}
	req := ownerTrace(seed, grace, readings, true)
	for _, a := range req.Requests {
		got, ok := shared.last[a.ID]
		if !ok || got > a.Arrival+grace+1 {
			late++
			note(fmt.Sprintf("%s asked at %g, fully granted %v (at %g: %v)", a.ID, a.Arrival, ok, got, ok))
		}
		if ok && got > alone.last[a.ID]+grace*float64(shared.notices[a.ID]) {
			worse++
			note(fmt.Sprintf("%s granted at %g, alone at %g, %d notices", a.ID, got, alone.last[a.ID], shared.notices[a.ID]))
		}
	}
	return late, worse, first
}

// TestOwnersProtected: o asking owned_only gets each of its containers
// within grace + one interval whatever b and c do, is never preempted,
// and is never later than alone by more than its notices' grace, over
// random traces with grace 0 (and 2, with bound 0 throughout); under the
// literal readings the same traces break it (b and c, in debt or not,
// take over o's own containers and o waits for its debt to turn), and so
// does lending in priority order alone (a borrower served first takes
// o's freed container or takes over one o is asking for, and o gets it
// a round or a notice later).
func TestOwnersProtected(t *testing.T) {
	for _, tc := range []struct {
		name     string
		readings *assign.Readings
		grace    float64
		breaks   bool
	}{{"default, grace 0", nil, 0, false}, {"default, grace 2", nil, 2, false},
		{"lending priority, grace 0", &assign.Readings{Lending: assign.LendingPriority}, 0, true},
		{"lending priority, grace 2", &assign.Readings{Lending: assign.LendingPriority}, 2, true},
		{"literal, grace 0", assign.ReadingsLiteral(), 0, true}} {
		late, worse, first := 0, 0, ""
		for seed := range int64(30) {
			l, w, f := ownerViolations(t, seed, tc.grace, tc.readings)
			late, worse = late+l, worse+w
			if first == "" {
				first = f
			}
		}
		t.Logf("%s: %d of o's requests late or preempted, %d later than alone beyond their notices", tc.name, late, worse)
		switch {
		case !tc.breaks && late+worse > 0:
			t.Errorf("%s: owners not protected; first %s", tc.name, first)
		case tc.breaks && late == 0:
			t.Errorf("%s: owners protected under the literal readings, expected to break", tc.name)
		}
	}
}
