package cmmf

import (
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/xflex/xflex/solver"
)

// Build: a checked request reduced to the instance the algorithms need
// (machine types with integer capacities, users with weights, demand caps
// and the types they can use).

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
	if err := checkMachineSide(req); err != nil {
		return nil, err
	}
	b := newBuilder(req)
	if req.Method != "" && req.Method != MethodFlow && req.Method != MethodLP {
		b.vs.Add("/method", "unknown method %q (want flow or lp)", req.Method)
	}
	b.groupUnits()
	b.indexUnits()
	for i := range req.Users {
		b.addUser(i, &req.Users[i])
	}
	if len(b.vs) > 0 {
		return nil, b.vs.Err()
	}
	unitType := b.makeTypes()
	if req.Current != nil {
		if err := b.in.buildCurrent(req, b.kind, b.unitIndex, unitType, b.userIndex); err != nil {
			return nil, err
		}
	}
	return b.in, nil
}

// checkMachineSide requires exactly one of machine_types and machines.
func checkMachineSide(req *Request) error {
	if (req.MachineTypes == nil) != (req.Machines == nil) {
		return nil
	}
	var vs solver.Violations
	if req.MachineTypes == nil {
		vs.Add("", "give either machine_types or machines")
	} else {
		vs.Add("/machines", "give either machine_types or machines, not both")
	}
	return vs.Err()
}

// builder is Build's state: the instance so far, the violations found, the
// request's machines or types as units, and the indices users refer to.
type builder struct {
	req   *Request
	in    *Instance
	vs    solver.Violations
	kind  string // "machines" or "machine_types": where units came from
	units []unit
	// unitIndex and userIndex map a name to its first unit or user.
	unitIndex, userIndex map[string]int
	// Units with identical attributes pass the same predicates, so
	// predicates are evaluated once per attribute group, not per machine:
	// groupOf[j] is unit j's group, groupRep[g] group g's first unit.
	groupOf, groupRep []int
	// nonFinite[j] lists unit j's attributes whose values are NaN or
	// infinite, sorted (JSON has none, Go callers may).
	nonFinite map[int][]string
	// groupUsers[g]: users without an allowed list whose predicates hold
	// on group g, one per predicate entry (see requireGroup).
	// explicitUsers[j]: users listing unit j whose predicates hold on it.
	// A user is in one kind of list or the other.
	groupUsers, explicitUsers [][]int
	// Users with the same predicates and no allowed list can use the same
	// groups and so the same types: requireGroup maps a predicate list's
	// key to its entry, requireOf[i] is user i's entry (-1 for a user with
	// an allowed list or bad predicates). Predicates are evaluated once per
	// entry and group, and the entry's users share one Allowed slice.
	requireGroup  map[string]int
	requireOf     []int
	requireRep    []int   // each entry's first user
	requireGroups [][]int // each entry's groups, ascending
	// attrCols[name] is an attribute's value per group (attrColumn);
	// groupScratch is requiredGroups' working list.
	attrCols     map[string][]attrCell
	groupScratch []int
}

// unit is a machine (count 1) or a machine type, with its attributes.
type unit struct {
	name  string
	attrs map[string]any
	count int64
}

// newBuilder lists req's machines or machine types as units.
func newBuilder(req *Request) *builder {
	b := &builder{req: req, in: &Instance{Divisible: req.Divisible == nil || *req.Divisible}, kind: "machine_types"}
	if req.Machines != nil {
		b.kind = "machines"
		for _, m := range req.Machines {
			b.units = append(b.units, unit{m.Name, m.Attributes, 1})
		}
	} else {
		for _, t := range req.MachineTypes {
			b.units = append(b.units, unit{t.Name, t.Attributes, t.Count})
		}
	}
	return b
}

// indexUnits indexes the units by name and checks their names, counts and
// attributes (in sorted order, so violations come out the same each run;
// groupUnits found the attributes that are not finite).
func (b *builder) indexUnits() {
	b.unitIndex = make(map[string]int, len(b.units))
	for k, u := range b.units {
		if prev, dup := b.unitIndex[u.name]; dup {
			b.vs.Add(solver.Ptr(b.kind, k, "name"), "duplicate name %q (also at /%s/%d)", u.name, b.kind, prev)
			continue
		}
		b.unitIndex[u.name] = k
		if u.count < 0 {
			b.vs.Add(solver.Ptr(b.kind, k, "count"), "count must be non-negative")
		}
		for _, a := range b.nonFinite[k] {
			b.vs.Add(solver.Ptr(b.kind, k, "attributes", a), "attribute must be finite")
		}
	}
}

