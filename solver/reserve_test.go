package solver

import (
	"context"
	"testing"
	"time"
)

func TestWithReserve(t *testing.T) {
	dl := time.Now().Add(time.Hour)
	ctx, cancel := context.WithDeadline(context.Background(), dl)
	defer cancel()
	r, cancelR := WithReserve(ctx, time.Minute)
	defer cancelR()
	if got, ok := r.Deadline(); !ok || !got.Equal(dl.Add(-time.Minute)) {
		t.Fatalf("deadline %v (%v), want %v", got, ok, dl.Add(-time.Minute))
	}
	none, cancelN := WithReserve(context.Background(), time.Minute)
	defer cancelN()
	if _, ok := none.Deadline(); ok {
		t.Fatal("a context without deadline got one")
	}
}
