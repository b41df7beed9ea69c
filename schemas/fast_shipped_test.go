package schemas_test

import (
	"testing"

	"github.com/xflex/xflex/schemas"
)

// TestFastPathAnswersShippedSchemas asserts that the fast path covers
// every schema the service ships, so a valid request or response never
// falls back to the library: no node of any shipped schema is one the
// fast path cannot evaluate, and every shipped document the library
// accepts (the testdata requests, examples and golden responses) gets
// the fast verdict "valid" without the library being asked.
func TestFastPathAnswersShippedSchemas(t *testing.T) {
	set, err := schemas.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range set.Names() {
		bad, nodes := set.FastUnsupported(name)
		if bad != 0 || nodes == 0 {
			t.Errorf("%s: %d of %d fast-path nodes unsupported (-1: no fast validator)", name, bad, nodes)
		}
	}
	seeds := loadSeeds(t)
	checked := 0
	for _, s := range seeds {
		if ok, _ := libraryVerdict(set, s.schema, s.doc); !ok {
			continue // the library's messages are wanted here: no fast answer expected
		}
		checked++
		if v := set.FastVerdict(s.schema, s.doc); v != "valid" {
			t.Errorf("%s (%s): fast verdict %s on a document the library accepts", s.label, s.schema, v)
		}
	}
	if checked < len(seeds)/2 {
		t.Errorf("only %d of %d shipped documents are valid: the seeds are not the shipped documents", checked, len(seeds))
	}
	t.Logf("%d schemas, %d shipped documents the library accepts", len(set.Names()), checked)
}
