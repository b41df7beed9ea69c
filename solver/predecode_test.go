package solver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/xflex/xflex/schemas"
)

// predecodeRunner is a toy problem with a Decode that records what it saw
// and Solve that reports whether Options.Decoded was set: "decoded:V" or
// "self:V" with V the body's x.
func predecodeRunner(t *testing.T, decode func(raw json.RawMessage) (any, error)) *Runner {
	t.Helper()
	set, err := schemas.LoadWith(map[string][]byte{"toy.request.json": []byte(toySchema)})
	if err != nil {
		t.Fatal(err)
	}
	p := Problem{Name: "toy", RequestSchema: "toy.request.json", Decode: decode,
		Solve: func(ctx context.Context, raw json.RawMessage, opts Options) (any, Meta, error) {
			if s, ok := opts.Decoded.(string); ok {
				return "decoded:" + s, Meta{Status: StatusFeasible}, nil
			}
			var req struct {
				X float64 `json:"x"`
			}
			if err := Decode(raw, &req); err != nil {
				return nil, Meta{}, err
			}
			b, _ := json.Marshal(req.X)
			return "self:" + string(b), Meta{Status: StatusFeasible}, nil
		}}
	r, err := NewRunnerWithSchemas([]Problem{p}, time.Second, set)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestPredecode(t *testing.T) {
	echo := func(raw json.RawMessage) (any, error) { return strings.TrimSpace(string(raw)), nil }
	cases := []struct {
		name   string
		decode func(json.RawMessage) (any, error)
		body   string
		want   string // result, or the error kind
	}{
		{"used", echo, `{"x": 2}`, `decoded:{"x": 2}`},
		{"schema still first", echo, `{"x": "two"}`, string(KindSchema)},
		{"syntax still first", echo, `{"x": 2} {}`, string(KindMalformed)},
		{"error: Solve decodes", func(json.RawMessage) (any, error) { return nil, errTest }, `{"x": 3}`, "self:3"},
		{"panic: Solve decodes", func(json.RawMessage) (any, error) { panic("decoder bug") }, `{"x": 4}`, "self:4"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, err := predecodeRunner(t, c.decode).Run(context.Background(), "toy", []byte(c.body))
			if err != nil {
				if got := string(err.(*Error).Kind); got != c.want {
					t.Fatalf("error %v, want %s", err, c.want)
				}
				return
			}
			if resp.Result != c.want {
				t.Fatalf("result %v, want %s", resp.Result, c.want)
			}
		})
	}
}

var errTest = &Error{Kind: KindInvalid, Detail: "test decoder refuses"}
