package simulate

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/xflex/xflex/vecpack"
)

// Tetris is work conserving on the resources it checks: after every
// scheduling event no runnable pending task fits the free resources of any
// machine (all resources for tetris, CPU and memory for tetris-cpu-mem).
func TestTetrisWorkConserving(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for it := 0; it < 12; it++ {
		pol := PolicyTetris
		if it%3 == 2 {
			pol = PolicyTetrisCPUMem
		}
		req := GenerateRequest(rng, 2+rng.IntN(6), 1+rng.IntN(4), 0.02, 300*rng.Float64(), pol)
		if it%2 == 1 {
			// A loaded cluster (tasks queue) whose map tasks read their
			// blocks from seeded machines.
			req = GenerateRequest(rng, 2+rng.IntN(3), 2+rng.IntN(2), 0.05, 60*rng.Float64(), pol)
			WithInputs(req)
		}
		in, err := Build(req)
		if err != nil {
			t.Fatal(err)
		}
		checks, memberChecks := 0, 0
		hook := func(s *sim) {
			checks++
			free := make([]float64, s.d)
			dem := make([]float64, s.d)
			for j := range s.js {
				js := &s.js[j]
				if !js.arrived || js.done {
					continue
				}
				for k, st := range js.stages {
					spec := in.Jobs[j].stages[k]
					if !st.runnable || st.started == spec.tasks {
						continue
					}
					members := []int{-1}
					if st.grp != nil {
						members = members[:0]
						for mi := range st.grp.Members {
							if !st.grp.Members[mi].Placed() {
								members = append(members, mi)
							}
						}
					}
					for _, mi := range members {
						if mi >= 0 {
							memberChecks++
						}
						for m := range in.Cap {
							td, at := s.taskDemand(j, k, m, mi)
							for r := range free {
								free[r], dem[r] = in.Cap[m][r]-s.used[m][r], td[r]
								if pol == PolicyTetrisCPUMem && r != in.CPU && r != in.Mem {
									free[r], dem[r] = 0, 0
								}
							}
							fits := vecpack.Fits(dem, free)
							if fits && at >= 0 && pol == PolicyTetris {
								for _, r := range []int{in.IO.DiskRead, in.IO.NetOut} {
									if !vecpack.Fits([]float64{spec.inRate}, []float64{in.Cap[at][r] - s.used[at][r]}) {
										fits = false
									}
								}
							}
							if fits {
								t.Fatalf("%s at %v: job %s stage %s task %d fits machine %d but waits", pol, s.now, in.Jobs[j].id, spec.name, mi, m)
							}
						}
					}
				}
			}
		}
		o, err := simulateWith(context.Background(), in, pol, hook)
		if err != nil || !o.complete {
			t.Fatalf("simulation failed: %v", err)
		}
		if checks == 0 {
			t.Fatal("hook never ran")
		}
		if it%2 == 1 && memberChecks == 0 {
			t.Fatal("no pending input-reading task was ever checked")
		}
	}
}
