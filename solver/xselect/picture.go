package xselect

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/xflex/xflex/sight"
	"github.com/xflex/xflex/solver"
)

// picture draws an X-Select answer as X-Sight's packing view: one column
// per node with a bar per resource, the containers stacked in it coloured
// by owning application (largest share first; past the palette's eight,
// grey), reserved capacity grey at the bottom, a replan's changed nodes
// marked, and every application's containers short of ⌈λ·c⌉ listed.
func picture(request, response json.RawMessage) ([]byte, error) {
	req, res, meta, err := solver.DecodePicture[Request, Result](request, response)
	if err != nil {
		return nil, err
	}
	owners, rank := ownersByShare(res.Apps)
	sizes := map[string][]float64{}
	for _, s := range req.Shapes {
		sizes[s.Name] = s.Size
	}
	p := sight.Packing{
		Title: fmt.Sprintf("X-Select: λ = %s (upper bound %s), %s", sight.Num(res.Lambda), sight.Num(res.UpperBound), meta.Status),
		Desc: fmt.Sprintf("Packing of application-owned containers into nodes that gives every application λ = %s times its forecast mix; fill colour is the owning application.",
			res.LambdaFraction),
		Resources: req.Resources,
		Owners:    owners,
		Unplaced:  unplaced(res.Apps),
		Notes:     changeNotes(res.Changes),
	}
	byName := map[string]Node{}
	for _, n := range req.Nodes {
		byName[n.Name] = n
	}
	for _, nr := range res.Nodes {
		n := byName[nr.Name]
		pn := sight.PackNode{Name: nr.Name, Capacity: n.Capacity, Base: n.Reserved, Mark: nr.Changed}
		for _, c := range nr.Containers {
			k := rank[c.App]
			pn.Items = append(pn.Items, sight.PackItem{Size: sizes[c.Shape], Owner: k, User: k, Tip: c.App + " " + c.Shape})
		}
		p.Nodes = append(p.Nodes, pn)
	}
	return p.Draw().Bytes(), nil
}

// ownersByShare orders the applications by share, largest first (ties
// by name), and indexes them.
func ownersByShare(apps []AppResult) ([]string, map[string]int) {
	share := map[string]float64{}
	for _, a := range apps {
		share[a.Name] = a.Share
	}
	owners, _ := sight.TopN(share, 0)
	rank := map[string]int{}
	for i, o := range owners {
		rank[o] = i
	}
	return owners, rank
}

// unplaced lists, per application and shape (in name order), the
// containers λ requires that the packing does not hold.
func unplaced(apps []AppResult) []string {
	var out []string
	for _, a := range apps {
		shapes := make([]string, 0, len(a.Required))
		for s := range a.Required {
			shapes = append(shapes, s)
		}
		slices.Sort(shapes)
		for _, s := range shapes {
			if short := a.Required[s] - a.Placed[s]; short > 0 {
				out = append(out, fmt.Sprintf("%s: %d × %s (required %d, placed %d)", a.Name, short, s, a.Required[s], a.Placed[s]))
			}
		}
	}
	return out
}

// changeNotes describes an incremental replan (nil for a fresh packing).
func changeNotes(c *Changes) []string {
	if c == nil {
		return nil
	}
	return []string{fmt.Sprintf("replan: %d of at most %d nodes changed (dashed outline), %d containers moved, %d removed; λ was %s",
		c.Changed, c.MaxChanged, c.ContainersMoved, c.ContainersRemoved, sight.Num(c.PreviousLambda))}
}
