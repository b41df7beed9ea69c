package xselect

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/xflex/xflex/solver"
)

// GenParams are Generate's knobs (all optional, as strings in params).
type GenParams struct {
	Nodes     int     // nodes (default 100)
	Resources int     // 2..4 (default 2): cpu, mem, disk, net
	Apps      int     // applications (default 10)
	Shapes    int     // container shapes (default 6)
	Types     int     // node types (default 3)
	Garbo     int     // Garbo applications (default 0)
	Colocate  int     // colocate pairs (default 0)
	Exlocate  int     // exlocate pairs (default 0)
	Require   float64 // fraction of applications with a node predicate (default 0)
	Reserved  float64 // fraction of each node reserved (default 0)
	MaxCount  int     // largest mix count (default 20)
}

func intParam(params map[string]string, key string, def, lo, hi int) (int, error) {
	s, ok := params[key]
	if !ok {
		return def, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < lo || v > hi {
		return 0, fmt.Errorf("parameter %s=%q: want an integer in [%d, %d]", key, s, lo, hi)
	}
	return v, nil
}

func floatParam(params map[string]string, key string, def, lo, hi float64) (float64, error) {
	s, ok := params[key]
	if !ok {
		return def, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || v < lo || v > hi {
		return 0, fmt.Errorf("parameter %s=%q: want a number in [%g, %g]", key, s, lo, hi)
	}
	return v, nil
}

// ParseGenParams reads Generate's parameters.
func ParseGenParams(params map[string]string) (GenParams, error) {
	var p GenParams
	var err error
	get := func(dst *int, key string, def, lo, hi int) {
		if err == nil {
			*dst, err = intParam(params, key, def, lo, hi)
		}
	}
	get(&p.Nodes, "nodes", 100, 1, 100000)
	get(&p.Resources, "resources", 2, 1, 4)
	get(&p.Apps, "apps", 10, 1, 1000)
	get(&p.Shapes, "shapes", 6, 1, 100)
	get(&p.Types, "types", 3, 1, 50)
	get(&p.Garbo, "garbo", 0, 0, 1000)
	get(&p.Colocate, "colocate", 0, 0, 1000)
	get(&p.Exlocate, "exlocate", 0, 0, 1000)
	get(&p.MaxCount, "max_count", 20, 1, 1000000)
	if err == nil {
		p.Require, err = floatParam(params, "require", 0, 0, 1)
	}
	if err == nil {
		p.Reserved, err = floatParam(params, "reserved", 0, 0, 0.5)
	}
	if err == nil && p.Garbo > p.Apps {
		err = fmt.Errorf("parameter garbo=%d exceeds apps=%d", p.Garbo, p.Apps)
	}
	return p, err
}

// Generate builds a random X-Select instance: a cluster of node types
// (cpu 32–96 cores, memory 4–8 GB per core, disk 500–4000 GB, network
// 25–100 Gb/s), shapes
// of 1–8 cores with 1–8 GB per core that fit the smallest node type,
// applications with 1–3 shapes each; optional Garbo applications,
// colocate and exlocate pairs, predicates by type or zone label and
// reservations.
func Generate(seed int64, params map[string]string) (any, error) {
	gp, err := ParseGenParams(params)
	if err != nil {
		return nil, err
	}
	return GenerateWith(seed, gp), nil
}

// GenerateWith is Generate with parsed parameters.
func GenerateWith(seed int64, gp GenParams) *Request {
	g := &generator{rng: rand.New(rand.NewPCG(uint64(seed), 0x67656e)), gp: gp}
	g.req = &Request{Resources: []string{"cpu", "mem", "disk", "net"}[:gp.Resources]}
	g.drawTypes()
	g.drawNodes()
	g.drawShapes()
	g.drawApps()
	g.drawColocate()
	g.drawExlocate()
	s := seed
	g.req.Seed = &s
	return g.req
}

// generator is GenerateWith's state: the request as drawn so far, the node
// types and their smallest capacity per resource (over all four).
type generator struct {
	rng    *rand.Rand
	gp     GenParams
	req    *Request
	types  []genType
	minCap []float64
	// pairs are the colocated application pairs; inPair marks their
	// applications (an application joins at most one colocate pair).
	pairs  map[[2]int]bool
	inPair map[int]bool
}

// genType is a generated node type.
type genType struct {
	name string
	cap  []float64
}

var genZones = []string{"a", "b", "c"}

// drawTypes draws the node types: 32–96 cores, 4–8 GB per core, 500–4000
// GB of disk, 25–100 Gb/s of network.
func (g *generator) drawTypes() {
	g.types = make([]genType, g.gp.Types)
	g.minCap = []float64{math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1)}
	for i := range g.types {
		cpu := float64(16 * (2 + g.rng.IntN(5)))
		mem := cpu * float64(4+g.rng.IntN(5))
		disk := float64(500 * (1 + g.rng.IntN(8)))
		net := float64(25 * (1 + g.rng.IntN(4)))
		full := []float64{cpu, mem, disk, net}
		g.types[i] = genType{name: fmt.Sprintf("t%d", i), cap: full[:g.gp.Resources]}
		for r := range g.minCap {
			g.minCap[r] = math.Min(g.minCap[r], full[r])
		}
	}
}

// drawNodes draws the nodes, each of a random type in a random zone, 40 to
// a rack, with the Reserved fraction of each capacity reserved.
func (g *generator) drawNodes() {
	for n := 0; n < g.gp.Nodes; n++ {
		t := g.types[g.rng.IntN(len(g.types))]
		node := Node{Name: fmt.Sprintf("n%05d", n), Type: t.name, Rack: fmt.Sprintf("r%03d", n/40), Capacity: append([]float64(nil), t.cap...),
			Labels: map[string]string{"zone": genZones[g.rng.IntN(len(genZones))]}}
		if g.gp.Reserved > 0 {
			node.Reserved = make([]float64, g.gp.Resources)
			for r := range node.Reserved {
				node.Reserved[r] = math.Round(node.Capacity[r]*g.gp.Reserved*100) / 100
			}
		}
		g.req.Nodes = append(g.req.Nodes, node)
	}
}

// room is what the smallest node type offers of resource r net of
// reservations.
func (g *generator) room(r int) float64 {
	return math.Floor(g.minCap[r] * (1 - g.gp.Reserved))
}

// drawShapes draws the container shapes, 1–8 cores with 1–8 GB per core,
// each cut to fit the smallest node type.
func (g *generator) drawShapes() {
	for s := 0; s < g.gp.Shapes; s++ {
		cpu := float64(1 + g.rng.IntN(8))
		mem := cpu * float64(1+g.rng.IntN(8))
		disk := float64(10 * (1 + g.rng.IntN(20)))
		net := float64(1 + g.rng.IntN(4))
		full := []float64{cpu, mem, disk, net}
		size := full[:g.gp.Resources]
		for r := range size {
			size[r] = math.Max(math.Min(size[r], g.room(r)), 1)
		}
		g.req.Shapes = append(g.req.Shapes, Shape{Name: fmt.Sprintf("s%d", s), Size: size})
	}
}

// drawApps draws the applications: 1–3 shapes each, the first Garbo of
// them Garbo, and with probability Require a predicate by type or zone.
func (g *generator) drawApps() {
	for a := 0; a < g.gp.Apps; a++ {
		app := App{Name: fmt.Sprintf("app%02d", a), Mix: map[string]int64{}}
		k := 1 + g.rng.IntN(min(3, g.gp.Shapes))
		for _, s := range g.rng.Perm(g.gp.Shapes)[:k] {
			app.Mix[g.req.Shapes[s].Name] = int64(1 + g.rng.IntN(g.gp.MaxCount))
		}
		app.Garbo = a < g.gp.Garbo
		if g.rng.Float64() < g.gp.Require {
			app.Require = g.drawPredicate()
		}
		g.req.Apps = append(g.req.Apps, app)
	}
}

// drawPredicate is a random node type or a pair of zones, evenly.
func (g *generator) drawPredicate() *Predicate {
	if g.rng.IntN(2) == 0 {
		return &Predicate{Types: []string{g.types[g.rng.IntN(len(g.types))].name}}
	}
	return &Predicate{Labels: map[string]LabelValue{"zone": {genZones[g.rng.IntN(3)], genZones[g.rng.IntN(3)]}}}
}

// ref names application a's first shape (in shape order) that its mix
// holds, or the whole application.
func (g *generator) ref(a int) Ref {
	for _, sh := range g.req.Shapes {
		if _, ok := g.req.Apps[a].Mix[sh.Name]; ok {
			return Ref{App: g.req.Apps[a].Name, Shape: sh.Name}
		}
	}
	return Ref{Name: g.req.Apps[a].Name}
}

// shapeOf is the size of r's shape, or nil for a whole application.
func (g *generator) shapeOf(r Ref) []float64 {
	for _, sh := range g.req.Shapes {
		if sh.Name == r.Shape {
			return sh.Size
		}
	}
	return nil
}

// pickPair draws two distinct non-Garbo applications (pairing with a Garbo
// application is a contradiction the solver rejects), smaller first.
func (g *generator) pickPair() (int, int) {
	free := g.gp.Apps - g.gp.Garbo
	a := g.gp.Garbo + g.rng.IntN(free)
	b := g.gp.Garbo + g.rng.IntN(free-1)
	if b >= a {
		b++
	}
	return min(a, b), max(a, b)
}

// drawColocate draws Colocate pairs and keeps those that fit every node
// type together, carry no predicates and share no application, so the
// instance stays consistent.
func (g *generator) drawColocate() {
	g.pairs, g.inPair = map[[2]int]bool{}, map[int]bool{}
	for i := 0; i < g.gp.Colocate && g.gp.Apps-g.gp.Garbo >= 2; i++ {
		a, b := g.pickPair()
		x, y := g.ref(a), g.ref(b)
		if !g.fitTogether(x, y) || g.req.Apps[a].Require != nil || g.req.Apps[b].Require != nil || g.inPair[a] || g.inPair[b] {
			continue
		}
		g.pairs[[2]int{a, b}] = true
		g.inPair[a], g.inPair[b] = true, true
		g.req.Colocate = append(g.req.Colocate, [2]Ref{x, y})
	}
}

// fitTogether says whether x's and y's shapes (both shapes, not whole
// applications) fit the smallest node type together.
func (g *generator) fitTogether(x, y Ref) bool {
	sa, sb := g.shapeOf(x), g.shapeOf(y)
	fits := sa != nil && sb != nil
	for r := 0; fits && r < g.gp.Resources; r++ {
		fits = sa[r]+sb[r] <= g.room(r)
	}
	return fits
}

// drawExlocate draws Exlocate pairs, dropping those already colocated.
func (g *generator) drawExlocate() {
	for i := 0; i < g.gp.Exlocate && g.gp.Apps-g.gp.Garbo >= 2; i++ {
		a, b := g.pickPair()
		if g.pairs[[2]int{a, b}] {
			continue
		}
		g.req.Exlocate = append(g.req.Exlocate, [2]Ref{g.ref(a), g.ref(b)})
	}
}

// genParamTable declares Generate's parameters for `xflex gen --help`
// and the check for unknown ones.
var genParamTable = []solver.GenParam{
	{Name: "nodes", Default: "100", Help: "number of nodes"},
	{Name: "resources", Default: "2", Help: "resources, 1..4: cpu, mem, disk, net"},
	{Name: "apps", Default: "10", Help: "number of applications"},
	{Name: "shapes", Default: "6", Help: "number of container shapes"},
	{Name: "types", Default: "3", Help: "number of node types"},
	{Name: "garbo", Default: "0", Help: "number of Garbo applications (at most apps)"},
	{Name: "colocate", Default: "0", Help: "number of colocate pairs"},
	{Name: "exlocate", Default: "0", Help: "number of exlocate pairs"},
	{Name: "require", Default: "0", Help: "fraction of applications with a node predicate"},
	{Name: "reserved", Default: "0", Help: "fraction of each node reserved"},
	{Name: "max_count", Default: "20", Help: "largest mix count"},
}