// groupUnits groups the units by identical attributes and notes the
// attributes that are not finite. A unit's group key is made in a reused
// buffer and allocated only for a new group.
func (b *builder) groupUnits() {
	b.groupOf = make([]int, len(b.units))
	byAttrs := map[string]int{}
	var names attrNames
	var key []byte
	for j, un := range b.units {
		names.update(un.attrs)
		var bad []string
		key, bad = names.appendKey(key[:0], un.attrs)
		if bad != nil {
			if b.nonFinite == nil {
				b.nonFinite = map[int][]string{}
			}
			b.nonFinite[j] = bad
		}
		g, ok := byAttrs[string(key)]
		if !ok {
			g = len(b.groupRep)
			byAttrs[string(key)] = g
			b.groupRep = append(b.groupRep, j)
		}
		b.groupOf[j] = g
	}
	b.groupUsers = make([][]int, len(b.groupRep))
	b.explicitUsers = make([][]int, len(b.units))
	b.userIndex = make(map[string]int, len(b.req.Users))
	b.requireGroup = map[string]int{}
	b.requireOf = make([]int, 0, len(b.req.Users))
}

// addUser checks user i and adds it to the instance and to the lists of
// the groups or units it can use.
func (b *builder) addUser(i int, u *User) {
	if prev, dup := b.userIndex[u.Name]; dup {
		b.vs.Add(solver.Ptr("users", i, "name"), "duplicate user name %q (also at /users/%d)", u.Name, prev)
	} else {
		b.userIndex[u.Name] = i
	}
	b.in.Users = append(b.in.Users, UserSpec{Name: u.Name, Weight: b.userWeight(i, u), Demand: b.userDemand(i, u)})
	valid := true
	for k, p := range u.Require {
		if err := checkPredicate(p); err != "" {
			b.vs.Add(solver.Ptr("users", i, "require", k), "%s", err)
			valid = false
		}
	}
	b.requireOf = append(b.requireOf, -1)
	if u.Allowed != nil {
		b.addListed(i, u, valid)
	} else if valid {
		b.addRequiring(i, u)
	}
}

// addRequiring records user i, without an allowed list, under its
// predicates' entry; the first user of an entry evaluates them and stands
// for the entry in the lists of the groups on which they hold.
func (b *builder) addRequiring(i int, u *User) {
	key := requireKey(u.Require)
	e, seen := b.requireGroup[key]
	if !seen {
		e = len(b.requireRep)
		b.requireGroup[key] = e
		b.requireRep = append(b.requireRep, i)
		b.requireGroups = append(b.requireGroups, b.requiredGroups(u))
	}
	b.requireOf[i] = e
	if !seen {
		for _, g := range b.requireGroups[e] {
			b.groupUsers[g] = append(b.groupUsers[g], i)
		}
	}
}

// userWeight is user i's weight, 1 by default, which must be positive and
// finite.
func (b *builder) userWeight(i int, u *User) float64 {
	w := 1.0
	if u.Weight != nil {
		w = *u.Weight
	}
	if !(w > 0) || math.IsInf(w, 0) {
		b.vs.Add(solver.Ptr("users", i, "weight"), "weight must be positive and finite")
	}
	return w
}

// userDemand is user i's demand, +Inf when unlimited and rounded down
// when machines are indivisible.
func (b *builder) userDemand(i int, u *User) float64 {
	if u.Demand == nil {
		return math.Inf(1)
	}
	d := *u.Demand
	if !(d >= 0) || math.IsInf(d, 0) {
		b.vs.Add(solver.Ptr("users", i, "demand"), "demand must be non-negative and finite")
	}
	if !b.in.Divisible {
		d = math.Floor(d)
	}
	return d
}

// requiredGroups lists, ascending, the groups on which all of u's
// predicates hold. Each predicate filters the groups the ones before it
// kept, reading its attribute from one column over the groups: at 50,000
// users with 5,448 distinct predicate lists on 1,000 types, looking each
// attribute up in every group's map was 0.3 s of the request.
func (b *builder) requiredGroups(u *User) []int {
	gs := b.groupScratch[:0]
	for g := range b.groupRep {
		gs = append(gs, g)
	}
	for _, p := range u.Require {
		col := b.attrColumn(p.Attr)
		kept := gs[:0]
		for _, g := range gs {
			if p.holdsValue(col[g].v, col[g].ok) {
				kept = append(kept, g)
			}
		}
		gs = kept
	}
	b.groupScratch = gs
	if len(gs) == 0 {
		return nil
	}
	return slices.Clone(gs)
}

