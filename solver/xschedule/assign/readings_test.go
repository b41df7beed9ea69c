package assign

import (
	"context"
	"testing"
)

// readingsRound is one node of (4, 4) with four (1, 1) containers c0..c3
// owned by o, u, r, r; c0 is used by u. apps o, u, r share with bound
// bound. pairs and requests are the case's.
func readingsRound(bound float64, pairs []Pair, asks []Ask, readings *Readings) *Request {
	grace, hold := 30.0, 60.0
	return &Request{Now: 100, Resources: []string{"cpu", "mem"},
		Nodes: []Node{{Name: "n", Capacity: []float64{4, 4}}},
		Containers: []Container{{ID: "c0", Node: "n", Size: []float64{1, 1}, Owner: "o", User: "u"},
			{ID: "c1", Node: "n", Size: []float64{1, 1}, Owner: "u", User: "u"},
			{ID: "c2", Node: "n", Size: []float64{1, 1}, Owner: "r", User: "r"},
			{ID: "c3", Node: "n", Size: []float64{1, 1}, Owner: "r", User: "r"}},
		Apps:  []App{{Name: "o", SharingBound: bound}, {Name: "u", SharingBound: bound}, {Name: "r", SharingBound: bound}},
		Pairs: pairs, Requests: asks,
		Settings: &Settings{GracePeriod: &grace, HoldTime: &hold, Readings: readings}}
}

func decideReq(t *testing.T, req *Request) *Result {
	t.Helper()
	m, err := Build(req)
	if err != nil {
		t.Fatal(err)
	}
	res, _ := m.Decide(context.Background())
	return res
}

// TestReadings: each reading's default against its literal value on a
// round that tells them apart.
func TestReadings(t *testing.T) {
	// u is 2 in debt to r (a pair's share is how far b is in debt to a).
	uOwesR := []Pair{{A: "r", B: "u", LastShare: 2, LastCalcTime: 100}}
	// o is 2 in debt to u: u is not in debt to o.
	oOwesU := []Pair{{A: "u", B: "o", LastShare: 2, LastCalcTime: 100}}
	take := []Ask{{ID: "r1", App: "r", Count: 1, Size: []float64{1, 1}, Type: NonOwned}}
	back := []Ask{{ID: "o1", App: "o", Count: 1, Size: []float64{1, 1}, Type: OwnedOnly}}
	for _, tc := range []struct {
		name     string
		bound    float64
		pairs    []Pair
		asks     []Ask
		readings *Readings
		want     string // kind of the one notice, or the pending reason
	}{
		// r may take over c0 (o's, borrowed by u, who owes r) but not
		// c1, u's own: borrowed_only; owned_too takes c1 too (lowest
		// index among equal scores is c0 either way, so ask for two).
		{"takeover borrowed_only", 1, uOwesR, []Ask{{ID: "r1", App: "r", Count: 2, Size: []float64{1, 1}, Type: NonOwned}}, nil, "takeover+" + ReasonBound},
		{"takeover owned_too", 1, uOwesR, []Ask{{ID: "r1", App: "r", Count: 2, Size: []float64{1, 1}, Type: NonOwned}}, &Readings{Takeover: TakeoverOwnedToo}, "takeover+takeover"},
		// o takes c0 back from u with bound 0 though u owes it nothing.
		{"zero_bound on_demand", 0, oOwesU, back, nil, "reclaim"},
		{"zero_bound in_debt", 0, oOwesU, back, &Readings{ZeroBound: ZeroBoundInDebt}, ReasonBound},
		// with bound 1 the owner needs u in debt by 1 either way.
		{"bound 1 on_demand", 1, oOwesU, back, nil, ReasonBound},
		// r, first in order, would take over c0, but o asks for it in
		// the same round (lending owner_first): o takes it back, r
		// waits; lending priority lets r take it and o waits (busy).
		{"owner_first: no takeover of what the owner asks for", 0, uOwesR, append(append([]Ask{}, take...), back[0]), nil, "reclaim+" + ReasonBound},
		{"priority: takeover first", 0, uOwesR, append(append([]Ask{}, take...), back[0]), &Readings{Lending: LendingPriority}, "takeover+" + ReasonBusy},
	} {
		res := decideReq(t, readingsRound(tc.bound, tc.pairs, tc.asks, tc.readings))
		got := ""
		for _, n := range res.Notices {
			got += "+" + n.Kind
		}
		for _, p := range res.Pending {
			got += "+" + p.Reason
		}
		if len(got) > 0 {
			got = got[1:]
		}
		if got != tc.want {
			t.Errorf("%s: notices and pending %q, want %q (%+v)", tc.name, got, tc.want, res)
		}
	}
}

