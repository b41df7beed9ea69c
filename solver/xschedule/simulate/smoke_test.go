package simulate

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/xflex/xflex/solver"
)

func TestSmoke(t *testing.T) {
	r, err := Generate(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	req := r.(*Request)
	in, err := Build(req)
	if err != nil {
		t.Fatal(err)
	}
	res, meta, err := solve(context.Background(), solver.Built[Request, *Instance]{Req: req, In: in}, solver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := res.(*Result)
	b, _ := json.MarshalIndent(struct {
		S, D Summary
		A    []AppTotals
		I    []PairSeries
		N    int
	}{out.Summary, out.Baselines.DRF.Summary, out.Apps, out.Imbalance, len(out.Events)}, "", " ")
	t.Logf("%s %v", b, meta.Notes)
}
