package plan

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/xflex/xflex/ptas"
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/xselect"
	"github.com/xflex/xflex/solver/xsize"
)

// maxNodeTypes is xsize's limit on node_types (its schema's maxItems).
const maxNodeTypes = 64

// concurrency is a forecast request's expected number in service at
// once: Weight when given, else Rate·Duration (Little's law).
func concurrency(it Forecast) float64 {
	if it.Weight != nil {
		return *it.Weight
	}
	if it.Rate != nil {
		return *it.Rate * it.Duration
	}
	return 0
}

// totals are the cluster's capacities per resource (reserves included:
// X-Schedule's charges normalise by them too); a resource no node has
// gets total 1 so that X-Size's normalisation stays defined (every size
// on it is 0 then, or the request fits no node and Build refused it).
func (p *checked) totals() []float64 {
	out := make([]float64, len(p.req.Resources))
	for _, n := range p.nodes {
		for i, c := range n.Capacity {
			out[i] += c
		}
	}
	for i, t := range out {
		if !(t > 0) || math.IsInf(t, 0) {
			out[i] = 1
		}
	}
	return out
}

// nodeTypes are X-Size's node_types: the distinct capacities (less
// reserves) not dominated by another, named by their node's type (or
// name), at most maxNodeTypes of them, the largest in total first. A
// shape fitting a dominated capacity fits the one dominating it, so
// dropping dominated ones loses nothing.
func (p *checked) nodeTypes() []xsize.NodeType {
	var out []xsize.NodeType
	for i := range p.nodes {
		c := effective(&p.nodes[i])
		dominated := slices.ContainsFunc(out, func(nt xsize.NodeType) bool { return ptas.Fits(c, nt.Capacity) })
		if dominated {
			continue
		}
		out = slices.DeleteFunc(out, func(nt xsize.NodeType) bool { return ptas.Fits(nt.Capacity, c) })
		name := p.nodes[i].Type
		if name == "" || slices.ContainsFunc(out, func(nt xsize.NodeType) bool { return nt.Name == name }) {
			name = p.nodes[i].Name
		}
		out = append(out, xsize.NodeType{Name: name, Capacity: c})
	}
	if len(out) > maxNodeTypes {
		slices.SortStableFunc(out, func(a, b xsize.NodeType) int { return -cmpSum(a.Capacity, b.Capacity) })
		out = out[:maxNodeTypes]
	}
	return out
}

