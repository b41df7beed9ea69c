package plan

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/xflex/xflex/solver"
)

// genParamTable declares Generate's parameters for `xflex gen --help`.
var genParamTable = []solver.GenParam{
	{Name: "nodes", Default: "100", Help: "nodes, over three node types (50/30/20%), 40 to a rack"},
	{Name: "apps", Default: "5", Help: "applications"},
	{Name: "garbo", Default: "0", Help: "of which Garbo (the last ones)"},
	{Name: "forecast", Default: "4", Help: "forecast requests per application"},
	{Name: "dims", Default: "2", Help: "resources, 1..4: cpu, memory_gb, gpu, disk_gb"},
	{Name: "k", Default: "4", Help: "X-Size's number of shapes"},
	{Name: "requests", Default: "2000", Help: "expected requests in the generated trace (sets its horizon)"},
	{Name: "load", Default: "0.9", Help: "forecast demand over cluster capacity in the busiest resource"},
	{Name: "bound", Default: "1", Help: "every application's sharing bound δ_A"},
	{Name: "patience", Default: "60", Help: "simulation: a container not granted within this is dropped"},
}

// genInts are Generate's integer parameters.
type genInts struct {
	nodes, apps, garbo, forecast, dims, k, requests int
}

// Generate builds a plan: a cluster of three node types, applications
// whose forecasts are drawn from the usual CPU/memory grids (CPU in {0.5,
// 1, 2, 4, 8} cores, 2, 4 or 8 GB per core, a GPU one time in ten, disk in
// 10 GB steps), rates scaled so the forecast demand is `load` of the
// busiest resource, a trace generated over the horizon that makes about
// `requests` requests, and a simulation to that horizon with patience.
func Generate(seed int64, params map[string]string) (any, error) {
	gi, err := readInts(params)
	if err != nil {
		return nil, err
	}
	fl := map[string]float64{"load": 0.9, "bound": 1, "patience": 60}
	for k := range fl {
		if s, ok := params[k]; ok {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || !(v > 0) || v > 1e6 {
				return nil, fmt.Errorf("%s: want a positive number up to 1e6, got %q", k, s)
			}
			fl[k] = v
		}
	}
	r := rand.New(rand.NewPCG(uint64(seed), 0x706c616e))
	res := []string{"cpu", "memory_gb", "gpu", "disk_gb"}[:gi.dims]
	types, caps := genCluster(gi.nodes, gi.dims)
	apps, demand, rates := genApps(r, gi, fl["bound"])
	// Scale the rates so the busiest resource's forecast demand is load.
	scale := math.Inf(1)
	for i := range caps {
		if demand[i] > 0 {
			scale = math.Min(scale, fl["load"]*caps[i]/demand[i])
		}
	}
	for _, app := range apps {
		for _, it := range app["forecast"].([]map[string]any) {
			it["rate"] = round6(it["rate"].(float64) * scale)
		}
	}
	horizon := round6(float64(gi.requests) / (rates * scale))
	return map[string]any{
		"resources": res,
		"cluster":   map[string]any{"node_types": types},
		"apps":      apps,
		"xsize":     map[string]any{"k": gi.k},
		"trace":     map[string]any{"horizon": horizon},
		"simulate":  map[string]any{"horizon": horizon, "settings": map[string]any{"patience": fl["patience"]}},
		"seed":      seed,
	}, nil
}

// readInts reads Generate's integer parameters, each with its range.
func readInts(params map[string]string) (genInts, error) {
	gi := genInts{nodes: 100, apps: 5, forecast: 4, dims: 2, k: 4, requests: 2000}
	for _, c := range []struct {
		name   string
		lo, hi int
		dst    *int
	}{
		{"nodes", 1, 100000, &gi.nodes}, {"apps", 1, 1000, &gi.apps}, {"garbo", 0, 1000, &gi.garbo},
		{"forecast", 1, 100, &gi.forecast}, {"dims", 1, 4, &gi.dims}, {"k", 1, 64, &gi.k}, {"requests", 1, DefaultMaxRequests / 2, &gi.requests},
	} {
		s, ok := params[c.name]
		if !ok {
			continue
		}
		v, err := strconv.Atoi(s)
		if err != nil || v < c.lo || v > c.hi {
			return gi, fmt.Errorf("%s: want an integer in [%d, %d], got %q", c.name, c.lo, c.hi, s)
		}
		*c.dst = v
	}
	if gi.garbo > gi.apps {
		return gi, fmt.Errorf("garbo: %d Garbo applications of %d", gi.garbo, gi.apps)
	}
	return gi, nil
}

// genCluster is three node types (big, medium, small) splitting the
// nodes 50/30/20%, 40 nodes to a rack, and the cluster's totals.
func genCluster(nodes, dims int) ([]map[string]any, []float64) {
	kinds := []struct {
		name string
		cap  []float64
		frac float64
	}{
		{"big", []float64{64, 256, 4, 4000}, 0.5},
		{"medium", []float64{32, 128, 2, 2000}, 0.3},
		{"small", []float64{16, 64, 1, 1000}, 0.2},
	}
	racks := make([]string, (nodes+39)/40)
	for i := range racks {
		racks[i] = fmt.Sprintf("r%d", i+1)
	}
	totals := make([]float64, dims)
	var out []map[string]any
	left := nodes
	for i, k := range kinds {
		n := int(math.Round(k.frac * float64(nodes)))
		if i == len(kinds)-1 || n > left {
			n = left
		}
		left -= n
		if n == 0 {
			continue
		}
		for d := range totals {
			totals[d] += float64(n) * k.cap[d]
		}
		out = append(out, map[string]any{"name": k.name, "capacity": k.cap[:dims], "count": n, "racks": racks})
	}
	return out, totals
}

// genApps draws the applications and their forecasts (rates unscaled)
// and returns the forecast demand per resource and the total rate.
func genApps(r *rand.Rand, gi genInts, bound float64) ([]map[string]any, []float64, float64) {
	demand := make([]float64, gi.dims)
	var rates float64
	var apps []map[string]any
	for a := 0; a < gi.apps; a++ {
		var fc []map[string]any
		for f := 0; f < gi.forecast; f++ {
			cpu := []float64{0.5, 1, 2, 4, 8}[r.IntN(5)]
			size := []float64{cpu, cpu * []float64{2, 4, 8}[r.IntN(3)], 0, float64(10 * (1 + r.IntN(20)))}
			if r.IntN(10) == 0 {
				size[2] = 1
			}
			size = size[:gi.dims]
			rate := 0.5 + r.Float64()
			dur := []float64{30, 60, 120, 300}[r.IntN(4)]
			for d := range demand {
				demand[d] += rate * dur * size[d]
			}
			rates += rate
			fc = append(fc, map[string]any{"size": size, "rate": rate, "duration": dur})
		}
		app := map[string]any{"name": fmt.Sprintf("app%d", a+1), "sharing_bound": bound, "forecast": fc}
		if a >= gi.apps-gi.garbo {
			app["mode"] = "garbo"
		}
		apps = append(apps, app)
	}
	return apps, demand, rates
}

// round6 rounds to 6 significant digits so generated files stay short.
func round6(v float64) float64 {
	if v == 0 {
		return 0
	}
	e := math.Pow(10, 5-math.Floor(math.Log10(math.Abs(v))))
	return math.Round(v*e) / e
}
