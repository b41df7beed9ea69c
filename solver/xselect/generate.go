package xselect

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
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
	rng := rand.New(rand.NewPCG(uint64(seed), 0x67656e))
	allRes := []string{"cpu", "mem", "disk", "net"}
	req := &Request{Resources: allRes[:gp.Resources]}
	type ntype struct {
		name string
		cap  []float64
	}
	types := make([]ntype, gp.Types)
	minCap := []float64{math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1)}
	for i := range types {
		cpu := float64(16 * (2 + rng.IntN(5)))
		mem := cpu * float64(4+rng.IntN(5))
		disk := float64(500 * (1 + rng.IntN(8)))
		net := float64(25 * (1 + rng.IntN(4)))
		full := []float64{cpu, mem, disk, net}
		types[i] = ntype{name: fmt.Sprintf("t%d", i), cap: full[:gp.Resources]}
		for r := range minCap {
			minCap[r] = math.Min(minCap[r], full[r])
		}
	}
	zones := []string{"a", "b", "c"}
	for n := 0; n < gp.Nodes; n++ {
		t := types[rng.IntN(len(types))]
		node := Node{Name: fmt.Sprintf("n%05d", n), Type: t.name, Rack: fmt.Sprintf("r%03d", n/40), Capacity: append([]float64(nil), t.cap...),
			Labels: map[string]string{"zone": zones[rng.IntN(len(zones))]}}
		if gp.Reserved > 0 {
			node.Reserved = make([]float64, gp.Resources)
			for r := range node.Reserved {
				node.Reserved[r] = math.Round(node.Capacity[r]*gp.Reserved*100) / 100
			}
		}
		req.Nodes = append(req.Nodes, node)
	}
	for s := 0; s < gp.Shapes; s++ {
		cpu := float64(1 + rng.IntN(8))
		mem := cpu * float64(1+rng.IntN(8))
		disk := float64(10 * (1 + rng.IntN(20)))
		net := float64(1 + rng.IntN(4))
		full := []float64{cpu, mem, disk, net}
		size := full[:gp.Resources]
		for r := range size {
			// Fit the smallest node type net of reservations.
			size[r] = math.Min(size[r], math.Floor(minCap[r]*(1-gp.Reserved)))
			size[r] = math.Max(size[r], 1)
		}
		req.Shapes = append(req.Shapes, Shape{Name: fmt.Sprintf("s%d", s), Size: size})
	}
	for a := 0; a < gp.Apps; a++ {
		app := App{Name: fmt.Sprintf("app%02d", a), Mix: map[string]int64{}}
		k := 1 + rng.IntN(min(3, gp.Shapes))
		for _, s := range rng.Perm(gp.Shapes)[:k] {
			app.Mix[req.Shapes[s].Name] = int64(1 + rng.IntN(gp.MaxCount))
		}
		app.Garbo = a < gp.Garbo
		if rng.Float64() < gp.Require {
			if rng.IntN(2) == 0 {
				app.Require = &Predicate{Types: []string{types[rng.IntN(len(types))].name}}
			} else {
				app.Require = &Predicate{Labels: map[string]LabelValue{"zone": {zones[rng.IntN(3)], zones[rng.IntN(3)]}}}
			}
		}
		req.Apps = append(req.Apps, app)
	}
	ref := func(a int) Ref {
		for s := range req.Shapes {
			if _, ok := req.Apps[a].Mix[req.Shapes[s].Name]; ok {
				return Ref{App: req.Apps[a].Name, Shape: req.Shapes[s].Name}
			}
		}
		return Ref{Name: req.Apps[a].Name}
	}
	// Pairs only among non-Garbo applications (colocating with a Garbo
	// application is a contradiction the solver rejects).
	free := gp.Apps - gp.Garbo
	shapeOf := func(r Ref) []float64 {
		for _, sh := range req.Shapes {
			if sh.Name == r.Shape {
				return sh.Size
			}
		}
		return nil
	}
	pairs := map[[2]int]bool{}
	inPair := map[int]bool{} // an application joins at most one colocate pair

	pick := func() (int, int) {
		a := gp.Garbo + rng.IntN(free)
		b := gp.Garbo + rng.IntN(free-1)
		if b >= a {
			b++
		}
		return min(a, b), max(a, b)
	}
	for i := 0; i < gp.Colocate && free >= 2; i++ {
		a, b := pick()
		x, y := ref(a), ref(b)
		sa, sb := shapeOf(x), shapeOf(y)
		fits := sa != nil && sb != nil
		for r := 0; fits && r < gp.Resources; r++ {
			fits = sa[r]+sb[r] <= math.Floor(minCap[r]*(1-gp.Reserved))
		}
		// Keep only pairs that fit every node type together and carry no
		// predicates, so the instance stays consistent.
		if !fits || req.Apps[a].Require != nil || req.Apps[b].Require != nil || inPair[a] || inPair[b] {
			continue
		}
		pairs[[2]int{a, b}] = true
		inPair[a], inPair[b] = true, true
		req.Colocate = append(req.Colocate, [2]Ref{x, y})
	}
	for i := 0; i < gp.Exlocate && free >= 2; i++ {
		a, b := pick()
		if pairs[[2]int{a, b}] {
			continue
		}
		req.Exlocate = append(req.Exlocate, [2]Ref{ref(a), ref(b)})
	}
	s := seed
	req.Seed = &s
	return req
}
