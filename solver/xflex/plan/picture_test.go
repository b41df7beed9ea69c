package plan

import (
	"testing"

	"github.com/xflex/xflex/sight/sighttest"
)

// TestPictureStored draws every stored answer (the example and the
// testdata plans) and compares the picture with the answer: a panel per
// stage that ran plus the success comparison, a bar per scheduler, and
// one utilisation layer per application under each of X-Flex and DRF.
func TestPictureStored(t *testing.T) {
	sighttest.EachStored(t, "../../..", "xflex-plan", picture, func(t *testing.T, c sighttest.Case, res *Result, s sighttest.Shape) {
		stages := 0
		for _, st := range []*StageRun{res.Stages.XSize, res.Stages.XSelect, res.Stages.Simulate} {
			if st != nil && st.Response != nil {
				stages++
			}
		}
		if stages != 3 {
			t.Fatalf("stored plan ran %d stages", stages)
		}
		// Nested panels: X-Size's, X-Select's, sharing, success.
		if s.Classes["panel"] < 4 {
			t.Fatalf("%d panels, want at least 4", s.Classes["panel"])
		}
		if want := 1 + len(res.Summary.Baselines); s.Classes["bar"] != want {
			t.Fatalf("%d bars, want %d (X-Flex and each baseline)", s.Classes["bar"], want)
		}
		if want := 2 * min(len(res.Mix.Apps), 9); s.Classes["util-area"] != want {
			t.Fatalf("%d utilisation layers, want %d", s.Classes["util-area"], want)
		}
	})
}