// TestReclaimRedirectsTakeover: o asks for c0 while it is under r's
// takeover notice (deadline 110): the notice is withdrawn and o's reclaim
// keeps its deadline; with lending priority (literal) o waits (busy).
func TestReclaimRedirectsTakeover(t *testing.T) {
	for _, readings := range []*Readings{nil, {Lending: LendingPriority}} {
		req := readingsRound(0, nil, []Ask{{ID: "o1", App: "o", Count: 1, Size: []float64{1, 1}, Type: OwnedOnly}}, readings)
		req.Containers[0].Notice = &Notice{App: "r", Request: "r1", Deadline: 110}
		res := decideReq(t, req)
		if readings != nil {
			if len(res.Withdrawn) != 0 || len(res.Notices) != 0 || len(res.Pending) != 1 || res.Pending[0].Reason != ReasonBusy {
				t.Errorf("lending priority: %+v, want o1 busy", res)
			}
			continue
		}
		if len(res.Withdrawn) != 1 || res.Withdrawn[0].App != "r" || res.Withdrawn[0].Kind != KindTakeover ||
			len(res.Notices) != 1 || res.Notices[0].App != "o" || res.Notices[0].Deadline != 110 || res.Notices[0].Kind != KindReclaim {
			t.Errorf("withdrawn %+v, notices %+v: want r's notice withdrawn, o's reclaim by 110", res.Withdrawn, res.Notices)
		}
	}
}

// TestHold: at 100 r takes over c0 (o's, borrowed by u, u 0.5 in debt to
// r, the pair's trend −1 per second); at 101 u is 0.5 in debt the other
// way and asks for it back. The pair moved 1 < charge 0.25 × hold 60, so
// the hold keeps c0 with r; at 160 (hold time passed), or with hold
// none, u takes it.
func TestHold(t *testing.T) {
	for _, tc := range []struct {
		readings *Readings
		at       float64
		want     int // notices at the second round
	}{{nil, 101, 0}, {nil, 160, 1}, {&Readings{Hold: HoldNone}, 101, 1}} {
		grace := 0.0
		req := readingsRound(1e-9, []Pair{{A: "r", B: "u", LastShare: 0.5, LastSlope: -1, LastCalcTime: 100}},
			[]Ask{{ID: "r1", App: "r", Count: 1, Size: []float64{1, 1}, Type: NonOwned}}, tc.readings)
		req.Settings.GracePeriod = &grace
		m, err := Build(req)
		if err != nil {
			t.Fatal(err)
		}
		res, _ := m.Decide(context.Background())
		if len(res.Grants) != 1 || res.Grants[0].Container != "c0" || res.Grants[0].From != "u" {
			t.Fatalf("first round %+v, want c0 taken from u", res.Grants)
		}
		p, err := m.Prepare(Ask{ID: "u1", App: "u", Count: 1, Size: []float64{1, 1}, Type: NonOwned}, func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		res, _ = m.Round(context.Background(), tc.at, []Queued{{Ask: &p, ID: "u1", Count: 1}})
		if got := len(res.Grants); got != tc.want {
			t.Errorf("readings %+v at %g: %d grants %+v, want %d", tc.readings, tc.at, got, res.Grants, tc.want)
		}
	}
}
