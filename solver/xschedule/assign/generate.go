package assign

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/xflex/xflex/solver"
)

// GenParams are Generate's knobs (all optional, as strings in params).
type GenParams struct {
	Nodes    int     // nodes (default 20), 4 per rack
	Apps     int     // applications (default 4)
	Garbo    int     // of which Garbo (default 0)
	PerNode  int     // containers per node (default 4)
	Requests int     // pending requests (default 10)
	MaxCount int     // largest request count (default 3)
	Busy     float64 // fraction of containers in use (default 0.6)
	Borrowed float64 // fraction of those used by another application (default 0.3)
	Bound    float64 // largest sharing bound (default 0.05)
	Grace    float64 // grace period (default 30)
	Locality float64 // fraction of requests with a rack or host (default 0.2)
}

// Generate builds a random round: nodes of 16 cpu and 64 memory filled
// with containers of four shapes, applications with random bounds, some
// containers in use (some borrowed), pair contexts whose slopes agree
// with that use and whose shares are spread around the bounds, and
// requests of every type.
func Generate(seed int64, params map[string]string) (any, error) {
	g, err := readGen(params)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5ced))
	req := &Request{Now: 100, Resources: []string{"cpu", "mem"}}
	genApps(req, g, rng)
	genCluster(req, g, rng)
	genPairs(req, rng)
	genAsks(req, g, rng)
	req.Settings = &Settings{GracePeriod: &g.Grace}
	return req, nil
}

var shapes = [][]float64{{1, 4}, {2, 8}, {4, 16}, {4, 8}}

func readGen(params map[string]string) (GenParams, error) {
	g := GenParams{Nodes: 20, Apps: 4, PerNode: 4, Requests: 10, MaxCount: 3, Busy: 0.6, Borrowed: 0.3, Bound: 0.05, Grace: 30, Locality: 0.2}
	ints := []IntParam{{"nodes", &g.Nodes, 1, 1000000}, {"apps", &g.Apps, 1, 10000}, {"garbo", &g.Garbo, 0, 10000}, {"per_node", &g.PerNode, 1, 4},
		{"requests", &g.Requests, 0, 1000000}, {"max_count", &g.MaxCount, 1, 1000}}
	floats := []FloatParam{{"busy", &g.Busy, 0, 1}, {"borrowed", &g.Borrowed, 0, 1}, {"bound", &g.Bound, 0, 1e6}, {"grace", &g.Grace, 0, 1e6}, {"locality", &g.Locality, 0, 1}}
	if err := ReadParams(params, ints, floats); err != nil {
		return g, err
	}
	if g.Garbo > g.Apps {
		return g, fmt.Errorf("parameter garbo=%d exceeds apps=%d", g.Garbo, g.Apps)
	}
	return g, nil
}

// IntParam and FloatParam are a generator's parameter: its key in
// params, the field it sets and the bounds it must lie in.
type (
	IntParam struct {
		Key    string
		Dst    *int
		Lo, Hi int
	}
	FloatParam struct {
		Key    string
		Dst    *float64
		Lo, Hi float64
	}
)

// ReadParams sets each parameter found in params, or says which is not a
// number within its bounds (xschedule-simulate's generator reads its own
// with it).
func ReadParams(params map[string]string, ints []IntParam, floats []FloatParam) error {
	for _, p := range ints {
		if s, ok := params[p.Key]; ok {
			v, err := strconv.Atoi(s)
			if err != nil || v < p.Lo || v > p.Hi {
				return fmt.Errorf("parameter %s=%q: want an integer in [%d, %d]", p.Key, s, p.Lo, p.Hi)
			}
			*p.Dst = v
		}
	}
	for _, p := range floats {
		if s, ok := params[p.Key]; ok {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || !(v >= p.Lo && v <= p.Hi) {
				return fmt.Errorf("parameter %s=%q: want a number in [%g, %g]", p.Key, s, p.Lo, p.Hi)
			}
			*p.Dst = v
		}
	}
	return nil
}

func genApps(req *Request, g GenParams, rng *rand.Rand) {
	for i := range g.Apps {
		a := App{Name: fmt.Sprintf("app%d", i), Mode: ModeShare, SharingBound: round3(rng.Float64() * g.Bound)}
		if i >= g.Apps-g.Garbo {
			a.Mode = ModeGarbo
		} else if i > 0 && rng.IntN(3) == 0 {
			a.SharingBounds = map[string]float64{fmt.Sprintf("app%d", rng.IntN(i)): round3(rng.Float64() * g.Bound)}
		}
		req.Apps = append(req.Apps, a)
	}
}

func round3(x float64) float64 { return float64(int(x*1000)) / 1000 }

// genCluster fills the cluster (GenCluster); a Busy fraction of the
// containers is in use, a Borrowed part of those by a sharing application
// other than the owner.
func genCluster(req *Request, g GenParams, rng *rand.Rand) {
	req.Nodes, req.Containers = GenCluster(g.Nodes, g.PerNode, req.Apps, rng, func(c *Container) { genUse(req, c, g, rng) })
}

