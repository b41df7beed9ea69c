package xsize

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
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
	get := func(name string, def, lo, hi int) (int, error) {
		s, ok := params[name]
		if !ok {
			return def, nil
		}
		v, err := strconv.Atoi(s)
		if err != nil || v < lo || v > hi {
			return 0, fmt.Errorf("xsize generate: %s must be an integer in [%d, %d], got %q", name, lo, hi, s)
		}
		return v, nil
	}
	n, err := get("requests", 1000, 1, 1000000)
	if err != nil {
		return nil, err
	}
	distinct, err := get("distinct", 200, 1, 100000)
	if err != nil {
		return nil, err
	}
	d, err := get("dims", 2, 1, 4)
	if err != nil {
		return nil, err
	}
	k, err := get("k", 8, 1, 100000)
	if err != nil {
		return nil, err
	}
	nodes, err := get("nodes", 1, 0, 1)
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(uint64(seed), 0x7873697a65))
	names := []string{"cpu", "memory_gb", "gpu", "disk_gb"}[:d]
	node := [][]float64{{64, 256, 0, 2000}, {48, 384, 8, 4000}, {32, 1024, 0, 2000}}
	counts := []float64{800, 100, 100}
	nodeNames := []string{"standard", "gpu", "highmem"}
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
	pop := make([]float64, len(sizes))
	for i := range pop {
		pop[i] = 1 / math.Pow(float64(i+1), 0.9)
	}
	req := map[string]any{"resources": names, "k": k}
	totals := make([]float64, d)
	for t := range node {
		for i := 0; i < d; i++ {
			totals[i] += counts[t] * node[t][i]
		}
	}
	req["totals"] = totals
	items := make([]map[string]any, n)
	for j := range items {
		items[j] = map[string]any{"size": sizes[pick(r, pop)]}
	}
	req["requests"] = items
	if nodes == 1 {
		var nts []map[string]any
		for t := range node {
			nts = append(nts, map[string]any{"name": nodeNames[t], "capacity": node[t][:d]})
		}
		req["node_types"] = nts
	}
	if s, ok := params["epsilon"]; ok {
		e, err := strconv.ParseFloat(s, 64)
		if err != nil || !(e >= 1e-4 && e <= 10) {
			return nil, fmt.Errorf("xsize generate: epsilon must be in [0.0001, 10], got %q", s)
		}
		req["epsilon"] = e
	}
	if s, ok := params["budget_ms"]; ok {
		b, err := strconv.Atoi(s)
		if err != nil || b < 1 {
			return nil, fmt.Errorf("xsize generate: budget_ms must be a positive integer, got %q", s)
		}
		req["budget_ms"] = b
	}
	return req, nil
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
