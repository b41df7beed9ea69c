// Package workload generates the Tetris problems' instances: the synthetic
// workload of the paper's deployment and the generators' parameters. It is
// kept apart from the scheduling core (package tetris), which never reads
// it: only the generators of solver/tetris/assign and simulate do.
package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// The synthetic workload of the paper's deployment (§5.1): jobs drawn
// uniformly from four size-and-selectivity classes, map and reduce stages
// with high- or low-memory and high- or low-CPU tasks, arrivals uniform over
// an hour, on machines of 32 cores, 96 GB, 8 disks and a 10 Gbps NIC.
// Units: cores, GB, MB/s.

// Deployment resource names, sorted.
var DeployResources = []string{"cpu", "disk_read", "disk_write", "memory", "net_in", "net_out"}

// DiskMBps is one disk's bandwidth; the paper's simulator uses 50 MB/s per
// disk for read and write (§5.1), and seek-heavy analytics rarely get more.
const DiskMBps = 50

// DeployMachine is the deployment machine profile: 32 cores, 96 GB, 8 disks
// (read and write bandwidth 8·DiskMBps) and a 10 Gbps NIC (1250 MB/s each
// way).
func DeployMachine() map[string]float64 {
	return map[string]float64{"cpu": 32, "memory": 96, "disk_read": 8 * DiskMBps,
		"disk_write": 8 * DiskMBps, "net_in": 1250, "net_out": 1250}
}

// StageSpec is one generated stage.
type StageSpec struct {
	Name     string
	Tasks    int
	Demand   map[string]float64
	Duration float64
	After    []string
}

// JobSpec is one generated job.
type JobSpec struct {
	ID      string
	Class   string
	Arrival float64
	Stages  []StageSpec
}

// jobClass is one of the four classes of §5.1: a map-task count and the
// output/input ratio (selectivity).
type jobClass struct {
	name  string
	maps  int
	ratio float64
}

var jobClasses = []jobClass{
	{"large-highly-selective", 2000, 0.2},
	{"medium-inflating", 1000, 2},
	{"medium-selective", 1000, 0.5},
	{"small-selective", 200, 0.5},
}

// BlockMB is the input each map task reads (an HDFS block).
const BlockMB = 512

// Jobs draws n jobs with arrivals uniform in [0, horizon]. size scales
// every job's task counts (1 = the paper's sizes: a couple of thousand,
// a thousand, hundreds).
func Jobs(rng *rand.Rand, n int, horizon, size float64) []JobSpec {
	jobs := make([]JobSpec, n)
	for i := range jobs {
		c := jobClasses[rng.IntN(len(jobClasses))]
		maps := max(1, int(math.Round(float64(c.maps)*size*(0.75+0.5*rng.Float64()))))
		reduces := max(1, int(math.Round(float64(maps)*c.ratio/4)))
		mapIn := float64(BlockMB)
		mapOut := mapIn * c.ratio
		redIn := mapOut * float64(maps) / float64(reduces)
		redOut := redIn * c.ratio
		jobs[i] = JobSpec{
			ID:      fmt.Sprintf("j%03d", i),
			Class:   c.name,
			Arrival: math.Round(rng.Float64()*horizon*1000) / 1000,
			Stages: []StageSpec{
				stage(rng, "map", maps, mapIn, mapOut, "disk_read", nil),
				stage(rng, "reduce", reduces, redIn, redOut, "net_in", []string{"map"}),
			},
		}
	}
	return jobs
}

// stage draws a stage's task profile: high or low memory (8 or 2 GB), high
// or low CPU. High-CPU tasks compute a lot per byte, so they run longer and
// their peak I/O rates are low; low-CPU tasks are I/O-bound with high peak
// rates. Input is read through readRes (local disk for maps, the network
// for reduces, whose shuffle also loads the senders' network out); output
// goes to local disk.
func stage(rng *rand.Rand, name string, tasks int, inMB, outMB float64, readRes string, after []string) StageSpec {
	mem := 2.0
	if rng.IntN(2) == 0 {
		mem = 8
	}
	// I/O-bound tasks move ~80 MB/s (input plus output) on one core;
	// compute-bound ones take two cores and move ~25 MB/s (12.5 per core).
	cpu, mbps := 1.0, 80.0
	if rng.IntN(2) == 0 {
		cpu, mbps = 2, 25
	}
	mbps *= 0.8 + 0.4*rng.Float64()
	dur := math.Round((inMB+outMB)/mbps*10) / 10
	dur = math.Max(dur, 5)
	dem := map[string]float64{"cpu": cpu, "memory": mem}
	round := func(x float64) float64 { return math.Round(x*100) / 100 }
	dem[readRes] = round(inMB / dur)
	if readRes == "net_in" {
		dem["net_out"] = round(inMB / dur / 4)
	}
	dem["disk_write"] = round(outMB / dur)
	return StageSpec{Name: name, Tasks: tasks, Demand: dem, Duration: dur, After: after}
}
