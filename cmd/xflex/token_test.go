package main

import (
	"strings"
	"testing"
)

// TestTokenNewTenantName: a tenant name the auth file cannot hold is
// refused with a message that says which names are allowed (issue 28:
// `xflex token new 'evil tenant'` said "got 4 fields").
func TestTokenNewTenantName(t *testing.T) {
	for _, name := range []string{"evil tenant", "team/a", "", strings.Repeat("t", 65), "tab\there"} {
		stdout, stderr, code := runCLI(t, "token", "new", name)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "not allowed") || !strings.Contains(stderr, "A-Z a-z 0-9 . _ -") {
			t.Errorf("token new %q: exit %d, stdout %q, stderr %q; want exit 2 saying which names are allowed", name, code, stdout, stderr)
		}
	}
	if stdout, stderr, code := runCLI(t, "token", "new", "team-a.prod_1"); code != 0 || !strings.Contains(stdout, "team-a.prod_1 solve,jobs ") {
		t.Errorf("token new team-a.prod_1: exit %d, %s %s", code, stdout, stderr)
	}
}
