package assign

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// decodeBoth decodes a one-task request with TaskReq's own decoder (through
// the strict decoder solver.Decode uses) and with encoding/json's reflective
// one on a copy of the type without the method.
func decodeBoth(body string) (got, want []TaskReq, gotErr, wantErr error) {
	type plain TaskReq
	var a struct {
		Tasks []TaskReq `json:"tasks"`
	}
	var b struct {
		Tasks []plain `json:"tasks"`
	}
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	gotErr = dec.Decode(&a)
	dec = json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	wantErr = dec.Decode(&b)
	if b.Tasks != nil {
		want = make([]TaskReq, len(b.Tasks))
		for i, x := range b.Tasks {
			want[i] = TaskReq(x)
		}
	}
	return a.Tasks, want, gotErr, wantErr
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

// TaskReq's own decoder gives what encoding/json gives (values, and an
// error exactly when encoding/json has one) on thousands of task objects.
func TestTaskDecodeMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	fast, all := 0, 0
	for it := 0; it < 5000; it++ {
		var tasks []string
		for range 1 + rng.IntN(3) {
			tasks = append(tasks, randTask(rng))
		}
		body := `{"tasks":[` + strings.Join(tasks, ",") + `]}`
		got, want, gotErr, wantErr := decodeBoth(body)
		if (gotErr != nil) != (wantErr != nil) {
			t.Fatalf("%s\nerror %v, encoding/json %v", body, gotErr, wantErr)
		}
		if wantErr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%s\ngot  %#v\nwant %#v", body, got, want)
		}
		for _, s := range tasks {
			var x TaskReq
			if parseTask([]byte(s), &x) {
				fast++
			}
			all++
		}
	}
	if fast < 2000 || all-fast < 2000 {
		t.Fatalf("%d of %d task objects took the direct path: the test exercises too little of one path", fast, all)
	}
}

// A generated 2,000-task request decodes to the same value either way.
func TestTaskDecodeGenerated(t *testing.T) {
	req := GenerateRequest(rand.New(rand.NewPCG(1, 2)), 50, 2000, 20, 0.5, 0.7)
	raw, err := json.Marshal(map[string]any{"tasks": req.Tasks})
	if err != nil {
		t.Fatal(err)
	}
	pretty := &bytes.Buffer{}
	if err := json.Indent(pretty, raw, "", "  "); err != nil {
		t.Fatal(err)
	}
	got, want, gotErr, wantErr := decodeBoth(pretty.String())
	if gotErr != nil || wantErr != nil {
		t.Fatal(gotErr, wantErr)
	}
	if len(got) != 2000 || !reflect.DeepEqual(got, want) {
		t.Fatalf("generated request decodes differently (%d tasks)", len(got))
	}
}

// FuzzTaskDecode: on any input TaskReq's decoder agrees with encoding/json
// (it never sees invalid JSON through a Decoder, which checks syntax first).
func FuzzTaskDecode(f *testing.F) {
	rng := rand.New(rand.NewPCG(5, 5))
	for range 20 {
		f.Add(`{"tasks":[` + randTask(rng) + `]}`)
	}
	f.Fuzz(func(t *testing.T, body string) {
		got, want, gotErr, wantErr := decodeBoth(body)
		if (gotErr != nil) != (wantErr != nil) {
			t.Fatalf("%q: error %v, encoding/json %v", body, gotErr, wantErr)
		}
		if wantErr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\ngot  %#v\nwant %#v", body, got, want)
		}
	})
}

// plainRequest is Request with encoding/json's own decoding all the way
// down (the same fields and tags; tasks without TaskReq's method).
type plainRequest struct {
	Machines    []MachineReq `json:"machines"`
	Tasks       []plainTask  `json:"tasks"`
	Jobs        []JobReq     `json:"jobs,omitempty"`
	Knobs       *Knobs       `json:"knobs,omitempty"`
	Roles       *Roles       `json:"roles,omitempty"`
	MaxUnplaced *int         `json:"max_unplaced,omitempty"`
	BudgetMS    *int64       `json:"budget_ms,omitempty"`
	Seed        *int64       `json:"seed,omitempty"`
	Heartbeat   []string     `json:"heartbeat,omitempty"`
}

type plainTask TaskReq

// decodeRequestBoth decodes body as Request (its own decoder) and as
// plainRequest (encoding/json all the way down), both strictly, and
// returns the latter converted to a Request.
func decodeRequestBoth(body string) (got, want Request, gotErr, wantErr error) {
	var p plainRequest
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	gotErr = dec.Decode(&got)
	dec = json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	wantErr = dec.Decode(&p)
	want = Request{Machines: p.Machines, Jobs: p.Jobs, Knobs: p.Knobs, Roles: p.Roles,
		MaxUnplaced: p.MaxUnplaced, BudgetMS: p.BudgetMS, Seed: p.Seed, Heartbeat: p.Heartbeat}
	if p.Tasks != nil {
		want.Tasks = make([]TaskReq, len(p.Tasks))
		for i, x := range p.Tasks {
			want.Tasks[i] = TaskReq(x)
		}
	}
	return got, want, gotErr, wantErr
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

// Request's decoder gives what encoding/json gives on random bodies.
func TestRequestDecodeMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	fast, all := 0, 0
	for it := 0; it < 4000; it++ {
		body := randRequest(rng)
		got, want, gotErr, wantErr := decodeRequestBoth(body)
		if (gotErr != nil) != (wantErr != nil) {
			t.Fatalf("%s\nerror %v, encoding/json %v", body, gotErr, wantErr)
		}
		if wantErr != nil {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s\ngot  %#v\nwant %#v", body, got, want)
		}
		var x Request
		if parseRequest([]byte(body), &x) {
			fast++
		}
		all++
	}
	if fast < 500 || all-fast < 500 {
		t.Fatalf("%d of %d decodable requests took the direct path: the test exercises too little of one path", fast, all)
	}
}

// FuzzRequestDecode: Request's decoder agrees with encoding/json on any
// body.
func FuzzRequestDecode(f *testing.F) {
	rng := rand.New(rand.NewPCG(7, 7))
	for range 20 {
		f.Add(randRequest(rng))
	}
	f.Fuzz(func(t *testing.T, body string) {
		got, want, gotErr, wantErr := decodeRequestBoth(body)
		if (gotErr != nil) != (wantErr != nil) {
			t.Fatalf("%q: error %v, encoding/json %v", body, gotErr, wantErr)
		}
		if wantErr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\ngot  %#v\nwant %#v", body, got, want)
		}
	})
}