// attrCell is one group's value of an attribute; ok is false when the
// group's machines do not have it.
type attrCell struct {
	v  any
	ok bool
}

// attrColumn is attribute name's value on every group, made on first use.
func (b *builder) attrColumn(name string) []attrCell {
	if col, ok := b.attrCols[name]; ok {
		return col
	}
	col := make([]attrCell, len(b.groupRep))
	for g, j := range b.groupRep {
		col[g].v, col[g].ok = b.units[j].attrs[name]
	}
	if b.attrCols == nil {
		b.attrCols = map[string][]attrCell{}
	}
	b.attrCols[name] = col
	return col
}

// holdsOn says whether all of u's predicates hold on group g.
func (b *builder) holdsOn(u *User, g int) bool {
	for _, p := range u.Require {
		if !p.holds(b.units[b.groupRep[g]].attrs) {
			return false
		}
	}
	return true
}

// addListed adds user i to each unit of its allowed list on which its
// predicates hold (valid: they are well formed), checking the names.
func (b *builder) addListed(i int, u *User, valid bool) {
	seen := make(map[string]bool, len(u.Allowed))
	memo := map[int]bool{}
	for k, name := range u.Allowed {
		j, ok := b.unitIndex[name]
		if !ok {
			b.vs.Add(solver.Ptr("users", i, "allowed", k), "unknown %s name %q", strings.TrimSuffix(b.kind, "s"), name)
			continue
		}
		if seen[name] {
			b.vs.Add(solver.Ptr("users", i, "allowed", k), "%q listed twice", name)
			continue
		}
		seen[name] = true
		g := b.groupOf[j]
		pass, done := memo[g]
		if !done {
			pass = valid && b.holdsOn(u, g)
			memo[g] = pass
		}
		if pass {
			b.explicitUsers[j] = append(b.explicitUsers[j], i)
		}
	}
}

// makeTypes makes the instance's types and each user's allowed types, and
// returns each unit's type. Individual machines that the same users can
// use are interchangeable for every allocation question, so they are
// coalesced into one type (identical machines are the common case;
// machines with different attributes coalesce too when the same users can
// use them through the same predicates or listings). Types keep
// first-appearance order and take the name of their first machine.
func (b *builder) makeTypes() []int {
	unitType := make([]int, len(b.units))
	var typeUsers [][]int
	if b.req.Machines != nil {
		typeUsers = b.coalesceMachines(unitType)
	} else {
		for j, un := range b.units {
			b.in.Types = append(b.in.Types, Type{Name: un.name, Cap: un.count})
			typeUsers = append(typeUsers, b.usersOf(j))
			unitType[j] = j
		}
	}
	for t, us := range typeUsers {
		for _, i := range us {
			b.in.Users[i].Allowed = append(b.in.Users[i].Allowed, t) // ascending t
		}
	}
	for i, e := range b.requireOf {
		if e >= 0 {
			rep := b.in.Users[b.requireRep[e]].Allowed
			b.in.Users[i].Allowed = rep[:len(rep):len(rep)]
		}
	}
	return unitType
}

// usersOf lists the users that can use unit j, ascending, each predicate
// entry by its first user.
func (b *builder) usersOf(j int) []int {
	return mergeSorted(b.groupUsers[b.groupOf[j]], b.explicitUsers[j])
}

// coalesceMachines makes one type of each set of machines the same users
// can use, setting unitType, and returns each type's users.
func (b *builder) coalesceMachines(unitType []int) [][]int {
	in := b.in
	in.Individual = true
	groupKey := make([]string, len(b.groupRep))
	for g := range b.groupRep {
		groupKey[g] = intsKey(b.groupUsers[g])
	}
	var typeUsers [][]int
	byKey := map[string]int{}
	for j, un := range b.units {
		key := groupKey[b.groupOf[j]]
		if len(b.explicitUsers[j]) > 0 {
			key += "|" + intsKey(b.explicitUsers[j])
		}
		t, ok := byKey[key]
		if !ok {
			t = len(in.Types)
			byKey[key] = t
			in.Types = append(in.Types, Type{Name: un.name})
			typeUsers = append(typeUsers, b.usersOf(j))
		}
		in.Types[t].Cap++
		in.Types[t].Machines = append(in.Types[t].Machines, j)
		in.Types[t].MachineNames = append(in.Types[t].MachineNames, un.name)
		unitType[j] = t
	}
	return typeUsers
}

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
