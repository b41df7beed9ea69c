package plan_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/xflex/plan"
	"github.com/xflex/xflex/solver/xschedule/simulate"
	"github.com/xflex/xflex/solver/xselect"
)

// propTol absorbs the float rounding of sums of a few hundred container
// sizes against a capacity (numbers below 10^4).
const propTol = 1e-9

// TestProperties runs random generated plans and checks, from their
// answers alone: every forecast request is covered by a shape of its
// application's mix, with at least its concurrency in containers; the
// packing respects capacities less reserves, placement predicates and
// Garbo; and both simulated runs keep the simulator's invariants (a
// container has one user at a time, every grant fits its request, a
// Garbo application's containers are never lent, DRF overfills no node,
// every container asked ends granted, expired or waiting).
func TestProperties(t *testing.T) {
	r, err := solver.NewRunner([]solver.Problem{plan.Problem()}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for seed := range int64(12) {
		params := map[string]string{"nodes": strconv.Itoa(4 + int(seed%4)*3), "apps": strconv.Itoa(2 + int(seed%3)),
			"garbo": strconv.Itoa(int(seed % 2)), "forecast": strconv.Itoa(1 + int(seed%4)), "dims": strconv.Itoa(1 + int(seed%3)),
			"k": strconv.Itoa(1 + int(seed%5)), "requests": "120", "bound": []string{"0.5", "2", "10"}[seed%3]}
		v, err := plan.Generate(seed, params)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(v)
		resp, err := r.Run(context.Background(), "xflex/plan", raw)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		var req plan.Request
		if err := json.Unmarshal(raw, &req); err != nil {
			t.Fatal(err)
		}
		var p planned
		if err := json.Unmarshal(resp.Wire, &p); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("seed %d", seed)
		sel := stageOf(t, &p, "xselect")
		var selReq xselect.Request
		if err := json.Unmarshal(sel.Request, &selReq); err != nil {
			t.Fatal(err)
		}
		checkCovered(t, name, &req, p.Result.Mix, &selReq)
		checkAgreesWithXSize(t, name, &req, p.Result.Mix, stageOf(t, &p, "xsize"))
		checkPacking(t, name, &req, &selReq, sel)
		checkSimulation(t, name, &req, stageOf(t, &p, "simulate"))
	}
}

// checkCovered: each forecast request's shape covers its size, is the
// cheapest covering one by X-Size's sum cost, and its application's mix
// holds at least its shape's total concurrency in containers.
func checkCovered(t *testing.T, name string, req *plan.Request, mix *plan.Mix, sel *xselect.Request) {
	t.Helper()
	shapes := map[string][]float64{}
	for _, s := range sel.Shapes {
		shapes[s.Name] = s.Size
	}
	totals := make([]float64, len(req.Resources))
	for _, n := range sel.Nodes {
		for i, c := range n.Capacity {
			totals[i] += c
		}
	}
	cost := func(s []float64) (c float64) {
		for i, x := range s {
			c += x / totals[i]
		}
		return c
	}
	for a, app := range req.Apps {
		am := mix.Apps[a]
		for f, it := range app.Forecast {
			got := am.Forecast[f].Shape
			if !fits(it.Size, shapes[got]) {
				t.Fatalf("%s: %s forecast %d (%v) mapped to %s %v, which does not cover it", name, app.Name, f, it.Size, got, shapes[got])
			}
			for sn, s := range shapes {
				if fits(it.Size, s) && cost(s) < cost(shapes[got])-propTol {
					t.Fatalf("%s: %s forecast %d: %s is cheaper than %s and covers it", name, app.Name, f, sn, got)
				}
			}
			if c := am.Containers[got]; float64(c) < mix.Scale*am.Concurrency[got]-propTol || c < 1 {
				t.Fatalf("%s: %s has %d containers of %s for concurrency %g", name, app.Name, c, got, am.Concurrency[got])
			}
		}
		if !mapsEqual(sel.Apps[a].Mix, am.Containers) {
			t.Fatalf("%s: X-Select's mix of %s %v is not the plan's %v", name, app.Name, sel.Apps[a].Mix, am.Containers)
		}
	}
}

func fits(size, c []float64) bool {
	for i := range size {
		if size[i] > c[i] {
			return false
		}
	}
	return true
}

func mapsEqual(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// checkPacking: X-Select's nodes hold containers within capacity less
// reserve, on nodes their application may use, a Garbo application
// alone on its nodes, and every application at least ⌈λ·c⌉ of each
// shape.
func checkPacking(t *testing.T, name string, req *plan.Request, sel *xselect.Request, run *plan.StageRun) {
	t.Helper()
	var ans struct {
		Result xselect.Result `json:"result"`
	}
	if err := json.Unmarshal(run.Response, &ans); err != nil {
		t.Fatal(err)
	}
	nodes := map[string]*xselect.Node{}
	for i := range sel.Nodes {
		nodes[sel.Nodes[i].Name] = &sel.Nodes[i]
	}
	shapes := map[string][]float64{}
	for _, s := range sel.Shapes {
		shapes[s.Name] = s.Size
	}
	apps := map[string]*xselect.App{}
	for i := range sel.Apps {
		apps[sel.Apps[i].Name] = &sel.Apps[i]
	}
	placed := map[[2]string]int64{}
	for _, nr := range ans.Result.Nodes {
		n := nodes[nr.Name]
		used := make([]float64, len(n.Capacity))
		owners := map[string]bool{}
		for _, c := range nr.Containers {
			for i, x := range shapes[c.Shape] {
				used[i] += x
			}
			owners[c.App] = true
			placed[[2]string{c.App, c.Shape}]++
			if !apps[c.App].Require.Matches(n) {
				t.Fatalf("%s: %s's container on %s, which its predicate refuses", name, c.App, n.Name)
			}
		}
		for i := range used {
			reserve := 0.0
			if n.Reserved != nil {
				reserve = n.Reserved[i]
			}
			if used[i] > n.Capacity[i]-reserve+propTol {
				t.Fatalf("%s: node %s holds %v of resource %d, capacity %v less %v", name, n.Name, used[i], i, n.Capacity[i], reserve)
			}
		}
		for o := range owners {
			if apps[o].Garbo && len(owners) > 1 {
				t.Fatalf("%s: Garbo %s shares node %s", name, o, n.Name)
			}
		}
	}
	for _, a := range sel.Apps {
		for s, c := range a.Mix {
			if need := int64(math.Ceil(ans.Result.Lambda*float64(c) - 1e-9)); placed[[2]string{a.Name, s}] < need {
				t.Fatalf("%s: %s holds %d of %s, λ=%g needs %d", name, a.Name, placed[[2]string{a.Name, s}], s, ans.Result.Lambda, need)
			}
		}
	}
}

// checkSimulation: the simulator's invariants on both runs, from their
// event logs.
func checkSimulation(t *testing.T, name string, req *plan.Request, run *plan.StageRun) {
	t.Helper()
	var simReq simulate.Request
	if err := json.Unmarshal(run.Request, &simReq); err != nil {
		t.Fatal(err)
	}
	var ans struct {
		Result simulate.Result `json:"result"`
	}
	if err := json.Unmarshal(run.Response, &ans); err != nil {
		t.Fatal(err)
	}
	garbo := map[string]bool{}
	for _, a := range req.Apps {
		garbo[a.Name] = a.Mode == "garbo"
	}
	asks := map[string]simulate.Ask{}
	for _, a := range simReq.Requests {
		asks[a.ID] = a
	}
	for label, r := range map[string]*simulate.Run{"X-Flex": &ans.Result.Run, "DRF": &ans.Result.Baselines.DRF} {
		s := r.Summary
		if s.Asked != s.Granted+s.Expired+s.Waiting {
			t.Fatalf("%s %s: asked %d ≠ granted %d + expired %d + waiting %d", name, label, s.Asked, s.Granted, s.Expired, s.Waiting)
		}
		checkEvents(t, name+" "+label, r, asks, garbo, label == "DRF")
	}
}

// checkEvents replays a run's events: one user per container at a
// time, grants fit their requests, Garbo containers never lent, and
// under DRF no node's containers in use exceed its capacity.
func checkEvents(t *testing.T, name string, r *simulate.Run, asks map[string]simulate.Ask, garbo map[string]bool, drf bool) {
	t.Helper()
	if r.Dropped > 0 {
		t.Fatalf("%s: events dropped; the test needs them all", name)
	}
	sizes, caps := map[string][]float64{}, map[string][]float64{}
	for _, n := range r.Packing {
		caps[n.Name] = n.Capacity
		for _, c := range n.Containers {
			sizes[c.ID] = c.Size
		}
	}
	user := map[string]string{}
	inUse := map[string][]float64{}
	nodeOf := func(id string) string {
		for i := len(id) - 1; i >= 0; i-- {
			if id[i] == '/' {
				return id[:i]
			}
		}
		return id
	}
	for _, e := range r.Events {
		switch e.Kind {
		case "grant":
			if u := user[e.Container]; u != "" {
				t.Fatalf("%s: %s granted to %s at %g while %s uses it", name, e.Container, e.User, e.T, u)
			}
			user[e.Container] = e.User
			ask := asks[e.Request]
			size := sizes[e.Container]
			if drf {
				size = ask.Size
				n := nodeOf(e.Container)
				inUse[n] = addVec(inUse[n], size, 1)
				if !fits(inUse[n], caps[n]) {
					t.Fatalf("%s: DRF overfills %s at %g: %v > %v", name, n, e.T, inUse[n], caps[n])
				}
			} else if !fits(ask.Size, size) {
				t.Fatalf("%s: %s (%v) granted for %s asking %v", name, e.Container, size, e.Request, ask.Size)
			}
			if !drf && e.Owner != e.User && (garbo[e.Owner] || garbo[e.User]) {
				t.Fatalf("%s: %s's container %s lent to %s though one is Garbo", name, e.Owner, e.Container, e.User)
			}
		case "release", "preempt":
			if user[e.Container] != e.User {
				t.Fatalf("%s: %s %s by %s, used by %q", name, e.Kind, e.Container, e.User, user[e.Container])
			}
			user[e.Container] = ""
			if drf {
				n := nodeOf(e.Container)
				inUse[n] = addVec(inUse[n], asks[e.Request].Size, -1)
			}
		}
	}
}

func addVec(a, b []float64, sign float64) []float64 {
	if a == nil {
		a = make([]float64, len(b))
	}
	for i := range b {
		a[i] += sign * b[i]
	}
	return a
}

// checkAgreesWithXSize: the mix maps each forecast request to the shape
// X-Size's own assignment gives it, or to one of the same cost (a tie).
func checkAgreesWithXSize(t *testing.T, name string, req *plan.Request, mix *plan.Mix, run *plan.StageRun) {
	t.Helper()
	var ans struct {
		Result struct {
			Shapes []struct {
				NormalizedSize float64 `json:"normalized_size"`
			} `json:"shapes"`
			Assignment []int `json:"assignment"`
		} `json:"result"`
	}
	if err := json.Unmarshal(run.Response, &ans); err != nil {
		t.Fatal(err)
	}
	j := 0
	for a, app := range req.Apps {
		for f := range app.Forecast {
			theirs := ans.Result.Assignment[j]
			var ours int
			if _, err := fmt.Sscanf(mix.Apps[a].Forecast[f].Shape, "s%d", &ours); err != nil {
				t.Fatal(err)
			}
			ours--
			if ours != theirs && math.Abs(ans.Result.Shapes[ours].NormalizedSize-ans.Result.Shapes[theirs].NormalizedSize) > propTol {
				t.Fatalf("%s: %s forecast %d: mix chose s%d, X-Size assigned s%d at another cost", name, app.Name, f, ours+1, theirs+1)
			}
			j++
		}
	}
}
