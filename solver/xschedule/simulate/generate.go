package simulate

import (
	"fmt"
	"math/rand/v2"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/xschedule/assign"
)

// genParams are Generate's knobs (all optional, as strings in params).
type genParams struct {
	nodes, apps, garbo, perNode, requests, maxCount int
	bound, grace, span, maxDuration                 float64
}

// Generate builds a random simulation: nodes of 16 cpu and 64 memory,
// each filled with containers of four shapes owned by random
// applications, sharing bounds up to bound, and a trace of requests
// arriving uniformly over span, each for a random container's size
// scaled down by up to half (so some container fits it), held for 1 to
// max_duration.
func Generate(seed int64, params map[string]string) (any, error) {
	g, err := readGen(params)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5171))
	req := &Request{Resources: []string{"cpu", "mem"}}
	for i := range g.apps {
		a := assign.App{Name: fmt.Sprintf("app%d", i), Mode: assign.ModeShare, SharingBound: round3(rng.Float64() * g.bound)}
		if i >= g.apps-g.garbo {
			a.Mode = assign.ModeGarbo
		}
		req.Apps = append(req.Apps, a)
	}
	genCluster(req, g, rng)
	genTrace(req, g, rng)
	req.Settings = &Settings{Settings: assign.Settings{GracePeriod: &g.grace}}
	return req, nil
}

func round3(x float64) float64 { return float64(int(x*1000)) / 1000 }

// genCluster is xschedule-assign's generated cluster, every container
// free.
func genCluster(req *Request, g genParams, rng *rand.Rand) {
	var conts []assign.Container
	req.Nodes, conts = assign.GenCluster(g.nodes, g.perNode, req.Apps, rng, nil)
	for _, c := range conts {
		req.Containers = append(req.Containers, Container{ID: c.ID, Node: c.Node, Size: c.Size, Owner: c.Owner})
	}
}

var askTypes = []string{assign.OwnedFirst, assign.OwnedFirst, assign.OwnedOnly, assign.NonOwned}

func genTrace(req *Request, g genParams, rng *rand.Rand) {
	for i := range g.requests {
		app := rng.IntN(g.apps)
		c := req.Containers[rng.IntN(len(req.Containers))]
		size := make([]float64, len(c.Size))
		for r, x := range c.Size {
			size[r] = max(1, float64(int(x*(0.5+rng.Float64()/2))))
		}
		a := Ask{ID: fmt.Sprintf("q%d", i), App: req.Apps[app].Name, Count: 1 + rng.IntN(g.maxCount), Size: size,
			Arrival: float64(rng.IntN(int(g.span) + 1)), Duration: float64(1 + rng.IntN(int(g.maxDuration))),
			Priority: rng.IntN(3), PreemptionPriority: rng.IntN(3), Type: askTypes[rng.IntN(len(askTypes))]}
		if req.Apps[app].Mode == assign.ModeGarbo {
			a.Type = assign.OwnedOnly
		}
		req.Requests = append(req.Requests, a)
	}
}

func readGen(params map[string]string) (genParams, error) {
	g := genParams{nodes: 8, apps: 3, perNode: 4, requests: 40, maxCount: 3, bound: 0.5, grace: 5, span: 100, maxDuration: 60}
	ints := []assign.IntParam{
		{Key: "nodes", Dst: &g.nodes, Lo: 1, Hi: 100000}, {Key: "apps", Dst: &g.apps, Lo: 1, Hi: 1000},
		{Key: "garbo", Dst: &g.garbo, Lo: 0, Hi: 1000}, {Key: "per_node", Dst: &g.perNode, Lo: 1, Hi: 4},
		{Key: "requests", Dst: &g.requests, Lo: 0, Hi: 100000}, {Key: "max_count", Dst: &g.maxCount, Lo: 1, Hi: 100},
	}
	floats := []assign.FloatParam{
		{Key: "bound", Dst: &g.bound, Lo: 0, Hi: 1e6}, {Key: "grace", Dst: &g.grace, Lo: 0, Hi: 1e6},
		{Key: "span", Dst: &g.span, Lo: 0, Hi: 1e6}, {Key: "max_duration", Dst: &g.maxDuration, Lo: 1, Hi: 1e6},
	}
	if err := assign.ReadParams(params, ints, floats); err != nil {
		return g, err
	}
	if g.garbo > g.apps {
		return g, fmt.Errorf("parameter garbo=%d exceeds apps=%d", g.garbo, g.apps)
	}
	return g, nil
}

// genParamTable declares Generate's parameters for `xflex gen --help`
// and the check for unknown ones.
var genParamTable = []solver.GenParam{
	{Name: "nodes", Default: "8", Help: "number of nodes, 4 per rack"},
	{Name: "apps", Default: "3", Help: "number of applications"},
	{Name: "garbo", Default: "0", Help: "of which Garbo (at most apps)"},
	{Name: "per_node", Default: "4", Help: "containers per node"},
	{Name: "requests", Default: "40", Help: "requests in the trace"},
	{Name: "max_count", Default: "3", Help: "largest request count"},
	{Name: "bound", Default: "0.5", Help: "largest sharing bound"},
	{Name: "grace", Default: "5", Help: "grace period"},
	{Name: "span", Default: "100", Help: "arrivals are uniform in [0, span]"},
	{Name: "max_duration", Default: "60", Help: "durations are uniform in [1, max_duration]"},
}
