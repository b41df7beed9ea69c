package progress

import (
	"context"
	"math"
	"testing"
)

func TestReport(t *testing.T) {
	// Outside a job: a no-op that must not panic.
	Report(context.Background(), Progress{Phase: "x"})

	r := &Reporter{}
	ctx := WithReporter(context.Background(), r)
	if _, changed := r.Take(); changed {
		t.Fatal("fresh reporter reports a change")
	}
	nan, big := math.NaN(), 1.5
	Report(ctx, Progress{Phase: "bisection", Fraction: &big, Objective: &nan, Bound: F(3)})
	p, changed := r.Take()
	if !changed || p.Phase != "bisection" || *p.Fraction != 1 || p.Objective != nil || *p.Bound != 3 {
		t.Errorf("got %+v (changed %v): want fraction clamped to 1, NaN objective dropped", p, changed)
	}
	if _, changed := r.Take(); changed {
		t.Error("second Take reports a change")
	}
	if F(math.Inf(1)) != nil || *F(2) != 2 {
		t.Error("F")
	}
}

func TestOffer(t *testing.T) {
	Offer(context.Background(), Incumbent{Result: 1}) // outside a job: a no-op
	if Listening(context.Background()) {
		t.Error("listening outside a job")
	}
	r := &Reporter{}
	ctx := WithReporter(context.Background(), r)
	if !Listening(ctx) {
		t.Error("not listening in a job")
	}
	if _, changed := r.TakeIncumbent(); changed {
		t.Fatal("fresh reporter has an incumbent")
	}
	Offer(ctx, Incumbent{Result: "a", Objective: F(2), Solver: "s"})
	Offer(ctx, Incumbent{Result: "b", Objective: F(3), Solver: "s"})
	inc, changed := r.TakeIncumbent()
	if !changed || inc.Result != "b" || *inc.Objective != 3 {
		t.Errorf("got %+v (changed %v), want the latest offer", inc, changed)
	}
	if _, changed := r.TakeIncumbent(); changed {
		t.Error("second take reports a change")
	}
}
