package assign

import (
	"encoding/json"
	"testing"
)

// A machine with nothing free takes no positive demand, however small
// against its capacity. The fit slack used to be 1e-9 of capacity even on
// a zero residual, so with capacity 1e15 two tasks of demand 1 landed on 0
// free: free came back −2 and the second alignment −1e-30 (solver/robust's
// sweep, testdata tetris-assign-zero-free-overcommit.json, whose "free": {}
// is written here as {"net_out": 0}: an empty map would be dropped by
// omitempty when solveReq re-encodes the request). A tiny positive
// residual still forgives round-off of 1e-9 of capacity, and a residual
// that exactly fits is used.
func TestNoPlacementOnZeroFree(t *testing.T) {
	cases := []struct {
		name     string
		body     string
		placed   int
		unplaced []string
	}{
		{"zero free, huge capacity", `{"machines":[{"name":"m","capacity":{"net_in":1,"net_out":1e15},"free":{"net_out":0}}],` +
			`"tasks":[{"id":"t0","job":"j","demand":{"net_out":1}},{"id":"t1","job":"j","demand":{"net_out":1}}]}`, 0, []string{"t0", "t1"}},
		{"exact fit", `{"machines":[{"name":"m","capacity":{"cpu":1e15},"free":{"cpu":2}}],` +
			`"tasks":[{"id":"t0","job":"j","demand":{"cpu":1}},{"id":"t1","job":"j","demand":{"cpu":1}},{"id":"t2","job":"j","demand":{"cpu":1}}]}`, 2, []string{"t2"}},
		{"tenths add up to a whole", `{"machines":[{"name":"m","capacity":{"cpu":1}}],` +
			`"tasks":[` + tenths(11) + `]}`, 10, []string{"t10"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var req Request
			if err := json.Unmarshal([]byte(c.body), &req); err != nil {
				t.Fatal(err)
			}
			res := solveReq(t, &req)
			replay(t, &req, res, false)
			if len(res.Assignments) != c.placed {
				t.Fatalf("%d placed, want %d: %+v", len(res.Assignments), c.placed, res.Assignments)
			}
			for _, a := range res.Assignments {
				if a.Alignment < 0 {
					t.Errorf("%s: alignment %v < 0", a.Task, a.Alignment)
				}
			}
			var got []string
			for _, u := range res.Unplaced {
				got = append(got, u.Task)
				if u.Need <= u.Free {
					t.Errorf("%s unplaced with need %v ≤ free %v at %s", u.Task, u.Need, u.Free, u.Machine)
				}
			}
			if len(got) != len(c.unplaced) {
				t.Fatalf("unplaced %v, want %v", got, c.unplaced)
			}
			for i := range got {
				if got[i] != c.unplaced[i] {
					t.Fatalf("unplaced %v, want %v", got, c.unplaced)
				}
			}
			for _, m := range res.Machines {
				for r, f := range m.Free {
					if f < -1e-9 {
						t.Errorf("machine %s: free %s = %v", m.Name, r, f)
					}
				}
			}
		})
	}
}

// tenths lists n tasks of demand 0.1 cpu: ten of them sum to 1 only up to
// round-off (0.1·10 accumulates to 0.9999999999999999), which the slack on
// a positive residual must forgive.
func tenths(n int) string {
	s := ""
	for i := 0; i < n; i++ {
		if i > 0 {
			s += ","
		}
		s += `{"id":"t` + itoa(i) + `","job":"j","demand":{"cpu":0.1}}`
	}
	return s
}
