package fairshare

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"
)

// BenchmarkFill times one progressive-filling run of every policy and
// selection at the size (1,000 frameworks on 10,000 servers of 50
// types, every server its own entry), the optimised filler ("new") against
// the reference ("ref", cut at 20 s):
//
//	go test ./solver/fairshare -run '^$' -bench Fill -benchtime 1x -count 5
func BenchmarkFill(b *testing.B) {
	v, err := Generate(1, map[string]string{"frameworks": "1000", "servers": "10000", "types": "50", "expand": "true"})
	if err != nil {
		b.Fatal(err)
	}
	in, err := build(v.(*Request))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range fillCases() {
		b.Run(c.policy+"/"+c.selection+"/new", func(b *testing.B) {
			for range b.N {
				f, err := newFiller(in, c)
				if err != nil {
					b.Fatal(err)
				}
				if err := f.run(context.Background(), rand.New(rand.NewPCG(1, 0))); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.policy+"/"+c.selection+"/ref", func(b *testing.B) {
			for range b.N {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				f, err := newRefFiller(in, c)
				if err != nil {
					b.Fatal(err)
				}
				if err := f.run(ctx, rand.New(rand.NewPCG(1, 0))); err != nil {
					b.Log("reference cut at 20 s")
				}
				cancel()
			}
		})
	}
}

// fillCases lists every policy under each selection it has.
func fillCases() []fillOpts {
	var out []fillOpts
	for _, pol := range []string{PolicyDRF, PolicyTSF, PolicyPSDSF, PolicyRPSDSF} {
		for _, sel := range []string{SelectRRR, SelectJoint} {
			out = append(out, fillOpts{policy: pol, selection: sel, tie: TiePaper})
		}
	}
	return append(out, fillOpts{policy: PolicyBFDRF, selection: SelectJoint, tie: TiePaper})
}
