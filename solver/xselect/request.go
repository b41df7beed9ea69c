package xselect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// Request is the X-Select input (schemas/xselect.request.json).
type Request struct {
	Resources []string     `json:"resources"`
	Nodes     []Node       `json:"nodes"`
	Shapes    []Shape      `json:"shapes"`
	Apps      []App        `json:"apps"`
	Colocate  [][2]Ref     `json:"colocate,omitempty"`
	Exlocate  [][2]Ref     `json:"exlocate,omitempty"`
	Current   []NodeResult `json:"current,omitempty"`
	// ChangeFraction f: with Current, at most ⌊f·len(Nodes)⌋ nodes may
	// change. Without it a replan may change every node.
	ChangeFraction *float64 `json:"change_fraction,omitempty"`
	// Score selects the greedy rule: "auto" (default, every rule, best
	// wins), "ffd_sum", "ffd_product", "alignment" or "l2".
	Score string `json:"score,omitempty"`
	// Method is "heuristic" (default: greedy + local search, LP bound) or
	// "exact" (CBC MIP at every tested λ; small instances).
	Method   string `json:"method,omitempty"`
	BudgetMS *int64 `json:"budget_ms,omitempty"`
	Seed     *int64 `json:"seed,omitempty"`
}

// Node is one processing node.
type Node struct {
	Name     string            `json:"name"`
	Type     string            `json:"type,omitempty"`
	Rack     string            `json:"rack,omitempty"`
	Capacity []float64         `json:"capacity"`
	Reserved []float64         `json:"reserved,omitempty"`
	Labels   map[string]string `json:"labels,omitempty"`
}

// Shape is a container shape.
type Shape struct {
	Name    string     `json:"name"`
	Size    []float64  `json:"size"`
	Require *Predicate `json:"require,omitempty"`
}

// App is an application: its forecast mix (containers per shape), whether
// it is Garbo (never shares a node), and where it may run.
type App struct {
	Name    string           `json:"name"`
	Mix     map[string]int64 `json:"mix"`
	Garbo   bool             `json:"garbo,omitempty"`
	Require *Predicate       `json:"require,omitempty"`
}

// Predicate selects nodes: a node matches when every given field matches
// (types: its type is listed; racks: its rack is listed; nodes: its name is
// listed; labels: for each key, its label equals the value or one of the
// listed values).
type Predicate struct {
	Types  []string              `json:"types,omitempty"`
	Racks  []string              `json:"racks,omitempty"`
	Nodes  []string              `json:"nodes,omitempty"`
	Labels map[string]LabelValue `json:"labels,omitempty"`
}

// Matches reports whether node satisfies p (a nil p matches every node).
func (p *Predicate) Matches(node *Node) bool {
	if p == nil {
		return true
	}
	if p.Types != nil && !slices.Contains(p.Types, node.Type) {
		return false
	}
	if p.Racks != nil && !slices.Contains(p.Racks, node.Rack) {
		return false
	}
	if p.Nodes != nil && !slices.Contains(p.Nodes, node.Name) {
		return false
	}
	for k, vals := range p.Labels {
		v, ok := node.Labels[k]
		if !ok || !slices.Contains(vals, v) {
			return false
		}
	}
	return true
}

// LabelValue is a label value or a list of accepted values.
type LabelValue []string

// UnmarshalJSON accepts a string or an array of strings.
func (v *LabelValue) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*v = LabelValue{s}
		return nil
	}
	var ss []string
	if err := json.Unmarshal(b, &ss); err != nil {
		return fmt.Errorf("label value must be a string or an array of strings: %w", err)
	}
	*v = ss
	return nil
}

// Ref names containers in a colocate or exlocate pair: a string is an
// application name (or, when no application has that name, a shape name:
// that shape's containers of every application); an object
// {"app", "shape"} names one application's containers of one shape, or,
// with only one of the two fields, all of that application's or shape's.
type Ref struct {
	App   string `json:"app,omitempty"`
	Shape string `json:"shape,omitempty"`
	// Name is the bare-string form.
	Name string `json:"-"`
}

// UnmarshalJSON accepts a string or an object.
func (r *Ref) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &r.Name)
	}
	type plain struct {
		App   string `json:"app"`
		Shape string `json:"shape"`
	}
	var p plain
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return err
	}
	if p.App == "" && p.Shape == "" {
		return errors.New("container reference needs app or shape")
	}
	r.App, r.Shape = p.App, p.Shape
	return nil
}

// MarshalJSON writes the form it was read in.
func (r Ref) MarshalJSON() ([]byte, error) {
	if r.Name != "" {
		return json.Marshal(r.Name)
	}
	type plain struct {
		App   string `json:"app,omitempty"`
		Shape string `json:"shape,omitempty"`
	}
	return json.Marshal(plain{r.App, r.Shape})
}

func (r Ref) String() string {
	switch {
	case r.Name != "":
		return r.Name
	case r.App != "" && r.Shape != "":
		return r.App + "/" + r.Shape
	case r.App != "":
		return r.App
	default:
		return "shape " + r.Shape
	}
}

// Container is one container: its shape and owner.
type Container struct {
	Shape string `json:"shape"`
	App   string `json:"app"`
	// Count (input only, in current) repeats the entry; default 1.
	Count *int64 `json:"count,omitempty"`
}

// NodeResult is one node's containers (also the form of current).
type NodeResult struct {
	Name       string      `json:"name"`
	Containers []Container `json:"containers"`
	// Utilization is the used fraction of the node's capacity per resource
	// (output only).
	Utilization []float64 `json:"utilization,omitempty"`
	// Changed marks a node whose containers differ from current (output
	// only, incremental replans).
	Changed bool `json:"changed,omitempty"`
}
