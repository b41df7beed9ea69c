package fairshare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/xflex/xflex/solver"
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
	p, err := parseGenParams(params)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6661697273686172))
	req := &Request{Policy: p.policy, Resources: resourceNames(p.resources)}
	caps := drawCapacities(rng, p.types, p.resources)
	counts := spreadServers(rng, p.servers, p.types)
	names := addServers(req, caps, counts, p.expand)
	for n := 0; n < p.frameworks; n++ {
		req.Frameworks = append(req.Frameworks, drawFramework(rng, n, p, names))
	}
	return req, nil
}

// genParams are Generate's parameters after parsing.
type genParams struct {
	frameworks, servers, types, resources int
	restricted                            float64
	expand                                bool
	policy                                string
}

// parseGenParams reads Generate's parameters, with their defaults; types
// is at most servers.
func parseGenParams(params map[string]string) (genParams, error) {
	p := genParams{restricted: 0.2, policy: PolicyMMF, expand: params["expand"] == "true"}
	for _, c := range []struct {
		name string
		def  int
		dst  *int
	}{{"frameworks", 20, &p.frameworks}, {"servers", 100, &p.servers}, {"types", 5, &p.types}, {"resources", 2, &p.resources}} {
		v, err := genInt(params, c.name, c.def)
		if err != nil {
			return p, err
		}
		*c.dst = v
	}
	p.types = min(p.types, p.servers)
	if s, ok := params["restricted"]; ok {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v < 0 || v > 1 {
			return p, fmt.Errorf("fairshare: parameter restricted=%q: want a number in [0,1]", s)
		}
		p.restricted = v
	}
	if s, ok := params["policy"]; ok {
		p.policy = s
	}
	return p, nil
}

// genInt is the integer parameter k in 1..1000000, or def when absent.
func genInt(params map[string]string, k string, def int) (int, error) {
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

// resourceNames are cpu, mem, then r3, r4, … up to R names.
func resourceNames(R int) []string {
	names := []string{"cpu", "mem"}[:min(R, 2)]
	for r := 2; r < R; r++ {
		names = append(names, fmt.Sprintf("r%d", r+1))
	}
	return names
}

// round2 rounds v to two decimals.
func round2(v float64) float64 { return math.Round(v*100) / 100 }

// drawCapacities draws each of T server types' capacities: 16–128 cores,
// 2–8 GB per core, further resources uniform in 10–100.
func drawCapacities(rng *rand.Rand, T, R int) [][]float64 {
	caps := make([][]float64, T)
	for t := range caps {
		cores := float64(16 * (1 + rng.IntN(8)))
		c := []float64{cores, cores * float64(2+rng.IntN(7))}[:min(R, 2)]
		for r := 2; r < R; r++ {
			c = append(c, round2(10+90*rng.Float64()))
		}
		caps[t] = c
	}
	return caps
}

// spreadServers gives each of T types one of the S servers and the rest
// uniformly at random.
func spreadServers(rng *rand.Rand, S, T int) []int {
	counts := make([]int, T)
	for i := 0; i < S; i++ {
		if i < T {
			counts[i]++
		} else {
			counts[rng.IntN(T)]++
		}
	}
	return counts
}

// addServers writes the server entries, one per type with its count or,
// with expand, one per copy, and returns the server names of each type.
func addServers(req *Request, caps [][]float64, counts []int, expand bool) [][]string {
	names := make([][]string, len(caps))
	for t := range caps {
		if !expand {
			c := counts[t]
			name := fmt.Sprintf("t%d", t+1)
			req.Servers = append(req.Servers, ServerSpec{Name: name, Capacity: caps[t], Count: &c})
			names[t] = append(names[t], name)
			continue
		}
		for k := 0; k < counts[t]; k++ {
			name := fmt.Sprintf("t%d-%d", t+1, k+1)
			req.Servers = append(req.Servers, ServerSpec{Name: name, Capacity: caps[t]})
			names[t] = append(names[t], name)
		}
	}
	return names
}

// drawFramework draws framework n: demands of 1–16 cores, 2–64 GB and 1–10
// of any further resource, weight 1–4, and with probability restricted an
// allowed subset of server types, each kept with probability 1/2 (at
// least one).
func drawFramework(rng *rand.Rand, n int, p genParams, names [][]string) FrameworkSpec {
	R := p.resources
	d := []float64{round2(1 + 15*rng.Float64()), round2(2 + 62*rng.Float64())}[:min(R, 2)]
	for r := 2; r < R; r++ {
		d = append(d, round2(1+9*rng.Float64()))
	}
	w := float64(1 + rng.IntN(4))
	f := FrameworkSpec{Name: fmt.Sprintf("f%d", n+1), Demand: d, Weight: &w}
	if rng.Float64() < p.restricted {
		// Preferences are by server type (labels), as in practice.
		for t := range names {
			if rng.Float64() < 0.5 {
				f.Servers = append(f.Servers, names[t]...)
			}
		}
		if len(f.Servers) == 0 {
			f.Servers = append(f.Servers, names[rng.IntN(p.types)]...)
		}
	}
	return f
}

// genParamTable declares Generate's parameters for `xflex gen --help`
// and the check for unknown ones.
var genParamTable = []solver.GenParam{
	{Name: "frameworks", Default: "20", Help: "number of frameworks"},
	{Name: "servers", Default: "100", Help: "number of server copies"},
	{Name: "types", Default: "5", Help: "number of server types (at most servers)"},
	{Name: "resources", Default: "2", Help: "number of resources (cpu, mem, then r3...)"},
	{Name: "restricted", Default: "0.2", Help: "fraction of frameworks with a random allowed-server subset"},
	{Name: "expand", Default: "false", Help: "one server entry per copy instead of types with counts"},
	{Name: "policy", Default: "mmf", Help: "the request's policy"},
}
