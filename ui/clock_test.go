package ui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestWindowReadsOnlyTheInjectedClock fails when code of the window reads the wall clock
// itself: times it shows must come from Deps.Now (MainWindow.now), which tests fix. The one
// allowed reading is the default that NewMainWindow installs when Deps.Now is nil.
func TestWindowReadsOnlyTheInjectedClock(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var found []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "time" &&
				(sel.Sel.Name == "Now" || sel.Sel.Name == "Since" || sel.Sel.Name == "Until") {
				found = append(found, fset.Position(sel.Pos()).String())
			}
			return true
		})
	}
	if len(found) != 1 || !strings.HasPrefix(found[0], "mainwindow.go:") {
		t.Fatalf("the window reads the wall clock at %v; use m.now (Deps.Now) — only NewMainWindow's default may", found)
	}
}
