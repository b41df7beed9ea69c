package cmmf

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/xflex/xflex/solver/solvertest"
)

// TestGenerateMatchesGoogleStatistics checks the generator against the
// constraint statistics the paper reports for Google (§7.1): about 1.8
// constraints per user, the average user able to use about 38% of the
// machines, roughly 40% of users under 20% and 30% under 10%.
func TestGenerateMatchesGoogleStatistics(t *testing.T) {
	var cons, frac, under20, under10, n float64
	for seed := int64(0); seed < 20; seed++ {
		req := GenerateRequest(seed, GenParams{Users: 500, Types: 50, Machines: 10000, Divisible: true})
		in, err := Build(req)
		if err != nil {
			t.Fatal(err)
		}
		for i := range in.Users {
			cons += float64(len(req.Users[i].Require))
			f := float64(reachOf(in, i)) / 10000
			frac += f
			if f < 0.2 {
				under20++
			}
			if f < 0.1 {
				under10++
			}
			n++
		}
	}
	cons, frac, under20, under10 = cons/n, frac/n, under20/n, under10/n
	t.Logf("constraints/user %.2f, usable fraction %.3f, under 20%%: %.2f, under 10%%: %.2f", cons, frac, under20, under10)
	if math.Abs(cons-1.8) > 0.1 {
		t.Errorf("constraints per user %.2f, want about 1.8", cons)
	}
	if math.Abs(frac-0.38) > 0.04 {
		t.Errorf("usable fraction %.3f, want about 0.38", frac)
	}
	if math.Abs(under20-0.4) > 0.1 || math.Abs(under10-0.3) > 0.1 {
		t.Errorf("under 20%%: %.2f (want ~0.4), under 10%%: %.2f (want ~0.3)", under20, under10)
	}
}

// TestGenerateDeterministic: same seed, same instance; the generated
// request solves.
func TestGenerateDeterministic(t *testing.T) {
	a := GenerateRequest(5, GenParams{Users: 30, Types: 6, Machines: 300, Divisible: false, Weighted: true, CappedFrac: 0.3})
	b := GenerateRequest(5, GenParams{Users: 30, Types: 6, Machines: 300, Divisible: false, Weighted: true, CappedFrac: 0.3})
	if len(a.Users) != 30 || len(a.MachineTypes) != 6 {
		t.Fatalf("got %d users, %d types", len(a.Users), len(a.MachineTypes))
	}
	for i := range a.Users {
		if len(a.Users[i].Require) != len(b.Users[i].Require) || *a.Users[i].Weight != *b.Users[i].Weight {
			t.Fatalf("user %d differs between runs", i)
		}
	}
	if _, err := ParseGenParams(map[string]string{"users": "x"}); err == nil {
		t.Fatal("bad users parameter accepted")
	}
	if _, err := ParseGenParams(map[string]string{"colour": "red"}); err == nil {
		t.Fatal("unknown parameter accepted")
	}
	if _, err := ParseGenParams(map[string]string{"users": "0"}); err == nil {
		t.Fatal("zero users accepted")
	}
	if p, err := ParseGenParams(map[string]string{"users": "7"}); err != nil || p.Machines != 140 {
		t.Fatalf("default machines %d (%v), want 20 per user", p.Machines, err)
	}
}

// TestGeneratedRequestIsValid: what `xflex gen cmmf` prints passes the
// request schema and solves, in every variant.
func TestGeneratedRequestIsValid(t *testing.T) {
	for _, params := range []map[string]string{
		{"users": "20", "types": "5"},
		{"users": "20", "types": "5", "machines": "60", "individual": "true", "divisible": "false", "weighted": "true", "capped": "0.5"},
	} {
		req, err := Generate(9, params)
		if err != nil {
			t.Fatal(err)
		}
		body, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		solvertest.Check(t, Problem(), body)
	}
}
