package cmmf

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/xflex/xflex/solver"
)

// Google-like instances after Sharma et al. (SoCC 2011) as used in the
// paper's §7: 21 constraint attributes whose satisfaction frequencies over
// machines range from 100% down to 7–8%, jobs requiring about 1.8 of them
// on average, so the average job can use about 38% of the machines and a
// sizeable minority under 10%.
//
// Each machine type gets an integer attribute c01..c21 drawn uniformly from
// 0..99; constraint j holds on a type when c_j ≥ 100·(1−f_j), so it holds
// on a fraction f_j of types. A user requires each constraint independently
// with probability p_j (popular constraints are the permissive ones), which
// gives 1.8 required constraints on average.

// constraintFreq is f_j: the fraction of machines satisfying constraint j.
var constraintFreq = [21]float64{1.0, 0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55, 0.5, 0.45, 0.4, 0.35, 0.3, 0.25, 0.2, 0.15, 0.1, 0.08, 0.07}

// constraintPick is p_j: the probability that a user requires constraint
// j; Σ p_j = 1.8. The mass sits on the middle and on the two most
// restrictive constraints, calibrated so that the usable fraction averages
// ≈ 38% with ~40% of users under 20% and ~30% under 10% (measured by
// TestGenerateMatchesGoogleStatistics).
var constraintPick = [21]float64{0.03, 0.08, 0.09, 0.09, 0.09, 0.09, 0.09, 0.09, 0.09, 0.10, 0.10, 0.10, 0.09, 0.08, 0.08, 0.07, 0.07, 0.07, 0.07, 0.09, 0.14}

// GenParams are the generator's knobs (all from string parameters).
type GenParams struct {
	Users, Types, Machines int
	// Weighted draws weights from {1, 2, 3, 4}; otherwise all weights are 1.
	Weighted bool
	// CappedFrac is the fraction of users with a finite demand.
	CappedFrac float64
	// Divisible sets the request's divisible flag.
	Divisible bool
	// Individual lists machines one by one instead of as types.
	Individual bool
}

// ParseGenParams reads users, types, machines (default 20 per user),
// weighted, capped and divisible from string parameters.
func ParseGenParams(params map[string]string) (GenParams, error) {
	p := GenParams{Users: 100, Types: 20, Divisible: true}
	ints := map[string]*int{"users": &p.Users, "types": &p.Types, "machines": &p.Machines}
	for k, v := range params {
		switch k {
		case "users", "types", "machines":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > 10_000_000 {
				return p, fmt.Errorf("cmmf gen: %s must be an integer in [0, 1e7], got %q", k, v)
			}
			*ints[k] = n
		case "weighted", "divisible", "individual":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return p, fmt.Errorf("cmmf gen: %s must be true or false, got %q", k, v)
			}
			switch k {
			case "weighted":
				p.Weighted = b
			case "divisible":
				p.Divisible = b
			default:
				p.Individual = b
			}
		case "capped":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || !(f >= 0 && f <= 1) {
				return p, fmt.Errorf("cmmf gen: capped must be a fraction in [0, 1], got %q", v)
			}
			p.CappedFrac = f
		default:
			return p, fmt.Errorf("cmmf gen: unknown parameter %q (want users, types, machines, weighted, capped, divisible, individual)", k)
		}
	}
	if p.Users < 1 || p.Types < 1 {
		return p, fmt.Errorf("cmmf gen: users and types must be at least 1")
	}
	if _, set := params["machines"]; !set {
		p.Machines = 20 * p.Users
	}
	return p, nil
}

// Generate builds a random Google-like CMMF request.
func Generate(seed int64, params map[string]string) (any, error) {
	p, err := ParseGenParams(params)
	if err != nil {
		return nil, err
	}
	return GenerateRequest(seed, p), nil
}

// GenerateRequest builds the request for explicit parameters.
func GenerateRequest(seed int64, p GenParams) *Request {
	r := rand.New(rand.NewPCG(uint64(seed), 0x636d6d66)) // "cmmf"
	req := &Request{}
	// Machine counts: each type's share of the machines ∝ an exponential
	// draw, then largest-remainder rounding so counts sum to Machines.
	sizes := make([]float64, p.Types)
	sum := 0.0
	for t := range sizes {
		sizes[t] = r.ExpFloat64()
		sum += sizes[t]
	}
	counts := make([]int64, p.Types)
	var given int64
	rem := make([]float64, p.Types)
	for t := range sizes {
		exact := sizes[t] / sum * float64(p.Machines)
		counts[t] = int64(math.Floor(exact))
		rem[t] = exact - float64(counts[t])
		given += counts[t]
	}
	for given < int64(p.Machines) {
		best := 0
		for t := range rem {
			if rem[t] > rem[best] {
				best = t
			}
		}
		counts[best]++
		rem[best] = -1
		given++
	}
	attrs := make([]map[string]any, p.Types)
	for t := range attrs {
		attrs[t] = map[string]any{}
		for j := range constraintFreq {
			attrs[t][fmt.Sprintf("c%02d", j+1)] = float64(r.IntN(100))
		}
	}
	if p.Individual {
		for t := range counts {
			for k := int64(0); k < counts[t]; k++ {
				req.Machines = append(req.Machines, Machine{Name: fmt.Sprintf("m%d-%d", t, k), Attributes: attrs[t]})
			}
		}
	} else {
		for t := range counts {
			req.MachineTypes = append(req.MachineTypes, MachineType{Name: fmt.Sprintf("t%03d", t), Count: counts[t], Attributes: attrs[t]})
		}
	}
	fair := float64(p.Machines) / math.Max(1, float64(p.Users))
	for i := 0; i < p.Users; i++ {
		u := User{Name: fmt.Sprintf("u%04d", i)}
		if p.Weighted {
			w := float64(1 + r.IntN(4))
			u.Weight = &w
		}
		if r.Float64() < p.CappedFrac {
			d := math.Floor(fair * 2 * r.Float64())
			u.Demand = &d
		}
		u.Require = []Predicate{}
		for j, pj := range constraintPick {
			if r.Float64() < pj {
				u.Require = append(u.Require, Predicate{Attr: fmt.Sprintf("c%02d", j+1), Op: "ge", Value: math.Round(100 * (1 - constraintFreq[j]))})
			}
		}
		req.Users = append(req.Users, u)
	}
	div := p.Divisible
	req.Divisible = &div
	return req
}

// genParamTable declares Generate's parameters for `xflex gen --help`
// and the check for unknown ones.
var genParamTable = []solver.GenParam{
	{Name: "users", Default: "100", Help: "number of users"},
	{Name: "types", Default: "20", Help: "number of machine types"},
	{Name: "machines", Default: "20·users", Help: "number of machines"},
	{Name: "weighted", Default: "false", Help: "weights drawn from {1,2,3,4} instead of all 1"},
	{Name: "capped", Default: "0", Help: "fraction of users with a finite demand"},
	{Name: "divisible", Default: "true", Help: "the request's divisible flag"},
	{Name: "individual", Default: "false", Help: "list machines one by one instead of as types"},
}
