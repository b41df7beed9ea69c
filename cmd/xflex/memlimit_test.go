package main

import (
	"strings"
	"testing"
)

// TestMemoryLimit: auto is the sum of the budgets plus the idle server,
// unless GOMEMLIMIT is set; off and explicit byte counts are taken as
// given; anything else is an error naming the flag.
func TestMemoryLimit(t *testing.T) {
	none := func(string) string { return "" }
	env := func(k string) string {
		if k == "GOMEMLIMIT" {
			return "700MiB"
		}
		return ""
	}
	for _, c := range []struct {
		flag   string
		getenv func(string) string
		want   int64
		source string
	}{
		{"auto", none, 512<<20 + 256<<20 + idleBytes, "auto"},
		{"", none, 512<<20 + 256<<20 + idleBytes, "auto"},
		{"auto", env, 0, "GOMEMLIMIT=700MiB"},
		{"off", none, 0, "off"},
		{"1000000", env, 1000000, "--memory-limit"},
	} {
		got, source, err := memoryLimit(c.flag, 512<<20, 256<<20, c.getenv)
		if err != nil || got != c.want || !strings.HasPrefix(source, c.source) {
			t.Errorf("%q: %d from %q (%v), want %d from %q", c.flag, got, source, err, c.want, c.source)
		}
	}
	for _, bad := range []string{"-1", "0", "lots"} {
		if _, _, err := memoryLimit(bad, 1, 1, none); err == nil || !strings.Contains(err.Error(), "--memory-limit") {
			t.Errorf("%q: error %v, want one naming --memory-limit", bad, err)
		}
	}
	if got, _, _ := memoryLimit("auto", 1<<62, 1<<62, none); got <= 0 {
		t.Errorf("huge budgets overflow to %d", got)
	}
}
