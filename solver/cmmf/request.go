package cmmf

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/xflex/xflex/solver"
)

// Request is the wire format of POST /v1/cmmf (schemas/cmmf.request.json).
type Request struct {
	MachineTypes []MachineType `json:"machine_types,omitempty"`
	Machines     []Machine     `json:"machines,omitempty"`
	Users        []User        `json:"users"`
	// Divisible allocates fractions of machines; nil means true.
	Divisible *bool `json:"divisible,omitempty"`
	// Method is "flow" (default) or "lp".
	Method string `json:"method,omitempty"`
	// Current is the allocation in force: user → type or machine → amount.
	Current  map[string]map[string]float64 `json:"current,omitempty"`
	BudgetMS *int64                        `json:"budget_ms,omitempty"`
	Seed     *int64                        `json:"seed,omitempty"`
}

// MachineType is a group of identical machines.
type MachineType struct {
	Name       string         `json:"name"`
	Count      int64          `json:"count"`
	Attributes map[string]any `json:"attributes,omitempty"`
}

// Machine is one machine.
type Machine struct {
	Name       string         `json:"name"`
	Attributes map[string]any `json:"attributes,omitempty"`
}

// User is one tenant competing for machines.
type User struct {
	Name string `json:"name"`
	// Weight defaults to 1.
	Weight *float64 `json:"weight,omitempty"`
	// Demand caps the user's total; nil means unlimited.
	Demand *float64 `json:"demand,omitempty"`
	// Allowed names types (or machines) the user can use.
	Allowed []string `json:"allowed,omitempty"`
	// Require lists predicates on machine attributes that must all hold.
	Require []Predicate `json:"require,omitempty"`
}

// Predicate is "attribute op value".
type Predicate struct {
	Attr  string `json:"attr"`
	Op    string `json:"op"`
	Value any    `json:"value"`
}

// Method names.
const (
	MethodFlow = "flow"
	MethodLP   = "lp"
)

// Instance is a validated request reduced to what the algorithms need:
// machine types with integer capacities, users with weights, demand caps
// and the list of types they can use (identical machines already coalesced).
type Instance struct {
	Types []Type
	Users []UserSpec
	// Divisible selects fractional allocations.
	Divisible bool
	// Individual is true when the request listed machines rather than
	// types; each Type then lists its machines.
	Individual bool
	// Current[i][t] is user i's current amount of type t (nil: no current).
	Current [][]float64
	// CurrentMachine[m] is the current holder's fractions of machine
	// index m (individual requests only): user → amount.
	CurrentMachine []map[int]float64
}

// Type is a set of identical machines.
type Type struct {
	Name string
	Cap  int64
	// Machines holds the request indices of the individual machines this
	// type coalesces (nil for machine_types requests).
	Machines []int
	// MachineNames parallels Machines.
	MachineNames []string
}

// UserSpec is one user after validation.
type UserSpec struct {
	Name   string
	Weight float64
	// Demand is +Inf when unlimited.
	Demand float64
	// Allowed lists the type indices the user can use, ascending.
	Allowed []int
}

