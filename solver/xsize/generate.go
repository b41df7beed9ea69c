package xsize

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/xflex/xflex/solver"
)

// Generate builds a request profile like a real cluster's CPU/memory
// request histogram: a few hundred distinct sizes on the usual grids (CPU
// in {0.1, 0.25, 0.5, 1, 2, 4, 8, 16} cores, memory a power-of-two
// GB-per-core ratio with 0.25 GB noise, GPUs mostly 0, local disk in
// 10 GB steps), drawn with Zipf-like popularity, then `requests` samples
// from them (weight 1 each, so aggregation has work to do).
//
// Parameters (all optional): requests (1000), distinct (200), dims (2,
// 1..4: cpu, memory_gb, gpu, disk_gb), k (8), nodes (1: add node types),
// epsilon (unset), budget_ms (unset).
func Generate(seed int64, params map[string]string) (any, error) {
	p, err := parseGenParams(params)
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(uint64(seed), 0x7873697a65))
	sizes := drawSizes(r, p.distinct, p.dims)
	req := map[string]any{"resources": []string{"cpu", "memory_gb", "gpu", "disk_gb"}[:p.dims], "k": p.k}
	req["totals"] = clusterTotals(p.dims)
	req["requests"] = sampleRequests(r, sizes, p.requests)
	if p.nodes == 1 {
		req["node_types"] = nodeTypes(p.dims)
	}
	if err := addOptions(req, params); err != nil {
		return nil, err
	}
	return req, nil
}

// genParams are Generate's integer parameters after parsing.
type genParams struct {
	requests, distinct, dims, k, nodes int
}

// parseGenParams reads Generate's integer parameters, each with its
// default and range.
func parseGenParams(params map[string]string) (genParams, error) {
	var p genParams
	for _, c := range []struct {
		name        string
		def, lo, hi int
		dst         *int
	}{
		{"requests", 1000, 1, 1000000, &p.requests},
		{"distinct", 200, 1, 100000, &p.distinct},
		{"dims", 2, 1, 4, &p.dims},
		{"k", 8, 1, 100000, &p.k},
		{"nodes", 1, 0, 1, &p.nodes},
	} {
		s, ok := params[c.name]
		if !ok {
			*c.dst = c.def
			continue
		}
		v, err := strconv.Atoi(s)
		if err != nil || v < c.lo || v > c.hi {
			return p, fmt.Errorf("xsize generate: %s must be an integer in [%d, %d], got %q", c.name, c.lo, c.hi, s)
		}
		*c.dst = v
	}
	return p, nil
}

// addOptions copies the optional epsilon and budget_ms parameters into
// req after checking them.
func addOptions(req map[string]any, params map[string]string) error {
	if s, ok := params["epsilon"]; ok {
		e, err := strconv.ParseFloat(s, 64)
		if err != nil || !(e >= minGenEpsilon && e <= maxGenEpsilon) {
			return fmt.Errorf("xsize generate: epsilon must be in [0.0001, 10], got %q", s)
		}
		req["epsilon"] = e
	}
	if s, ok := params["budget_ms"]; ok {
		b, err := strconv.Atoi(s)
		if err != nil || b < 1 {
			return fmt.Errorf("xsize generate: budget_ms must be a positive integer, got %q", s)
		}
		req["budget_ms"] = b
	}
	return nil
}

// The generated cluster: three node types (capacity in cpu, memory_gb,
// gpu, disk_gb), their counts and names.
var (
	genNodes      = [][]float64{{64, 256, 0, 2000}, {48, 384, 8, 4000}, {32, 1024, 0, 2000}}
	genNodeCounts = []float64{800, 100, 100}
	genNodeNames  = []string{"standard", "gpu", "highmem"}
)

// drawSizes draws up to distinct different request sizes of d dimensions
// (50·distinct tries): CPU on the usual grid, memory a power-of-two ratio
// per core with 0.25 GB noise, GPUs in one size of ten, disk in 10 GB
// steps.
func drawSizes(r *rand.Rand, distinct, d int) [][]float64 {
	cpus := []float64{0.1, 0.25, 0.5, 1, 2, 4, 8, 16}
	cpuP := []float64{10, 14, 18, 20, 16, 11, 7, 4}
	sizes := make([][]float64, 0, distinct)
	seen := map[string]bool{}
	for tries := 0; len(sizes) < distinct && tries < 50*distinct; tries++ {
		c := cpus[pick(r, cpuP)]
		s := make([]float64, d)
		s[0] = c
		if d > 1 {
			ratio := []float64{1, 2, 4, 8}[pick(r, []float64{2, 4, 3, 1})]
			m := math.Round((c*ratio+0.25*float64(r.IntN(8)))*4) / 4
			s[1] = math.Max(0.25, m)
		}
		if d > 2 && r.IntN(10) == 0 {
			s[2] = []float64{1, 2, 4}[r.IntN(3)]
		}
		if d > 3 {
			s[3] = float64(10 * (1 + r.IntN(20)))
		}
		key := fmt.Sprint(s)
		if seen[key] {
			continue
		}
		seen[key] = true
		sizes = append(sizes, s)
	}
	return sizes
}

// clusterTotals is the generated cluster's capacity in the first d
// dimensions.
func clusterTotals(d int) []float64 {
	totals := make([]float64, d)
	for t := range genNodes {
		for i := 0; i < d; i++ {
			totals[i] += genNodeCounts[t] * genNodes[t][i]
		}
	}
	return totals
}

// sampleRequests draws n requests from sizes with Zipf-like popularity
// (size i has weight (i+1)^-0.9).
func sampleRequests(r *rand.Rand, sizes [][]float64, n int) []map[string]any {
	pop := make([]float64, len(sizes))
	for i := range pop {
		pop[i] = 1 / math.Pow(float64(i+1), 0.9)
	}
	items := make([]map[string]any, n)
	for j := range items {
		items[j] = map[string]any{"size": sizes[pick(r, pop)]}
	}
	return items
}

// nodeTypes are the generated cluster's node types in the first d
// dimensions.
func nodeTypes(d int) []map[string]any {
	var nts []map[string]any
	for t := range genNodes {
		nts = append(nts, map[string]any{"name": genNodeNames[t], "capacity": slices.Clone(genNodes[t][:d])})
	}
	return nts
}

func pick(r *rand.Rand, w []float64) int {
	sum := 0.0
	for _, x := range w {
		sum += x
	}
	x := r.Float64() * sum
	for i, v := range w {
		if x < v {
			return i
		}
		x -= v
	}
	return len(w) - 1
}

// genParamTable declares Generate's parameters for `xflex gen --help`
// and the check for unknown ones.
var genParamTable = []solver.GenParam{
	{Name: "requests", Default: "1000", Help: "number of sampled requests"},
	{Name: "distinct", Default: "200", Help: "number of distinct sizes"},
	{Name: "dims", Default: "2", Help: "resources, 1..4: cpu, memory_gb, gpu, disk_gb"},
	{Name: "k", Default: "8", Help: "number of sizes to choose"},
	{Name: "nodes", Default: "1", Help: "1: add node types, 0: none"},
	{Name: "epsilon", Default: "unset", Help: "the request's epsilon"},
	{Name: "budget_ms", Default: "unset", Help: "the request's budget_ms"},
}
