package xschedule

import (
	"math"
	"testing"
)

// claim returns the named Table 1 claim's verdict on rows.
func claim(t *testing.T, name string, rows []Table1Row) bool {
	t.Helper()
	for _, c := range Table1Claims {
		if c.Name == name {
			return c.Holds(rows)
		}
	}
	t.Fatalf("no claim %q", name)
	return false
}

// TestTable1FlexBatchIsSPT: with every job at time 0 and 36 s tasks, Flex
// (average response time) runs the small jobs five at a time, then the
// medium ones one at a time on all 25 containers, then the large one:
// small jobs complete at 36..180 s (mean 108), medium at 216..360 (mean
// 288), the large at 540, the optimum of the malleable relaxation.
func TestTable1FlexBatchIsSPT(t *testing.T) {
	rows, err := RunTable1(Table1Setting{TaskSeconds: 36, Seed: 1, AMShare: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	f := rows[0]
	if f.Scheduler != "flex" || f.Small != 108 || f.Medium != 288 || f.Large != 540 {
		t.Fatalf("flex row %+v: want small 108, medium 288, large 540", f)
	}
	for _, r := range rows[:3] {
		if r.Makespan != 540 {
			t.Fatalf("%s makespan %g: 375 tasks of 36 s on 25 containers, work conserving, end at 540", r.Scheduler, r.Makespan)
		}
	}
}

// TestTable1PaperOrderings checks the paper's Table 1 claims on the batch
// reading (every job at 0, 36 s tasks, DRF AM share 0.5; medians of five
// arrival orders). The overall ordering flex < fair < fifo < drf, the
// small jobs' ordering and DRF's longer makespan hold, and Flex's overall
// ART is 38% of DRF's (paper 33%), 62% of Fair's (71%) and 52% of FIFO's
// (46%). The paper's large-job column (DRF best at 154 s, FIFO next) does
// not hold: under DRF every job is a user with an equal share, so the
// large job is the last to finish; the instance is kept here as the
// claim's counterexample.
func TestTable1PaperOrderings(t *testing.T) {
	rows, err := MedianTable1(Table1Setting{TaskSeconds: 36, AMShare: 0.5}, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"overall ART flex < fair", "overall ART fair < fifo", "overall ART fifo < drf",
		"small ART flex < fair < fifo < drf", "drf makespan > every X-Flex one"} {
		if !claim(t, name, rows) {
			t.Errorf("%s: fails on %+v", name, rows)
		}
	}
	if claim(t, "large ART drf < fifo < flex ≤ fair", rows) {
		t.Errorf("large ART drf < fifo < flex ≤ fair now holds (%+v): update the counterexample and RESULTS.md", rows)
	}
	for _, c := range []struct {
		name     string
		got, ref float64
	}{
		{"flex/drf", rows[0].Overall / rows[3].Overall, 0.38},
		{"flex/fair", rows[0].Overall / rows[1].Overall, 0.62},
		{"flex/fifo", rows[0].Overall / rows[2].Overall, 0.52},
	} {
		if math.Abs(c.got-c.ref) > 0.005 {
			t.Errorf("%s = %.3f, RESULTS.md says %.2f", c.name, c.got, c.ref)
		}
	}
}

// TestTable1FIFOBeatsDRF: with arrivals spread over ~300 s, 20 s tasks and
// DRF's AM share at 0.2, the cluster is often idle enough that DRF's
// job-level sharing beats FIFO overall (62.8 s against 67.4 s): the
// paper's fifo < drf fails here, kept as the counterexample.
func TestTable1FIFOBeatsDRF(t *testing.T) {
	rows, err := MedianTable1(Table1Setting{TaskSeconds: 20, Spread: 300, AMShare: 0.2}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if claim(t, "overall ART fifo < drf", rows) {
		t.Fatalf("fifo %.1f < drf %.1f now holds: update the counterexample and RESULTS.md", rows[2].Overall, rows[3].Overall)
	}
	if !claim(t, "overall ART flex < fair", rows) {
		t.Fatalf("flex %.1f not below fair %.1f", rows[0].Overall, rows[1].Overall)
	}
}
