package main

import (
	"io"
	"slices"
	"testing"
)

// TestAllowedHostFlag: --allowed-host repeats, and an entry that is not a
// host (a URL) is a flag error, not a silently useless entry.
func TestAllowedHostFlag(t *testing.T) {
	c, err := parseServe([]string{"--allowed-host", "xflex.internal", "--allowed-host", "build.example:9000"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"xflex.internal", "build.example:9000"}; !slices.Equal(c.allowedHosts, want) {
		t.Fatalf("allowed hosts %v, want %v", c.allowedHosts, want)
	}
	if _, err := parseServe([]string{"--allowed-host", "https://xflex.internal/"}, io.Discard); err == nil {
		t.Fatal("--allowed-host https://xflex.internal/ accepted")
	}
}
