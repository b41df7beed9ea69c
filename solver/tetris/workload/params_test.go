package workload

import (
	"strings"
	"testing"
)

func TestParams(t *testing.T) {
	p := NewParams(map[string]string{"a": "2.5", "b": "-1", "c": "x", "d": "Inf"})
	if v := p.Num("a", 9); v != 2.5 {
		t.Errorf("a = %v, want 2.5", v)
	}
	if v := p.Num("missing", 7); v != 7 || p.Err() != nil {
		t.Errorf("missing = %v (err %v), want the default 7", v, p.Err())
	}
	for _, bad := range []string{"-1", "x", "Inf", "NaN"} {
		q := NewParams(map[string]string{"k": bad})
		q.Num("k", 1)
		if q.Err() == nil || !strings.Contains(q.Err().Error(), "param k:") {
			t.Errorf("param k = %q: err %v, want it refused and named", bad, q.Err())
		}
	}
	// The first bad parameter read is the one reported.
	p.Num("c", 0)
	p.Num("b", 0)
	if p.Err() == nil || !strings.Contains(p.Err().Error(), "param c:") {
		t.Errorf("err %v, want the first bad parameter (c)", p.Err())
	}
}