// GenCluster makes nodes of 16 cpu and 64 memory (n0, n1, …, four to a
// rack r0, r1, …) and tries perNode containers of random shapes on each,
// keeping those that fit, each owned by a random one of apps. made, when
// not nil, is called on each container as it is made, before the next
// draw from rng (xschedule-simulate's generator shares this cluster).
func GenCluster(nodes, perNode int, apps []App, rng *rand.Rand, made func(*Container)) ([]Node, []Container) {
	var ns []Node
	var cs []Container
	for n := range nodes {
		nd := Node{Name: fmt.Sprintf("n%d", n), Rack: fmt.Sprintf("r%d", n/4), Capacity: []float64{16, 64}}
		ns = append(ns, nd)
		left := []float64{16, 64}
		for k := range perNode {
			s := shapes[rng.IntN(len(shapes))]
			if s[0] > left[0] || s[1] > left[1] {
				continue
			}
			left[0], left[1] = left[0]-s[0], left[1]-s[1]
			c := Container{ID: fmt.Sprintf("%s/%d", nd.Name, k), Node: nd.Name, Size: s, Owner: apps[rng.IntN(len(apps))].Name}
			if made != nil {
				made(&c)
			}
			cs = append(cs, c)
		}
	}
	return ns, cs
}

func genUse(req *Request, c *Container, g GenParams, rng *rand.Rand) {
	if rng.Float64() >= g.Busy {
		return
	}
	c.User = c.Owner
	c.PreemptionPriority = rng.IntN(3)
	sharing := func(name string) bool {
		for _, a := range req.Apps {
			if a.Name == name {
				return a.Mode != ModeGarbo
			}
		}
		return false
	}
	if sharing(c.Owner) && rng.Float64() < g.Borrowed {
		if u := req.Apps[rng.IntN(len(req.Apps))].Name; sharing(u) {
			c.User = u
		}
	}
}

// genPairs gives every pair of sharing applications that share a
// container a context whose slope is the charge balance of that use
// (normalised sizes) and whose share is random.
func genPairs(req *Request, rng *rand.Rand) {
	totals := make([]float64, len(req.Resources))
	for _, n := range req.Nodes {
		for r, x := range n.Capacity {
			totals[r] += x
		}
	}
	idx := map[string]int{}
	for i, a := range req.Apps {
		idx[a.Name] = i
	}
	slopes := map[[2]int]float64{}
	for _, c := range req.Containers {
		if c.User == "" || c.User == c.Owner {
			continue
		}
		o, u := idx[c.Owner], idx[c.User]
		if o < u {
			slopes[[2]int{o, u}] += normalize(c.Size, totals)
		} else {
			slopes[[2]int{u, o}] -= normalize(c.Size, totals)
		}
	}
	for a := range req.Apps {
		for b := a + 1; b < len(req.Apps); b++ {
			s, ok := slopes[[2]int{a, b}]
			if !ok {
				continue
			}
			req.Pairs = append(req.Pairs, Pair{A: req.Apps[a].Name, B: req.Apps[b].Name, LastShare: round3(rng.Float64()*0.2 - 0.1),
				LastSlope: s, LastCalcTime: float64(rng.IntN(100))})
		}
	}
}

var askTypes = []string{OwnedFirst, OwnedFirst, OwnedOnly, NonOwned}

func genAsks(req *Request, g GenParams, rng *rand.Rand) {
	for i := range g.Requests {
		a := Ask{ID: fmt.Sprintf("q%d", i), App: req.Apps[rng.IntN(g.Apps)].Name, Count: 1 + rng.IntN(g.MaxCount),
			Size: askSize(req, rng), Priority: rng.IntN(3),
			PreemptionPriority: rng.IntN(3), Type: askTypes[rng.IntN(len(askTypes))], Duration: float64(10 + rng.IntN(100))}
		if req.Apps[idxOf(req.Apps, a.App)].Mode == ModeGarbo {
			a.Type = OwnedOnly
		}
		if rng.Float64() < g.Locality {
			n := req.Nodes[rng.IntN(len(req.Nodes))]
			if rng.IntN(2) == 0 {
				a.Host = n.Name
			} else {
				a.Rack = n.Rack
			}
		}
		req.Requests = append(req.Requests, a)
	}
}

func idxOf(apps []App, name string) int {
	for i, a := range apps {
		if a.Name == name {
			return i
		}
	}
	return -1
}

// askSize is a random container's size scaled down by up to half, so
// that some container fits every request.
func askSize(req *Request, rng *rand.Rand) []float64 {
	c := req.Containers[rng.IntN(len(req.Containers))]
	out := make([]float64, len(c.Size))
	for r, x := range c.Size {
		out[r] = max(1, float64(int(x*(0.5+rng.Float64()/2))))
	}
	return out
}

// genParamTable declares Generate's parameters for `xflex gen --help`
// and the check for unknown ones.
var genParamTable = []solver.GenParam{
	{Name: "nodes", Default: "20", Help: "number of nodes, 4 per rack"},
	{Name: "apps", Default: "4", Help: "number of applications"},
	{Name: "garbo", Default: "0", Help: "of which Garbo (at most apps)"},
	{Name: "per_node", Default: "4", Help: "containers per node"},
	{Name: "requests", Default: "10", Help: "pending requests"},
	{Name: "max_count", Default: "3", Help: "largest request count"},
	{Name: "busy", Default: "0.6", Help: "fraction of containers in use"},
	{Name: "borrowed", Default: "0.3", Help: "fraction of those used by another application"},
	{Name: "bound", Default: "0.05", Help: "largest sharing bound"},
	{Name: "grace", Default: "30", Help: "grace period"},
	{Name: "locality", Default: "0.2", Help: "fraction of requests with a rack or host"},
}
