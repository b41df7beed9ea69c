package assign

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestFittingKept: rounds over prepared requests that keep the classes
// fitting them (ask.fit, listed in the first round) decide byte for byte
// as rounds that test every class at every scan (Model.rescan, as before
// the lists were kept), over random clusters, requests and releases.
func TestFittingKept(t *testing.T) {
	rounds := 0
	for seed := range int64(60) {
		params := map[string]string{
			"nodes": strconv.Itoa(2 + int(seed%7)), "apps": strconv.Itoa(2 + int(seed%3)),
			"garbo": strconv.Itoa(int(seed % 2)), "requests": "6", "busy": "0.8", "borrowed": "0.5",
			"bound": []string{"0", "0.05", "0.3"}[seed%3], "grace": []string{"0", "30"}[seed%2],
		}
		kept, fresh := fittingModel(t, seed, params), fittingModel(t, seed, params)
		fresh.rescan = true
		pk, pf := kept.Requests(), fresh.Requests()
		rng := rand.New(rand.NewPCG(uint64(seed), 3))
		for r := range 5 {
			now := float64(10 * (r + 1))
			var qk, qf []Queued
			for i := range pk {
				if rng.IntN(3) == 0 {
					continue
				}
				n := 1 + rng.IntN(3)
				qk = append(qk, Queued{Ask: &pk[i], ID: pk[i].a.id, Count: n})
				qf = append(qf, Queued{Ask: &pf[i], ID: pf[i].a.id, Count: n})
			}
			rk, _ := kept.Round(context.Background(), now, qk)
			rf, _ := fresh.Round(context.Background(), now, qf)
			bk, err := json.Marshal(rk)
			if err != nil {
				t.Fatal(err)
			}
			bf, _ := json.Marshal(rf)
			if string(bk) != string(bf) {
				t.Fatalf("seed %d round %d: kept lists decided\n%s\nfresh lists decided\n%s", seed, r, bk, bf)
			}
			if len(rk.Grants) > 0 {
				rounds++
			}
			for i := range kept.conts {
				if kept.conts[i].user >= 0 && rng.IntN(3) == 0 {
					kept.Release(i, now+1)
					fresh.Release(i, now+1)
				}
			}
		}
	}
	if rounds == 0 {
		t.Fatal("no round granted anything")
	}
}

func fittingModel(t *testing.T, seed int64, params map[string]string) *Model {
	t.Helper()
	v, err := Generate(seed, params)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Build(v.(*Request))
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	return m
}
