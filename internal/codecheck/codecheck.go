// Package codecheck measures the size of every function in the module's
// non-test Go sources, so that a test can hold them to the limits in
// docs/CONVENTIONS.md: short readable functions, none over MaxLines lines or
// above cyclomatic complexity MaxComplexity.
//
// Complexity is github.com/fzipp/gocyclo's (1, plus one per if, for, range,
// non-default case and comm clause, && and ||), the number `gocyclo` prints,
// so a developer can run the command and see the same figures.
package codecheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fzipp/gocyclo"
)

// The limits a function is held to. 100 lines is about two screens, the most
// a reader takes in at once; cyclomatic 30 is well past gocyclo's usual
// warning of 15, so the check only catches functions that are plainly too
// big, not a style preference.
const (
	MaxLines      = 100
	MaxComplexity = 30
)

// Func is one function or method and its size.
type Func struct {
	// Name is "pkgdir.Func" or "pkgdir.(Recv).Method", pkgdir being the
	// package's directory relative to the module root, e.g.
	// "solver/cmmf.(*lpRound).solve"; stable across line moves, so an
	// exception list keyed by it survives edits elsewhere in the file.
	Name string
	// Pos is "file:line" relative to the module root, for messages.
	Pos        string
	Lines      int
	Complexity int
}

// TooBig reports whether f breaks either limit.
func (f Func) TooBig() bool {
	return f.Lines > MaxLines || f.Complexity > MaxComplexity
}

func (f Func) String() string {
	return fmt.Sprintf("%s (%s): %d lines, cyclomatic %d", f.Name, f.Pos, f.Lines, f.Complexity)
}

// Measure returns every function declared in the non-test, non-generated Go
// files below root (testdata and vendor directories and dot-directories are
// skipped), sorted by name. A function's lines run from its func keyword to
// its closing brace, doc comment excluded.
func Measure(root string) ([]Func, error) {
	var funcs []Func
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		found, err := measureFile(root, path)
		funcs = append(funcs, found...)
		return err
	})
	sort.Slice(funcs, func(i, j int) bool { return funcs[i].Name < funcs[j].Name })
	return funcs, err
}

// skipDir names the directories whose Go files are not the module's code.
func skipDir(name string) bool {
	return name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// measureFile measures the functions of one file; a generated file has none.
func measureFile(root, path string) ([]Func, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("codecheck: %w", err)
	}
	if ast.IsGenerated(file) {
		return nil, nil
	}
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return nil, fmt.Errorf("codecheck: %w", err)
	}
	rel = filepath.ToSlash(rel)
	prefix := filepath.ToSlash(filepath.Dir(rel)) + "."
	if prefix == ".." {
		prefix = "" // the module root's own package
	}
	var funcs []Func
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok {
			continue
		}
		start, end := fset.Position(fn.Pos()).Line, fset.Position(fn.End()).Line
		funcs = append(funcs, Func{
			Name:       prefix + funcName(fn),
			Pos:        fmt.Sprintf("%s:%d", rel, start),
			Lines:      end - start + 1,
			Complexity: gocyclo.Complexity(fn),
		})
	}
	return funcs, nil
}

// funcName is "Func" or "(Recv).Method", the receiver type written as in the
// source ("*lpRound", "heap[T]").
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	return "(" + types.ExprString(fn.Recv.List[0].Type) + ")." + fn.Name.Name
}
