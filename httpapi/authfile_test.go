package httpapi

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// hashA and hashB are the hashes of the tokens "token-a" and "token-b".
var (
	hashA = HashToken("token-a")
	hashB = HashToken("token-b")
)

func TestParseAuthFile(t *testing.T) {
	file := "# xflex tokens\n\n" +
		"team-a solve,jobs " + hashA + "  # CI of team a\n" +
		"   \t\n" +
		"ops.1 admin,jobs,solve " + strings.ToUpper(hashB) + "\n"
	st, err := parseAuthFile("tokens", strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if len(st.entries) != 2 || st.tenants() != 2 {
		t.Fatalf("%d entries, %d tenants, want 2 and 2", len(st.entries), st.tenants())
	}
	for _, tc := range []struct {
		token, tenant string
		scopes        []Scope
	}{
		{"token-a", "team-a", []Scope{ScopeSolve, ScopeJobs}},
		{"token-b", "ops.1", []Scope{ScopeAdmin, ScopeJobs, ScopeSolve}},
	} {
		p, ok := st.lookup(tc.token)
		if !ok || p.Tenant != tc.tenant || !slices.Equal(p.Scopes, tc.scopes) {
			t.Errorf("lookup(%q) = %+v %v, want %s %v", tc.token, p, ok, tc.tenant, tc.scopes)
		}
	}
	for _, bad := range []string{"", "token-c", hashA, "token-a "} {
		if p, ok := st.lookup(bad); ok {
			t.Errorf("lookup(%q) = %+v, want no principal", bad, p)
		}
	}
}

// TestParseAuthFileErrors: every bad line is reported with its number and
// the reason; good lines around them do not hide them.
func TestParseAuthFileErrors(t *testing.T) {
	for _, tc := range []struct {
		name, line, want string
	}{
		{"two fields", "team solve", "want TENANT SCOPES SHA256HEX, got 2 fields"},
		{"four fields", "team solve " + hashA + " extra", "got 4 fields"},
		{"unknown scope", "team solve,root " + hashA, `unknown scope "root"`},
		{"empty scope", "team solve,," + " " + hashA, `unknown scope ""`},
		{"scope twice", "team jobs,jobs " + hashA, `scope "jobs" listed twice`},
		{"short hash", "team solve " + hashA[:63], "hash must be 64 hex digits"},
		{"bad hex", "team solve " + "zz" + hashA[2:], "hash is not hex"},
		{"tenant chars", "team/a solve " + hashA, `tenant name "team/a" is not allowed`},
		{"tenant too long", strings.Repeat("t", 65) + " solve " + hashA, "is 1 to 64 characters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := "ok solve " + hashB + "\n# comment\n" + tc.line + "\n"
			_, err := parseAuthFile("f", strings.NewReader(file))
			if err == nil || !strings.HasPrefix(err.Error(), "f:3: ") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want f:3: ...%s", err, tc.want)
			}
		})
	}
	file := "a solve " + hashA + "\nb jobs " + hashB + "\nc admin " + hashA + "\nd nope " + hashB + "\n"
	_, err := parseAuthFile("f", strings.NewReader(file))
	if err == nil || !strings.Contains(err.Error(), "f:3: the same token hash as line 1") ||
		!strings.Contains(err.Error(), "f:4: unknown scope") {
		t.Fatalf("error %v, want both line 3 (duplicate of line 1) and line 4", err)
	}
}

// TestNewTokenLine: a new token has the documented shape, differs each
// time, and its line parses back to its tenant and scopes.
func TestNewTokenLine(t *testing.T) {
	shape := regexp.MustCompile(`^xf_[A-Za-z0-9_-]{43}$`)
	a, errA := NewToken()
	b, errB := NewToken()
	if errA != nil || errB != nil || !shape.MatchString(a) || a == b {
		t.Fatalf("tokens %q %q (%v %v), want two different xf_ + 43 base64url", a, b, errA, errB)
	}
	line, err := AuthLine("team-a", []Scope{ScopeJobs}, a)
	if err != nil {
		t.Fatal(err)
	}
	st, err := parseAuthFile("line", strings.NewReader(line))
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := st.lookup(a); !ok || p.Tenant != "team-a" || !slices.Equal(p.Scopes, []Scope{ScopeJobs}) {
		t.Fatalf("lookup of the new token: %+v %v", p, ok)
	}
	if _, err := AuthLine("team a", []Scope{ScopeJobs}, a); err == nil {
		t.Fatal("AuthLine accepted a tenant with a space")
	}
}

// TestLookupIsConstantTime checks the shape of tokenStore.lookup in its
// source: its loop over the stored hashes compares with
// subtle.ConstantTimeCompare and has no return, break or if, so every
// lookup compares every hash and nothing depends on where a match is.
func TestLookupIsConstantTime(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "authfile.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var loop *ast.RangeStmt
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "lookup" {
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if r, ok := n.(*ast.RangeStmt); ok {
					loop = r
				}
				return true
			})
		}
	}
	if loop == nil {
		t.Fatal("no range loop in lookup")
	}
	compares := 0
	ast.Inspect(loop.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ReturnStmt, *ast.BranchStmt, *ast.IfStmt, *ast.SwitchStmt:
			t.Errorf("lookup's loop has a %T: it may stop or branch on a match", n)
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && x.Name == "subtle" && n.Sel.Name == "ConstantTimeCompare" {
				compares++
			}
		}
		return true
	})
	if compares != 1 {
		t.Errorf("lookup's loop calls subtle.ConstantTimeCompare %d times, want 1", compares)
	}
}

// FuzzParseAuthFile: any file either parses or is refused with line
// numbers, never panics; what parses grants each line's hash exactly.
func FuzzParseAuthFile(f *testing.F) {
	f.Add("a solve " + hashA + "\n")
	f.Add("# c\nb admin,jobs " + hashB + " # x\n\nc solve\n")
	f.Add("a solve,solve " + hashA)
	f.Add("a\tsolve\t" + strings.ToUpper(hashA) + "\r\n")
	f.Fuzz(func(t *testing.T, file string) {
		st, err := parseAuthFile("f", strings.NewReader(file))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f:") && !strings.HasPrefix(err.Error(), "read f:") {
				t.Fatalf("error without a line number: %v", err)
			}
			return
		}
		for _, e := range st.entries {
			if !validTenant.MatchString(e.principal.Tenant) || len(e.principal.Scopes) == 0 {
				t.Fatalf("parsed a bad entry %+v", e.principal)
			}
		}
	})
}
