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
		in, err := Build(req)
		if err != nil {
			t.Fatal(err)
		}
		checks := 0
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
					for m := range in.Cap {
						for r := range free {
							free[r], dem[r] = in.Cap[m][r]-s.used[m][r], spec.demand[r]
							if pol == PolicyTetrisCPUMem && r != in.CPU && r != in.Mem {
								free[r], dem[r] = 0, 0
							}
						}
						if vecpack.Fits(dem, free) {
							t.Fatalf("%s at %v: job %s stage %s fits machine %d but waits", pol, s.now, in.Jobs[j].id, spec.name, m)
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
	}
}
