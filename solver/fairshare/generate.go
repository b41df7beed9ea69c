package fairshare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
)

// Generate builds a random instance. Parameters (all optional):
//
//	frameworks  number of frameworks (default 20)
//	servers     number of server copies (default 100)
//	types       number of server types (default 5)
//	resources   number of resources (default 2; names cpu, mem, then r3…)
//	restricted  fraction of frameworks with a random allowed-server subset
//	            (default 0.2)
//	expand      "true": one server entry per copy instead of types with
//	            counts (the coalescing the solver must then rediscover)
//	policy      the request's policy (default mmf)
//
// Server types draw capacities from 16–128 cores and 2–8 GB per core with
// further resources uniform in 10–100; frameworks draw demands of 1–16
// cores with 2–64 GB and 1–10 of any further resource, weights 1–4; a
// restricted framework allows each server type with probability 1/2.
func Generate(seed int64, params map[string]string) (any, error) {
	get := func(k string, def int) (int, error) {
		s, ok := params[k]
		if !ok {
			return def, nil
		}
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 || v > 1_000_000 {
			return 0, fmt.Errorf("fairshare: parameter %s=%q: want an integer in 1..1000000", k, s)
		}
		return v, nil
	}
	N, err := get("frameworks", 20)
	if err != nil {
		return nil, err
	}
	S, err := get("servers", 100)
	if err != nil {
		return nil, err
	}
	T, err := get("types", 5)
	if err != nil {
		return nil, err
	}
	R, err := get("resources", 2)
	if err != nil {
		return nil, err
	}
	T = min(T, S)
	restricted := 0.2
	if s, ok := params["restricted"]; ok {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v < 0 || v > 1 {
			return nil, fmt.Errorf("fairshare: parameter restricted=%q: want a number in [0,1]", s)
		}
		restricted = v
	}
	policy := PolicyMMF
	if s, ok := params["policy"]; ok {
		policy = s
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6661697273686172))
	req := &Request{Policy: policy}
	req.Resources = []string{"cpu", "mem"}[:min(R, 2)]
	for r := 2; r < R; r++ {
		req.Resources = append(req.Resources, fmt.Sprintf("r%d", r+1))
	}
	round := func(v float64) float64 { return math.Round(v*100) / 100 }
	caps := make([][]float64, T)
	for t := range caps {
		cores := float64(16 * (1 + rng.IntN(8)))
		c := []float64{cores, cores * float64(2+rng.IntN(7))}[:min(R, 2)]
		for r := 2; r < R; r++ {
			c = append(c, round(10+90*rng.Float64()))
		}
		caps[t] = c
	}
	counts := make([]int, T)
	for i := 0; i < S; i++ {
		if i < T {
			counts[i]++
		} else {
			counts[rng.IntN(T)]++
		}
	}
	names := make([][]string, T) // server names per type
	if params["expand"] == "true" {
		for t := range caps {
			for k := 0; k < counts[t]; k++ {
				name := fmt.Sprintf("t%d-%d", t+1, k+1)
				req.Servers = append(req.Servers, ServerSpec{Name: name, Capacity: caps[t]})
				names[t] = append(names[t], name)
			}
		}
	} else {
		for t := range caps {
			c := counts[t]
			name := fmt.Sprintf("t%d", t+1)
			req.Servers = append(req.Servers, ServerSpec{Name: name, Capacity: caps[t], Count: &c})
			names[t] = append(names[t], name)
		}
	}
	for n := 0; n < N; n++ {
		d := []float64{round(1 + 15*rng.Float64()), round(2 + 62*rng.Float64())}[:min(R, 2)]
		for r := 2; r < R; r++ {
			d = append(d, round(1+9*rng.Float64()))
		}
		w := float64(1 + rng.IntN(4))
		f := FrameworkSpec{Name: fmt.Sprintf("f%d", n+1), Demand: d, Weight: &w}
		if rng.Float64() < restricted {
			// Preferences are by server type (labels), as in practice.
			for t := range names {
				if rng.Float64() < 0.5 {
					f.Servers = append(f.Servers, names[t]...)
				}
			}
			if len(f.Servers) == 0 {
				f.Servers = append(f.Servers, names[rng.IntN(T)]...)
			}
		}
		req.Frameworks = append(req.Frameworks, f)
	}
	return req, nil
}
