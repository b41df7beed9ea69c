package simulate

import (
	"encoding/json"
	"math"
	"runtime"
	"testing"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/tetris/internal/tetristest"
)

// maxRefusalAlloc bounds what Build may allocate before refusing a trace
// over MaxTasks: a few maps and slices per job, nothing per task. The old
// code allocated 4 bytes a task of input locations first (4 GB at 1e9).
const maxRefusalAlloc = 16 << 20

// A stage of 1e9 tasks with input reads is refused at /jobs before any
// per-task allocation (solver/robust found the old order running out of
// memory).
func TestTooManyTasksRefusedBeforeAllocating(t *testing.T) {
	body := `{"machines":[{"name":"m","capacity":{"cpu":4,"disk_read":1,"net_in":1,"net_out":1}}],` +
		`"jobs":[{"id":"j","arrival":0,"stages":[{"name":"a","tasks":1000000000,"demand":{"cpu":1},"duration":1,"input_rate":0.5}]}]}`
	var req Request
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Build(&req)
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("a trace of 1e9 tasks was accepted")
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > maxRefusalAlloc {
		t.Errorf("Build allocated %d bytes before refusing", got)
	}
	tetristest.ExpectViolation(t, Problem(), body, solver.KindInvalid, "/jobs")
}

// Task counts whose sum overflows int are refused too, not wrapped around
// to a small total.
func TestTaskCountSumSaturates(t *testing.T) {
	req := Request{Machines: []MachineReq{{Name: "m", Capacity: map[string]float64{"cpu": 4}}}}
	job := JobReq{ID: "j"}
	for _, name := range []string{"a", "b", "c"} {
		job.Stages = append(job.Stages, StageReq{Name: name, Tasks: math.MaxInt64 / 2, Demand: map[string]float64{"cpu": 1}, Duration: 1})
	}
	req.Jobs = []JobReq{job}
	if _, err := Build(&req); err == nil {
		t.Fatal("three stages of MaxInt64/2 tasks were accepted")
	}
}

// A subnormal arrival against a capacity of 1e-9 used to make the
// utilization quotient 0/(5e-324·1e-9) = 0/0: NaN, and the response did
// not encode. Every reported fraction must now be finite. (The duration,
// which the schema requires to be > 0 and so normal, is the smallest
// normal float64; the capacity of 1e-100 makes span·capacity underflow
// to 0 all the same.)
func TestSubnormalTimesKeepUtilizationFinite(t *testing.T) {
	req := &Request{
		Machines: []MachineReq{{Name: "M1", Capacity: map[string]float64{"memory": 1, "net": 1e-100}}},
		Jobs: []JobReq{
			{ID: "A", Arrival: 5e-324, Stages: []StageReq{}},
			{ID: "B", Arrival: 5e-324, Stages: []StageReq{{Name: "s", Tasks: 1, Demand: map[string]float64{"net": 1e-100}, Duration: 0x1p-1022}}},
		},
	}
	res := simRun(t, req)
	check := func(what string, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			t.Errorf("%s = %v", what, v)
		}
	}
	for r, v := range res.AvgUtil {
		check("avg_utilization."+r, v)
	}
	for r, v := range res.Overalloc {
		check("overallocation."+r, v)
	}
	for _, b := range res.Utilization {
		for r, v := range b.Used {
			check("utilization.used."+r, v)
		}
		for r, v := range b.Demanded {
			check("utilization.demanded."+r, v)
		}
	}
}

func TestPerCapacityTime(t *testing.T) {
	cases := []struct {
		x, span, c, want float64
	}{
		{0, 5e-324, 1e-9, 0},                     // 0/(underflowed 0) used to be NaN
		{1e-300, 1e-300, 1, 1},                   // ordinary
		{5e-324, 5e-324, 0.5, 2},                 // two-step division keeps the ratio
		{1e300, 5e-324, 1e-300, math.MaxFloat64}, // saturates instead of +Inf
		{1, 0, 1, 0},                             // empty span
		{1, 1, 0, 0},                             // no capacity
	}
	for _, c := range cases {
		if got := perCapacityTime(c.x, c.span, c.c); got != c.want {
			t.Errorf("perCapacityTime(%g, %g, %g) = %g, want %g", c.x, c.span, c.c, got, c.want)
		}
	}
}
