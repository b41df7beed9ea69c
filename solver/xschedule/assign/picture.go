package assign

import (
	"encoding/json"
	"fmt"

	"github.com/xflex/xflex/sight"
	"github.com/xflex/xflex/solver"
)

// picture draws an X-Schedule round as X-Sight's packing view (the
// paper's "owners and current users of those containers"): one column
// per node, the containers stacked by size, filled by owner and outlined
// by their user after the round (granted containers by their new user,
// idle ones dashed), containers under notice of preemption dotted, and
// the requests left pending listed with the reason.
func picture(request, response json.RawMessage) ([]byte, error) {
	req, res, _, err := solver.DecodePicture[Request, Result](request, response)
	if err != nil {
		return nil, err
	}
	var vs solver.Violations // Build accepted the request: none
	cl := readCluster(&req, &vs)
	conts := usedAfter(cl.conts, req.Usage, res)
	owners, rank := appsByContainers(req.Apps, conts)
	p := sight.Packing{
		Title:        fmt.Sprintf("X-Schedule round at %s: %d granted, %d notices, %d requests pending", sight.Num(req.Now), len(res.Grants), len(res.Notices), len(res.Pending)),
		Desc:         "Containers on nodes after one X-Schedule round: fill colour is the owning application, outline the application using it (thick: another application; dashed: idle); a dot marks a container under notice of preemption.",
		Resources:    cl.resources,
		Owners:       owners,
		Notes:        []string{"outline: the application using the container (thick: another application, dashed: idle); dot: under notice of preemption"},
		UnplacedNoun: "requests pending",
	}
	for _, pd := range res.Pending {
		p.Unplaced = append(p.Unplaced, fmt.Sprintf("%s (%s): %d more, %s", pd.Request, pd.App, pd.Remaining, pd.Reason))
	}
	cols := map[string]int{}
	for _, n := range cl.nodeList {
		cols[n.Name] = len(p.Nodes)
		p.Nodes = append(p.Nodes, sight.PackNode{Name: n.Name, Capacity: n.Capacity})
	}
	for _, c := range conts {
		it := sight.PackItem{Size: c.Size, Owner: rank[c.Owner], User: -1, Notice: c.Notice != nil, Tip: c.ID + ": owner " + c.Owner}
		if c.User != "" {
			it.User = rank[c.User]
			it.Tip += ", used by " + c.User
		}
		if c.Notice != nil {
			it.Tip += fmt.Sprintf(", notice: to %s by %s", c.Notice.App, sight.Num(c.Notice.Deadline))
		}
		if i, ok := cols[c.Node]; ok {
			p.Nodes[i].Items = append(p.Nodes[i].Items, it)
		}
	}
	return p.Draw().Bytes(), nil
}

// usedAfter is the containers as the round leaves them: users from the
// request (explicit, or usage for a placement), then each grant's
// application as the user, and the round's notices (with those already
// outstanding).
func usedAfter(conts []Container, usage []Usage, res Result) []Container {
	out := append([]Container(nil), conts...)
	byID := make(map[string]int, len(out))
	for i, c := range out {
		byID[c.ID] = i
	}
	for _, u := range usage {
		if i, ok := byID[u.ID]; ok {
			out[i].User, out[i].Notice = u.User, u.Notice
		}
	}
	for _, g := range res.Grants {
		if i, ok := byID[g.Container]; ok {
			out[i].User, out[i].Notice = g.App, nil
		}
	}
	for _, n := range res.Notices {
		if i, ok := byID[n.Container]; ok {
			out[i].Notice = &Notice{App: n.App, Request: n.Request, Deadline: n.Deadline}
		}
	}
	return out
}

// appsByContainers orders the applications by containers owned, most
// first (ties by name), and indexes them.
func appsByContainers(apps []App, conts []Container) ([]string, map[string]int) {
	owned := map[string]float64{}
	for _, a := range apps {
		owned[a.Name] = 0
	}
	for _, c := range conts {
		owned[c.Owner]++
	}
	names, _ := sight.TopN(owned, 0)
	rank := map[string]int{}
	for i, n := range names {
		rank[n] = i
	}
	return names, rank
}
