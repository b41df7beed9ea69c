package tetris

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/tetris/assign"
	"github.com/xflex/xflex/solver/tetris/simulate"
)

// benchRound times the round alone (the placement decision) on a fresh
// instance each iteration; building the instance is not timed.
func benchRound(b *testing.B, busy float64) { benchRoundOf(b, busy, 0) }

// benchRoundOf is benchRound with a heartbeat of the first hb machines
// (0: every machine, no heartbeat field).
func benchRoundOf(b *testing.B, busy float64, hb int) {
	req := assign.GenerateRequest(rand.New(rand.NewPCG(1, 2)), AssignMachines, AssignTasks, AssignJobs, busy, 1)
	for _, m := range req.Machines[:hb] {
		req.Heartbeat = append(req.Heartbeat, m.Name)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		in, err := assign.Build(req)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC() // do not bill the round for collecting Build's garbage
		b.StartTimer()
		if _, err := in.Round(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAssign10kSteady: one round, 10,000 pending tasks, 250 machines
// at steady state (resources ~90% used, ±10% per machine and resource).
func BenchmarkAssign10kSteady(b *testing.B) { benchRound(b, SteadyBusy) }

// BenchmarkAssign10kIdle: the same with an idle cluster (thousands of
// placements in one round).
func BenchmarkAssign10kIdle(b *testing.B) { benchRound(b, 0) }

// BenchmarkAssign10kHeartbeat: the round at one machine's heartbeat (the
// paper's Table 7 setting: 10,000 pending tasks, 250 machines, one node
// manager reporting), on the idle cluster.
func BenchmarkAssign10kHeartbeat(b *testing.B) { benchRoundOf(b, 0, 1) }

// BenchmarkAssign10kHeartbeatSteady: the same at steady state.
func BenchmarkAssign10kHeartbeatSteady(b *testing.B) { benchRoundOf(b, SteadyBusy, 1) }

// BenchmarkAssign10kSolve: end to end through Solve (JSON decode,
// validation, grouping, round, reasons for the ~9,700 unplaced tasks,
// result assembly) at steady state.
func BenchmarkAssign10kSolve(b *testing.B) {
	req := assign.GenerateRequest(rand.New(rand.NewPCG(1, 2)), AssignMachines, AssignTasks, AssignJobs, SteadyBusy, 1)
	raw, _ := json.Marshal(req)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := assign.Solve(context.Background(), raw, solver.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAssign10kRunner: the request as the HTTP endpoint serves it:
// solver.Runner.Run (generic decode, schema validation, canonical hash,
// Solve) and Response.AppendJSON of the response, at steady state.
func BenchmarkAssign10kRunner(b *testing.B) {
	req := assign.GenerateRequest(rand.New(rand.NewPCG(1, 2)), AssignMachines, AssignTasks, AssignJobs, SteadyBusy, 1)
	raw, _ := json.Marshal(req)
	run, err := solver.NewRunner([]solver.Problem{assign.Problem()}, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resp, err := run.Run(context.Background(), assign.Problem().Name, raw)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := resp.AppendJSON(nil); err != nil { // the server's encoder
			b.Fatal(err)
		}
	}
}

// BenchmarkSimulateSmall: the small-scale workload under tetris.
func BenchmarkSimulateSmall(b *testing.B) {
	wl := scales["small"]
	req := simulate.GenerateRequest(rand.New(rand.NewPCG(Seed, 1)), wl.jobs, wl.machines, wl.size, 3600, simulate.PolicyTetris)
	req.FairPolicy = simulate.PolicyNone
	for i := 0; i < b.N; i++ {
		in, err := simulate.Build(req)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := in.Run(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

func TestReportSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("report runs several simulations")
	}
	var buf strings.Builder
	if err := Report(context.Background(), &buf, "small"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## assign", "4x load", "| tetris |", "| drf |", "| slot-fair |", "fairness knob"} {
		if !strings.Contains(buf.String(), want) {
			t.Fatalf("report lacks %q:\n%s", want, buf.String())
		}
	}
	if err := Report(context.Background(), &buf, "huge"); err == nil {
		t.Fatal("unknown scale accepted")
	}
}
