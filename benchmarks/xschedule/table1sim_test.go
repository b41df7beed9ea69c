package xschedule

import (
	"context"
	"fmt"
	"testing"

	"github.com/xflex/xflex/solver/xschedule/assign"
)

// TestTable1SimOwnedOnly: through the simulator without borrowing (every
// ask owned_only), the batch reading (seed 1) keeps Flex first overall,
// DRF last and DRF's longer makespan (this seed's order puts FIFO before
// Fair, as in the fixed pool; the medians keep fair < fifo).
func TestTable1SimOwnedOnly(t *testing.T) {
	o, err := RunTable1Sim(context.Background(), SimSetting{Table1Setting: Table1Setting{TaskSeconds: 36, Seed: 1, AMShare: 0.5},
		FlexType: "owned_only", Type: "owned_only"})
	if err != nil {
		t.Fatal(err)
	}
	if !o.Finished || o.Preemptions != 0 {
		t.Fatalf("finished %v with %d preemptions: want done, none", o.Finished, o.Preemptions)
	}
	for _, name := range []string{"overall ART flex < fair", "overall ART fifo < drf", "drf makespan > every X-Flex one"} {
		if !claim(t, name, o.Rows) {
			t.Errorf("%s fails: %+v", name, o.Rows)
		}
	}
	if o.Rows[0].Overall >= o.Rows[2].Overall || o.Rows[1].Overall >= o.Rows[3].Overall {
		t.Errorf("flex %.1f not below fifo %.1f, or fair %.1f not below drf %.1f", o.Rows[0].Overall, o.Rows[2].Overall, o.Rows[1].Overall, o.Rows[3].Overall)
	}
}

// TestTable1SimSharing: under the default readings (assign's "Readings
// that keep the guarantees") every sharing reading of the batch (seed
// 1: 30 s and 0 s notices, Flex owned_only, owned_only + non_owned and
// owned_first) finishes, and each X-Flex application's overall average
// response time is within the notices' grace of its figure without
// sharing. (The three applications have the same work, so none has
// idle containers while another waits: sharing changes nothing here,
// where under the literal readings it thrashed.)
func TestTable1SimSharing(t *testing.T) {
	var alone SimOutcome
	for _, s := range SimSettings("small") {
		o, err := RunTable1Sim(context.Background(), withSeed(s, 1))
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%s/%s+%s grace %g light fair %v", s.FlexType, s.Type, s.FlexOverflow, s.Grace, s.LightFair)
		if !o.Finished {
			t.Errorf("%s: did not finish (%d preemptions)", name, o.Preemptions)
			continue
		}
		if s.Type == assign.OwnedOnly {
			alone = o
			continue
		}
		t.Logf("%s: ART %.1f / %.1f / %.1f, alone %.1f / %.1f / %.1f, %d preemptions", name, o.Rows[0].Overall, o.Rows[1].Overall,
			o.Rows[2].Overall, alone.Rows[0].Overall, alone.Rows[1].Overall, alone.Rows[2].Overall, o.Preemptions)
		for i := range 3 {
			if o.Rows[i].Overall > alone.Rows[i].Overall+s.Grace {
				t.Errorf("%s: %s ART %.1f, alone %.1f", name, o.Rows[i].Scheduler, o.Rows[i].Overall, alone.Rows[i].Overall)
			}
		}
	}
}

func withSeed(s SimSetting, seed uint64) SimSetting {
	s.Seed = seed
	return s
}

// TestTable1SimLiteralThrashes keeps, under the literal readings
// (assign.ReadingsLiteral: takeovers of owned containers, bound 0
// eligible only in debt, no hold, lending in priority order), the two
// instances where X-Schedule's sharing did not help:
//   - every job at 0, Flex owned_only, Fair and FIFO owned_first with
//     bound 1 and 30 s notices: 86 preemptions, and Fair's and FIFO's
//     average response times are worse than without sharing;
//   - arrivals over 300 s (seed 1), the same asks with notices of 0 s:
//     Fair and FIFO take containers from each other as soon as either is
//     in debt, each preemption loses a task's work, and the run has not
//     finished at three times the 540 s the work needs (livelock).
func TestTable1SimLiteralThrashes(t *testing.T) {
	base := Table1Setting{TaskSeconds: 36, Seed: 1, AMShare: 0.5}
	lit := assign.ReadingsLiteral()
	alone, err := RunTable1Sim(context.Background(), SimSetting{Table1Setting: base, FlexType: "owned_only", Type: "owned_only", Readings: lit})
	if err != nil {
		t.Fatal(err)
	}
	shared, err := RunTable1Sim(context.Background(), SimSetting{Table1Setting: base, FlexType: "owned_only", Type: "owned_first", Bound: 1, Grace: 30, Readings: lit})
	if err != nil {
		t.Fatal(err)
	}
	if !shared.Finished || shared.Preemptions == 0 || shared.Rows[1].Overall <= alone.Rows[1].Overall || shared.Rows[2].Overall <= alone.Rows[2].Overall {
		t.Fatalf("sharing: finished %v, %d preemptions, fair %.1f (alone %.1f), fifo %.1f (alone %.1f): sharing no longer hurts under the literal readings; update RESULTS.md",
			shared.Finished, shared.Preemptions, shared.Rows[1].Overall, alone.Rows[1].Overall, shared.Rows[2].Overall, alone.Rows[2].Overall)
	}
	base.Spread = 300
	kill, err := RunTable1Sim(context.Background(), SimSetting{Table1Setting: base, FlexType: "owned_only", Type: "owned_first", Bound: 1, Grace: 0, Readings: lit})
	if err != nil {
		t.Fatal(err)
	}
	if kill.Finished {
		t.Fatalf("grace 0 finished (%d preemptions) under the literal readings: the livelock is gone; update RESULTS.md", kill.Preemptions)
	}
	t.Logf("literal: batch 30 s %d preemptions, fair %.1f (alone %.1f), fifo %.1f (alone %.1f); Poisson 0 s did not finish, %d preemptions",
		shared.Preemptions, shared.Rows[1].Overall, alone.Rows[1].Overall, shared.Rows[2].Overall, alone.Rows[2].Overall, kill.Preemptions)
}

// TestSharingHelpsBursty: with one application light and the other
// bursty, sharing (bursty asks owned_first and borrows light's idle
// containers) cuts bursty's average response time, and light's stays
// within the notices' grace of its time alone, for 0 and 5 s notices.
func TestSharingHelpsBursty(t *testing.T) {
	for _, g := range []float64{0, 5} {
		alone, err := RunBursty(context.Background(), BurstySetting{Grace: g})
		if err != nil {
			t.Fatal(err)
		}
		shared, err := RunBursty(context.Background(), BurstySetting{Share: true, Grace: g})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("grace %g: bursty %.1f s shared, %.1f alone; light %.1f shared, %.1f alone; %d preemptions", g, shared.Bursty, alone.Bursty, shared.Light, alone.Light, shared.Preemptions)
		if shared.Bursty >= alone.Bursty || shared.Light > alone.Light+g {
			t.Errorf("grace %g: bursty %.1f (alone %.1f), light %.1f (alone %.1f): sharing does not help the bursty one or costs the light one more than the grace",
				g, shared.Bursty, alone.Bursty, shared.Light, alone.Light)
		}
	}
}