// Build validates req semantically and builds the instance. All violations
// are reported at once, each with a JSON pointer into the request.
func Build(req *Request) (*Instance, error) {
	var vs solver.Violations
	if (req.MachineTypes == nil) == (req.Machines == nil) {
		if req.MachineTypes == nil {
			vs.Add("", "give either machine_types or machines")
		} else {
			vs.Add("/machines", "give either machine_types or machines, not both")
		}
		return nil, vs.Err()
	}
	in := &Instance{Divisible: req.Divisible == nil || *req.Divisible}
	if req.Method != "" && req.Method != MethodFlow && req.Method != MethodLP {
		vs.Add("/method", "unknown method %q (want flow or lp)", req.Method)
	}

	// Machines or types, with their attributes.
	type unit struct {
		name  string
		attrs map[string]any
		count int64
	}
	var units []unit
	kind := "machine_types"
	if req.Machines != nil {
		kind = "machines"
		for _, m := range req.Machines {
			units = append(units, unit{m.Name, m.Attributes, 1})
		}
	} else {
		for _, t := range req.MachineTypes {
			units = append(units, unit{t.Name, t.Attributes, t.Count})
		}
	}
	unitIndex := make(map[string]int, len(units))
	for k, u := range units {
		if prev, dup := unitIndex[u.name]; dup {
			vs.Add(solver.Ptr(kind, k, "name"), "duplicate name %q (also at /%s/%d)", u.name, kind, prev)
			continue
		}
		unitIndex[u.name] = k
		if u.count < 0 {
			vs.Add(solver.Ptr(kind, k, "count"), "count must be non-negative")
		}
		attrs := make([]string, 0, len(u.attrs))
		for a := range u.attrs {
			attrs = append(attrs, a)
		}
		sort.Strings(attrs)
		for _, a := range attrs {
			if f, ok := u.attrs[a].(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
				vs.Add(solver.Ptr(kind, k, "attributes", a), "attribute must be finite")
			}
		}
	}

	// Units with identical attributes pass the same predicates, so
	// predicates are evaluated once per attribute group, not per machine.
	groupOf := make([]int, len(units))
	var groupRep []int
	byAttrs := map[string]int{}
	for j, un := range units {
		key := attrKey(un.attrs)
		g, ok := byAttrs[key]
		if !ok {
			g = len(groupRep)
			byAttrs[key] = g
			groupRep = append(groupRep, j)
		}
		groupOf[j] = g
	}
	// groupUsers[g]: users without an allowed list whose predicates hold
	// on group g. explicitUsers[j]: users listing unit j whose predicates
	// hold on it. A user is in one kind of list or the other.
	groupUsers := make([][]int, len(groupRep))
	explicitUsers := make([][]int, len(units))

	userIndex := make(map[string]int, len(req.Users))
	for i, u := range req.Users {
		if prev, dup := userIndex[u.Name]; dup {
			vs.Add(solver.Ptr("users", i, "name"), "duplicate user name %q (also at /users/%d)", u.Name, prev)
		} else {
			userIndex[u.Name] = i
		}
		w := 1.0
		if u.Weight != nil {
			w = *u.Weight
		}
		if !(w > 0) || math.IsInf(w, 0) {
			vs.Add(solver.Ptr("users", i, "weight"), "weight must be positive and finite")
		}
		d := math.Inf(1)
		if u.Demand != nil {
			d = *u.Demand
			if !(d >= 0) || math.IsInf(d, 0) {
				vs.Add(solver.Ptr("users", i, "demand"), "demand must be non-negative and finite")
			}
			if !in.Divisible {
				d = math.Floor(d)
			}
		}
		in.Users = append(in.Users, UserSpec{Name: u.Name, Weight: w, Demand: d})

		valid := true
		for k, p := range u.Require {
			if err := checkPredicate(p); err != "" {
				vs.Add(solver.Ptr("users", i, "require", k), "%s", err)
				valid = false
			}
		}
		okGroup := func(g int) bool {
			for _, p := range u.Require {
				if !p.holds(units[groupRep[g]].attrs) {
					return false
				}
			}
			return true
		}
		if u.Allowed != nil {
			seen := make(map[string]bool, len(u.Allowed))
			memo := map[int]bool{}
			for k, name := range u.Allowed {
				j, ok := unitIndex[name]
				if !ok {
					vs.Add(solver.Ptr("users", i, "allowed", k), "unknown %s name %q", strings.TrimSuffix(kind, "s"), name)
					continue
				}
				if seen[name] {
					vs.Add(solver.Ptr("users", i, "allowed", k), "%q listed twice", name)
					continue
				}
				seen[name] = true
				g := groupOf[j]
				pass, done := memo[g]
				if !done {
					pass = valid && okGroup(g)
					memo[g] = pass
				}
				if pass {
					explicitUsers[j] = append(explicitUsers[j], i)
				}
			}
		} else if valid {
			for g := range groupRep {
				if okGroup(g) {
					groupUsers[g] = append(groupUsers[g], i)
				}
			}
		}
	}
	if len(vs) > 0 {
		return nil, vs.Err()
	}

	// Types. Individual machines that the same users can use are
	// interchangeable for every allocation question, so they are coalesced
	// into one type (identical machines are the common case; machines with
	// different attributes coalesce too when the same users can use them
	// through the same predicates or listings). Types keep first-appearance
	// order and take the name of their first machine.
	unitType := make([]int, len(units))
	var typeUsers [][]int
	if req.Machines != nil {
		in.Individual = true
		groupKey := make([]string, len(groupRep))
		for g := range groupRep {
			groupKey[g] = intsKey(groupUsers[g])
		}
		byKey := map[string]int{}
		for j, un := range units {
			key := groupKey[groupOf[j]]
			if len(explicitUsers[j]) > 0 {
				key += "|" + intsKey(explicitUsers[j])
			}
			t, ok := byKey[key]
			if !ok {
				t = len(in.Types)
				byKey[key] = t
				in.Types = append(in.Types, Type{Name: un.name})
				typeUsers = append(typeUsers, mergeSorted(groupUsers[groupOf[j]], explicitUsers[j]))
			}
			in.Types[t].Cap++
			in.Types[t].Machines = append(in.Types[t].Machines, j)
			in.Types[t].MachineNames = append(in.Types[t].MachineNames, un.name)
			unitType[j] = t
		}
	} else {
		for j, un := range units {
			in.Types = append(in.Types, Type{Name: un.name, Cap: un.count})
			typeUsers = append(typeUsers, mergeSorted(groupUsers[groupOf[j]], explicitUsers[j]))
			unitType[j] = j
		}
	}
	for t, us := range typeUsers {
		for _, i := range us {
			in.Users[i].Allowed = append(in.Users[i].Allowed, t) // ascending t
		}
	}

	if req.Current != nil {
		if err := in.buildCurrent(req, kind, unitIndex, unitType, userIndex); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// currentTol absorbs decimal round-off in a client's current allocation
// (e.g. three users holding 1/3 of a machine each, written with 16 digits).
const currentTol = 1e-9

func (in *Instance) buildCurrent(req *Request, kind string, unitIndex map[string]int, unitType []int, userIndex map[string]int) error {
	var vs solver.Violations
	in.Current = make([][]float64, len(in.Users))
	if in.Individual {
		in.CurrentMachine = make([]map[int]float64, len(unitType))
	}
	perUnit := make([]float64, len(unitType))
	users := make([]string, 0, len(req.Current))
	for u := range req.Current {
		users = append(users, u)
	}
	sort.Strings(users)
	for _, uname := range users {
		i, ok := userIndex[uname]
		if !ok {
			vs.Add(solver.Ptr("current", uname), "unknown user %q", uname)
			continue
		}
		in.Current[i] = make([]float64, len(in.Types))
		names := make([]string, 0, len(req.Current[uname]))
		for n := range req.Current[uname] {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			amt := req.Current[uname][n]
			j, ok := unitIndex[n]
			if !ok {
				vs.Add(solver.Ptr("current", uname, n), "unknown %s name %q", strings.TrimSuffix(kind, "s"), n)
				continue
			}
			if !(amt >= 0) || math.IsInf(amt, 0) {
				vs.Add(solver.Ptr("current", uname, n), "amount must be non-negative and finite")
				continue
			}
			if !in.Divisible && amt != math.Trunc(amt) {
				vs.Add(solver.Ptr("current", uname, n), "integer allocations need whole machines, got %v", amt)
				continue
			}
			perUnit[j] += amt
			in.Current[i][unitType[j]] += amt
			if in.Individual && amt > 0 {
				if in.CurrentMachine[j] == nil {
					in.CurrentMachine[j] = map[int]float64{}
				}
				in.CurrentMachine[j][i] += amt
			}
		}
	}
	if len(vs) > 0 {
		return vs.Err()
	}
	for j, total := range perUnit {
		capj := 1.0
		if !in.Individual {
			capj = float64(in.Types[j].Cap)
		}
		if total > capj*(1+currentTol)+currentTol {
			vs.Add(solver.Ptr(kind, j), "current allocates %v of %q but only %v exist", total, nameOfUnit(req, j), capj)
		}
	}
	return vs.Err()
}

func nameOfUnit(req *Request, j int) string {
	if req.Machines != nil {
		return req.Machines[j].Name
	}
	return req.MachineTypes[j].Name
}

// mergeSorted merges two ascending lists of distinct ints.
func mergeSorted(a, b []int) []int {
	out := make([]int, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0] < b[0] {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// attrKey is a canonical encoding of an attribute map: sorted keys, each
// value tagged with its JSON type.
func attrKey(attrs map[string]any) string {
	keys := make([]string, 0, len(attrs))
	for k := range attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b := make([]byte, 0, 16*len(keys))
	for _, k := range keys {
		b = strconv.AppendQuote(b, k)
		switch v := attrs[k].(type) {
		case string:
			b = strconv.AppendQuote(append(b, 's'), v)
		case float64:
			b = strconv.AppendFloat(append(b, 'n'), v, 'g', -1, 64)
		case bool:
			b = strconv.AppendBool(append(b, 'b'), v)
		default:
			b = fmt.Appendf(append(b, '?'), "%v", v)
		}
		b = append(b, ';')
	}
	return string(b)
}

// intsKey encodes a list of ints as a map key.
func intsKey(a []int) string {
	b := make([]byte, 0, 4*len(a))
	for _, v := range a {
		b = append(strconv.AppendInt(b, int64(v), 10), ',')
	}
	return string(b)
}

func checkPredicate(p Predicate) string {
	switch p.Op {
	case "in":
		if _, ok := p.Value.([]any); !ok {
			return "op in needs an array value"
		}
	case "lt", "le", "gt", "ge":
		if _, ok := p.Value.(float64); !ok {
			return fmt.Sprintf("op %s needs a number value", p.Op)
		}
	case "eq", "ne":
		switch p.Value.(type) {
		case string, float64, bool:
		default:
			return fmt.Sprintf("op %s needs a string, number or boolean value", p.Op)
		}
	default:
		return fmt.Sprintf("unknown op %q", p.Op)
	}
	return ""
}

// holds evaluates the predicate on a machine's attributes. A missing
// attribute satisfies only "ne"; order comparisons need numbers on both
// sides; equality compares numbers numerically and strings and booleans
// exactly.
func (p Predicate) holds(attrs map[string]any) bool {
	v, ok := attrs[p.Attr]
	if !ok {
		return p.Op == "ne"
	}
	switch p.Op {
	case "eq":
		return scalarEqual(v, p.Value)
	case "ne":
		return !scalarEqual(v, p.Value)
	case "in":
		list, _ := p.Value.([]any)
		for _, x := range list {
			if scalarEqual(v, x) {
				return true
			}
		}
		return false
	}
	a, ok1 := v.(float64)
	b, ok2 := p.Value.(float64)
	if !ok1 || !ok2 {
		return false
	}
	switch p.Op {
	case "lt":
		return a < b
	case "le":
		return a <= b
	case "gt":
		return a > b
	case "ge":
		return a >= b
	}
	return false
}

func scalarEqual(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	}
	return false
}
