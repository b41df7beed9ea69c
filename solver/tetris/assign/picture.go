package assign

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/xflex/xflex/sight"
	"github.com/xflex/xflex/solver"
)

// picture draws a Tetris round as X-Sight's packing view: one column per
// machine with a bar per resource it has, the capacity in use before the
// round grey at the bottom, the tasks placed this round stacked above it
// by local demand and coloured by job (most tasks placed first; past the
// palette's eight, grey), and the unplaced tasks listed with the reason.
func picture(request, response json.RawMessage) ([]byte, error) {
	req, res, meta, err := solver.DecodePicture[Request, Result](request, response)
	if err != nil {
		return nil, err
	}
	resources := resourceNames(req.Machines)
	jobs, rank := jobsByTasks(res.Assignments)
	p := sight.Packing{
		Title:      fmt.Sprintf("Tetris round: %d tasks placed, %d unplaced, %s", res.Summary.Placed, res.Summary.Unplaced, meta.Status),
		Desc:       "Tasks placed on machines in one Tetris scheduling round; fill colour is the task's job, grey at the bottom the capacity in use before the round.",
		Resources:  resources,
		Owners:     jobs,
		OwnerLabel: "job",
		NodeNoun:   "machines",
		ItemNoun:   "tasks",
		BaseLabel:  "in use before the round",
	}
	for _, u := range res.Unplaced {
		p.Unplaced = append(p.Unplaced, fmt.Sprintf("%s (job %s): %s", u.Task, u.Job, u.Reason))
	}
	p.Nodes = machineColumns(req, res, resources, rank)
	return p.Draw().Bytes(), nil
}

// resourceNames is every resource a machine has, in name order.
func resourceNames(ms []MachineReq) []string {
	set := map[string]bool{}
	for _, m := range ms {
		for r := range m.Capacity {
			set[r] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// jobsByTasks orders the jobs by tasks placed, most first (ties by id),
// and indexes them.
func jobsByTasks(as []Assignment) ([]string, map[string]int) {
	count := map[string]float64{}
	for _, a := range as {
		count[a.Job]++
	}
	jobs, _ := sight.TopN(count, 0)
	rank := map[string]int{}
	for i, j := range jobs {
		rank[j] = i
	}
	return jobs, rank
}

// machineColumns is one column per machine, in request order: its
// capacity, what was in use before the round, and its placed tasks.
func machineColumns(req Request, res Result, resources []string, rank map[string]int) []sight.PackNode {
	demand := map[string]map[string]float64{}
	for _, t := range req.Tasks {
		demand[t.ID] = t.Demand
	}
	placed := map[string][]Assignment{}
	for _, a := range res.Assignments {
		placed[a.Machine] = append(placed[a.Machine], a)
	}
	cols := make([]sight.PackNode, len(req.Machines))
	for i, m := range req.Machines {
		c := sight.PackNode{Name: m.Name, Capacity: vector(m.Capacity, resources), Base: make([]float64, len(resources))}
		for r, name := range resources {
			if free, ok := m.Free[name]; ok {
				c.Base[r] = m.Capacity[name] - free
			}
		}
		for _, a := range placed[m.Name] {
			k := rank[a.Job]
			tip := fmt.Sprintf("%s (job %s), alignment %s", a.Task, a.Job, sight.Num(a.Alignment))
			if a.Remote {
				tip += ", remote"
			}
			c.Items = append(c.Items, sight.PackItem{Size: vector(demand[a.Task], resources), Owner: k, User: k, Tip: tip})
		}
		cols[i] = c
	}
	return cols
}

// vector is m's values in the order of names (0 where absent).
func vector(m map[string]float64, names []string) []float64 {
	v := make([]float64, len(names))
	for i, n := range names {
		v[i] = m[n]
	}
	return v
}
