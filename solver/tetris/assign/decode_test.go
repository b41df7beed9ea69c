package assign

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/xflex/xflex/solver"
)

// decodeBoth decodes body with Problem.Decode (sonic) and with
// solver.Decode (encoding/json). Where decode succeeds solver.Decode must
// too, with the same value: Solve then uses decode's value. Where decode
// fails Solve decodes again with solver.Decode, so any answer is safe.
func decodeBoth(t *testing.T, body string) (ok bool) {
	t.Helper()
	v, err := decode([]byte(body))
	var want Request
	wantErr := solver.Decode([]byte(body), &want)
	if err != nil {
		return false
	}
	if wantErr != nil {
		t.Fatalf("%q: decode accepts what solver.Decode refuses (%v)", body, wantErr)
	}
	if got := v; !reflect.DeepEqual(*got, want) {
		t.Fatalf("%q:\ngot  %#v\nwant %#v", body, *got, want)
	}
	return true
}

// randTask writes one task object, mostly in the common shape, sometimes
// with what the direct parser hands to encoding/json: escapes, non-ASCII
// and invalid UTF-8, duplicate, unknown and case-varied keys, nulls, other
// types, empty objects and arrays, odd white space, huge numbers.
func randTask(rng *rand.Rand) string {
	ws := func() string { return []string{"", " ", "\n\t", "\r\n  "}[rng.IntN(4)] }
	str := func() string {
		switch rng.IntN(20) {
		case 0:
			return `"a\"b\\c\u00e9"`
		case 1:
			return `"ünï"`
		case 2:
			return "\"bad\xffutf\""
		case 3:
			return `null`
		case 4:
			return `7`
		default:
			return fmt.Sprintf(`"t%d"`, rng.IntN(100))
		}
	}
	num := func() string {
		switch rng.IntN(24) {
		case 0:
			return `1e999`
		case 1:
			return `"3"`
		case 2:
			return `null`
		case 3:
			return `-0`
		case 4:
			return `2.5E-3`
		default:
			return fmt.Sprint(rng.Float64() * 100)
		}
	}
	obj := func(fields []string) string {
		rng.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
		return "{" + ws() + strings.Join(fields, ws()+","+ws()) + ws() + "}"
	}
	var fs []string
	for _, k := range []string{"id", "job", "stage"} {
		if rng.IntN(6) > 0 {
			fs = append(fs, fmt.Sprintf(`"%s":%s%s`, k, ws(), str()))
		}
	}
	if rng.IntN(6) > 0 {
		var d []string
		for _, r := range []string{"cpu", "memory", "disk_read", "net_in"}[:rng.IntN(5)] {
			d = append(d, fmt.Sprintf(`"%s":%s`, r, num()))
		}
		if rng.IntN(10) == 0 && len(d) > 0 {
			d = append(d, d[0]) // duplicate key
		}
		v := obj(d)
		if rng.IntN(15) == 0 {
			v = "null"
		}
		fs = append(fs, `"demand":`+v)
	}
	if rng.IntN(3) == 0 {
		fs = append(fs, `"duration":`+num())
	}
	if rng.IntN(2) == 0 {
		var ins []string
		for range rng.IntN(3) {
			var f []string
			if rng.IntN(8) > 0 {
				f = append(f, `"machine":`+str())
			}
			if rng.IntN(8) > 0 {
				f = append(f, `"rate":`+num())
			}
			if rng.IntN(15) == 0 {
				f = append(f, `"Rate":1`)
			}
			ins = append(ins, obj(f))
		}
		fs = append(fs, `"inputs":[`+ws()+strings.Join(ins, ",")+ws()+`]`)
	}
	switch rng.IntN(20) {
	case 0:
		fs = append(fs, `"bogus":1`)
	case 1:
		fs = append(fs, `"ID":"x"`)
	case 2:
		if len(fs) > 0 {
			fs = append(fs, fs[0])
		}
	}
	if rng.IntN(30) == 0 {
		return "null"
	}
	return obj(fs)
}