func cmpSum(a, b []float64) int {
	var x, y float64
	for i := range a {
		x += a[i]
		y += b[i]
	}
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// xsizeRequest is stage 1's request: X-Size over the union of the
// forecasts, each weighted by its weight or rate × duration.
func (p *checked) xsizeRequest() *xsize.Request {
	req := &xsize.Request{Resources: p.req.Resources, Totals: p.totals(), K: p.k, NodeTypes: p.nodeTypes()}
	eps := DefaultEpsilon
	if s := p.req.XSize; s != nil {
		if s.Epsilon != nil {
			eps = *s.Epsilon
		}
		req.Fit, req.Rays, req.Baselines = s.Fit, s.Rays, s.Baselines
	}
	req.Epsilon = &eps
	for j, it := range p.items {
		w := concurrency(it)
		name := it.Name
		if name == "" {
			name = fmt.Sprintf("%s#%d", p.req.Apps[p.itemApp[j]].Name, p.itemIdx[j])
		}
		req.Requests = append(req.Requests, xsize.RequestItem{Size: it.Size, Weight: &w, Name: name})
	}
	req.Seed = p.req.Seed
	return req
}

// xsizePtr translates a pointer into X-Size's request into the plan's.
func (p *checked) xsizePtr(ptr string) string {
	var j int
	var rest string
	if n, _ := fmt.Sscanf(ptr, "/requests/%d", &j); n == 1 && j >= 0 && j < len(p.items) {
		_, rest, _ = strings.Cut(strings.TrimPrefix(ptr, "/requests/"), "/")
		if rest == "" {
			return p.itemPtr(j)
		}
		return p.itemPtr(j) + "/" + rest
	}
	switch {
	case ptr == "/k" || ptr == "/epsilon" || ptr == "/fit" || ptr == "/rays":
		return "/xsize" + ptr
	case strings.HasPrefix(ptr, "/node_types") || strings.HasPrefix(ptr, "/totals"):
		return "/cluster"
	}
	return ""
}

// Mix is stage 2's answer: each application's forecast mapped onto the
// shapes and the container mix that makes.
type Mix struct {
	Scale float64  `json:"scale"`
	Apps  []AppMix `json:"apps"`
}

// AppMix is one application's mix: for each forecast request the shape
// that covers it most cheaply and its expected concurrency; per shape the
// expected concurrency and the containers asked (Containers, X-Select's
// mix).
type AppMix struct {
	App         string             `json:"app"`
	Forecast    []ItemShape        `json:"forecast"`
	Concurrency map[string]float64 `json:"concurrency"`
	Containers  map[string]int64   `json:"containers"`
}

// ItemShape is one forecast request's shape.
type ItemShape struct {
	Shape       string  `json:"shape"`
	Concurrency float64 `json:"concurrency"`
}

// mixTol absorbs the rounding of a sum of products before its ceiling:
// 0.1·3 + 0.2·3 is 0.9000000000000001, which must make 1 container at
// scale 1, not 2. 1e-9 is far below any container fraction a forecast
// means.
const mixTol = 1e-9

// maxMix is the largest count X-Select accepts in a mix (common.json's
// count).
const maxMix = 1e9

// shapeName is the name of X-Size's shape s in the later stages.
func shapeName(s int) string { return fmt.Sprintf("s%d", s+1) }

// cheapest is the shape covering size at least cost as X-Size's cost
// defines it (sum or max of the normalised coordinates), ties by lower
// index; -1 when none covers it.
func cheapest(size []float64, shapes []xsize.Shape, totals []float64, fitMax bool) int {
	best, bestCost := -1, math.Inf(1)
	for s, sh := range shapes {
		if !ptas.Fits(size, sh.Size) {
			continue
		}
		var c float64
		for i, x := range sh.Size {
			if fitMax {
				c = math.Max(c, x/totals[i])
			} else {
				c += x / totals[i]
			}
		}
		if c < bestCost {
			best, bestCost = s, c
		}
	}
	return best
}

// mapMix is stage 2: every forecast request goes to the cheapest shape
// covering it, each application's mix counts ⌈scale·Σ concurrency⌉
// containers of each shape it uses.
func (p *checked) mapMix(shapes []xsize.Shape, totals []float64, fitMax bool) (*Mix, error) {
	scale := 1.0
	if p.req.Mix != nil && p.req.Mix.Scale != nil {
		scale = *p.req.Mix.Scale
	}
	out := &Mix{Scale: scale}
	var vs solver.Violations
	for a, app := range p.req.Apps {
		am := AppMix{App: app.Name, Forecast: []ItemShape{}, Concurrency: map[string]float64{}, Containers: map[string]int64{}}
		for f, it := range app.Forecast {
			s := cheapest(it.Size, shapes, totals, fitMax)
			if s < 0 {
				vs.Add(solver.Ptr("apps", a, "forecast", f, "size"), "mix: no shape X-Size chose covers request %v", it.Size)
				continue
			}
			c := concurrency(it)
			am.Forecast = append(am.Forecast, ItemShape{Shape: shapeName(s), Concurrency: c})
			am.Concurrency[shapeName(s)] += c
		}
		for name, c := range am.Concurrency {
			n := math.Max(1, math.Ceil(scale*c-mixTol))
			if n > maxMix {
				vs.Add("/mix/scale", "mix: %g containers of %s for %q exceed X-Select's limit of %g; lower mix.scale", n, name, app.Name, maxMix)
				continue
			}
			am.Containers[name] = int64(n)
		}
		out.Apps = append(out.Apps, am)
	}
	return out, vs.Err()
}

// xselectRequest is stage 3's request: the nodes, X-Size's shapes, and
// each application's mix, Garbo flag and placement predicate, with the
// plan's X-Select constraints.
func (p *checked) xselectRequest(shapes []xsize.Shape, mix *Mix) *xselect.Request {
	req := &xselect.Request{Resources: p.req.Resources, Nodes: p.nodes, Seed: p.req.Seed}
	for s, sh := range shapes {
		req.Shapes = append(req.Shapes, xselect.Shape{Name: shapeName(s), Size: sh.Size})
	}
	for a, app := range p.req.Apps {
		req.Apps = append(req.Apps, xselect.App{Name: app.Name, Mix: mix.Apps[a].Containers, Garbo: app.Mode == "garbo", Require: app.Require})
	}
	if s := p.req.XSelect; s != nil {
		req.Colocate, req.Exlocate, req.Score, req.Method = s.Colocate, s.Exlocate, s.Score, s.Method
	}
	return req
}

// xselectPtr translates a pointer into X-Select's request into the plan's.
func (p *checked) xselectPtr(ptr string) string {
	var i int
	switch {
	case strings.HasPrefix(ptr, "/apps/"):
		if n, _ := fmt.Sscanf(ptr, "/apps/%d", &i); n == 1 {
			return solver.Ptr("apps", i)
		}
	case strings.HasPrefix(ptr, "/nodes/"):
		if n, _ := fmt.Sscanf(ptr, "/nodes/%d", &i); n == 1 && i >= 0 && i < len(p.nodePtr) {
			return p.nodePtr[i]
		}
	case strings.HasPrefix(ptr, "/colocate") || strings.HasPrefix(ptr, "/exlocate") || ptr == "/score" || ptr == "/method":
		return "/xselect" + ptr
	case strings.HasPrefix(ptr, "/shapes"):
		return "/xsize"
	}
	return ""
}
