package progress

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// module is the import path prefix of xflex's own packages.
const module = "github.com/xflex/xflex/"

// TestLayers checks the dependency direction this package exists for: it
// imports the standard library only, and the algorithm libraries import one
// another and this package but never the service layer (solver/, httpapi/,
// jobs/, schemas/, cmd/).
func TestLayers(t *testing.T) {
	libraries := []string{"ptas", "vecpack", "lp", "flow"}
	allowed := append([]string{"internal/progress"}, libraries...)
	checkImports(t, ".", func(path string) bool { return !strings.Contains(strings.SplitN(path, "/", 2)[0], ".") })
	for _, lib := range libraries {
		checkImports(t, filepath.Join("..", "..", lib), func(path string) bool {
			own, ok := strings.CutPrefix(path, module)
			if !ok {
				return true
			}
			for _, a := range allowed {
				if own == a || strings.HasPrefix(own, a+"/") {
					return true
				}
			}
			return false
		})
	}
}

// checkImports reports every import of the non-test Go files under dir
// (subdirectories included) that ok refuses.
func checkImports(t *testing.T, dir string, ok func(path string) bool) {
	t.Helper()
	files := 0
	err := filepath.WalkDir(dir, func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if !ok(path) {
				t.Errorf("%s imports %s", name, path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatalf("no Go files under %s", dir)
	}
}