// randRequest writes a request body around random tasks, sometimes with
// what sends the whole request to encoding/json.
func randRequest(rng *rand.Rand) string {
	var fs []string
	add := func(k, v string) { fs = append(fs, fmt.Sprintf("%q:%s", k, v)) }
	add("machines", `[{"name":"m0","capacity":{"cpu":4,"memory":8},"free":{"cpu":2}},{"name":"m1","capacity":{"cpu":4}}]`)
	var tasks []string
	for range rng.IntN(4) {
		tasks = append(tasks, randTask(rng))
	}
	add("tasks", "["+strings.Join(tasks, ",")+"]")
	if rng.IntN(2) == 0 {
		add("jobs", `[{"id":"j","remaining_work":3,"allocation":{"cpu":1},"weight":2,"stages":[{"name":"s","tasks":3,"finished":1}]}]`)
	}
	if rng.IntN(2) == 0 {
		add("knobs", []string{`{"fairness":0.5,"epsilon":0.1}`, `{}`, `null`, `{"bogus":1}`}[rng.IntN(4)])
	}
	if rng.IntN(3) == 0 {
		add("roles", `{"disk_read":"cpu"}`)
	}
	if rng.IntN(3) == 0 {
		add("max_unplaced", []string{`5`, `2.5`, `"5"`, `null`}[rng.IntN(4)])
	}
	if rng.IntN(3) == 0 {
		add("budget_ms", `100`)
	}
	if rng.IntN(3) == 0 {
		add("seed", []string{`7`, `-1`, `1e3`}[rng.IntN(3)])
	}
	if rng.IntN(3) == 0 {
		add("heartbeat", []string{`["m1","m0"]`, `[]`, `null`, `["m0",1]`, `"m0"`}[rng.IntN(5)])
	}
	switch rng.IntN(12) {
	case 0:
		add("bogus", "1")
	case 1:
		add("Tasks", "[]")
	case 2:
		add("seed", "8") // possibly a duplicate key
	case 3:
		add("tasks", "null")
	}
	rng.Shuffle(len(fs), func(i, j int) { fs[i], fs[j] = fs[j], fs[i] })
	return "{ " + strings.Join(fs, " ,\n") + " }"
}

// Problem.Decode gives what solver.Decode gives on random bodies, and
// decodes most of those encoding/json decodes (it may hand some back:
// invalid UTF-8, which encoding/json repairs).
func TestRequestDecodeMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	decoded, decodable := 0, 0
	for it := 0; it < 4000; it++ {
		body := randRequest(rng)
		if decodeBoth(t, body) {
			decoded++
		}
		var want Request
		if solver.Decode([]byte(body), &want) == nil {
			decodable++
		}
	}
	if decodable < 500 || decoded < decodable*9/10 {
		t.Fatalf("decode took %d of the %d bodies solver.Decode decodes", decoded, decodable)
	}
}

// A generated 2,000-task request, indented, decodes to the same value.
func TestRequestDecodeGenerated(t *testing.T) {
	req := GenerateRequest(rand.New(rand.NewPCG(1, 2)), 50, 2000, 20, 0.5, 0.7)
	raw, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	pretty := &bytes.Buffer{}
	if err := json.Indent(pretty, raw, "", "  "); err != nil {
		t.Fatal(err)
	}
	if !decodeBoth(t, pretty.String()) {
		t.Fatal("decode refused a generated request")
	}
}

// FuzzRequestDecode: Problem.Decode never accepts what solver.Decode
// refuses and never decodes differently.
func FuzzRequestDecode(f *testing.F) {
	rng := rand.New(rand.NewPCG(7, 7))
	for range 20 {
		f.Add(randRequest(rng))
	}
	f.Fuzz(func(t *testing.T, body string) { decodeBoth(t, body) })
}
