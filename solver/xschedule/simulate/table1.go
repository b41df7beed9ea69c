package simulate

import (
	"fmt"

	"github.com/xflex/xflex/solver/xschedule/assign"
	"github.com/xflex/xflex/solver/xschedule/master"
)

// Table1Request is the X-Flex paper's Table 1 experiment as a simulation
// (Middleware 2014, §3): 6 nodes on one rack holding
// 78 containers of 1 cpu and 2 memory, 26 owned by each of three
// applications (25 for tasks, one for the AM), whose masters are flex
// (sharing bound 0, asks of type flexType), fair and fifo (sharing bound
// bound, asks of type typ), each with the jobs
// master.Table1Jobs(taskSeconds, spread, seed); preemption notices have
// grace seconds. The DRF baseline runs the 93 jobs as its users on the
// same nodes, each with its own AM.
func Table1Request(taskSeconds, spread float64, seed uint64, bound, grace float64, flexType, typ string) *Request {
	req := &Request{Resources: []string{"cpu", "mem"}, Requests: []Ask{}}
	for n := range 6 {
		req.Nodes = append(req.Nodes, assign.Node{Name: fmt.Sprintf("n%d", n), Rack: "r0", Capacity: []float64{13, 26}})
	}
	policies := []string{"flex", "fair", "fifo"}
	for _, p := range policies {
		b, t := bound, typ
		if p == "flex" {
			b, t = 0, flexType
		}
		req.Apps = append(req.Apps, assign.App{Name: p, Mode: assign.ModeShare, SharingBound: b})
		var jobs []MasterJobIn
		for _, j := range master.Table1Jobs(taskSeconds, spread, seed) {
			jobs = append(jobs, MasterJobIn{ID: j.ID, Arrival: j.Arrival, Tasks: j.Tasks, TaskDuration: j.TaskDuration})
		}
		req.Masters = append(req.Masters, MasterIn{App: p, Policy: p, TaskSize: []float64{1, 2}, Jobs: jobs, Type: t})
	}
	for k := range 78 {
		req.Containers = append(req.Containers, Container{ID: fmt.Sprintf("c%d", k), Node: fmt.Sprintf("n%d", k%6),
			Size: []float64{1, 2}, Owner: policies[k%3]})
	}
	req.Settings = &Settings{Settings: assign.Settings{GracePeriod: &grace}}
	return req
}
