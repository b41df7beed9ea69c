package master

import (
	"fmt"
	"math/rand/v2"
)

// The X-Flex paper's Table 1 workload per application: 25 small jobs of 5
// map tasks, 5 medium of 25 and 1 large of 125 (375 tasks).
var table1Mix = []struct {
	Class       string
	Count, Size int
}{{"small", 25, 5}, {"medium", 5, 25}, {"large", 1, 125}}

// Table1Jobs is one application's jobs of the X-Flex paper's Table 1 with
// tasks of taskSeconds each. The paper states neither task durations nor
// arrivals: the jobs come in a random order (seeded), the first at time
// 0; with spread 0 they all arrive at time 0 (the order is then FIFO's
// order), otherwise with exponential gaps of mean spread/30, so the last
// arrives about spread seconds in. Ids are the class and a number
// (small-0 ... large-0).
func Table1Jobs(taskSeconds, spread float64, seed uint64) []Job {
	var jobs []Job
	for _, c := range table1Mix {
		for k := range c.Count {
			jobs = append(jobs, Job{ID: fmt.Sprintf("%s-%d", c.Class, k), Tasks: c.Size, TaskDuration: taskSeconds})
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x7ab1e1))
	rng.Shuffle(len(jobs), func(a, b int) { jobs[a], jobs[b] = jobs[b], jobs[a] })
	t := 0.0
	for i := range jobs {
		jobs[i].Arrival = t
		t += rng.ExpFloat64() * spread / float64(len(jobs)-1)
	}
	return jobs
}

// Table1Class is the Table 1 class of a job with the given task count
// (small, medium, large), "" for another size.
func Table1Class(tasks int) string {
	for _, c := range table1Mix {
		if c.Size == tasks {
			return c.Class
		}
	}
	return ""
}
