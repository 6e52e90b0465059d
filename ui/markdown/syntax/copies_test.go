package syntax

import (
	"bytes"
	"go/ast"
	"go/format"
	"go/parser"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const chromaModule = "github.com/alecthomas/chroma/v2"

// moduleDir is the chroma module of go.mod in the module cache; the test skips, saying why,
// when it is not there.
func moduleDir(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", chromaModule).Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Skipf("the %s module is not in the module cache (go list -m: %v): run `go mod download %s` to compare the copies with it", chromaModule, err, chromaModule)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("the %s module directory %s is absent (%v): run `go mod download %s` to compare the copies with it", chromaModule, dir, err, chromaModule)
	}
	return dir
}

// TestCopiesMatchTheModule: every copied file (the definitions and the licence) equals the
// module's file of the same path, and the Go code copied from chroma's Go lexers matches the
// module's. It fails after chroma is upgraded in go.mod until scripts/update-syntax.sh has
// recopied the files (and any change to the Go code is ported by hand).
func TestCopiesMatchTheModule(t *testing.T) {
	dir := moduleDir(t)
	n := 0
	err := fs.WalkDir(os.DirFS("chroma"), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		ours, err := os.ReadFile(filepath.Join("chroma", p))
		if err != nil {
			return err
		}
		theirs, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Errorf("chroma/%s: the module has no %s (%v): remove the copy or find where it went", p, p, err)
			return nil
		}
		if !bytes.Equal(ours, theirs) {
			t.Errorf("chroma/%s differs from the module's %s: run scripts/update-syntax.sh", p, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 50 {
		t.Errorf("compared %d files, want the licence, two styles and the lexers", n)
	}
	for _, c := range goCopies {
		t.Run(c.ours, func(t *testing.T) { compareGoCopy(t, filepath.Join(dir, c.upstream), c) })
	}
}

// goCopies are chroma's lexers written in Go and copied here. renames maps a name of ours to
// chroma's, where the wiring differs.
var goCopies = []struct {
	upstream, ours string
	renames        map[string]string
}{
	{"lexers/go.go", "lexer_go.go", map[string]string{"goTextTemplate": "GoTextTemplate"}},
	{"lexers/markdown.go", "lexer_markdown.go", map[string]string{"lookup": "Get"}},
}

// goParts are the parts of a Go file that hold chroma's lexing: functions and types by
// name, and in order the lexer configs and the function literals (analysers).
type goParts struct {
	decls   map[string]string
	configs []string
	funcs   []string
}

func readGoParts(t *testing.T, path string, renames map[string]string) goParts {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	// Our copies name the fields of each rule for go vet: chroma's do not.
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			if to, ok := renames[n.Name]; ok {
				n.Name = to
			}
		case *ast.CompositeLit:
			for i, e := range n.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					if k, ok := kv.Key.(*ast.Ident); ok && (k.Name == "Pattern" || k.Name == "Type" || k.Name == "Mutator") {
						n.Elts[i] = kv.Value
					}
				}
			}
		}
		return true
	})
	print := func(n ast.Node) string {
		var b bytes.Buffer
		if err := format.Node(&b, fset, n); err != nil {
			t.Fatalf("print a part of %s: %v", path, err)
		}
		return b.String()
	}
	parts := goParts{decls: map[string]string{}}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			name := d.Name.Name
			if d.Recv != nil {
				name = print(d.Recv.List[0].Type) + "." + name
			}
			d.Doc = nil
			parts.decls["func "+name] = print(d)
		case *ast.GenDecl:
			for _, s := range d.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok {
					parts.decls["type "+ts.Name.Name] = print(ts)
				}
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CompositeLit:
			if id, ok := n.Type.(*ast.Ident); ok && id.Name == "Config" {
				parts.configs = append(parts.configs, print(n))
			}
		case *ast.FuncLit:
			parts.funcs = append(parts.funcs, print(n))
		}
		return true
	})
	return parts
}

// tokens is Go source as its tokens, one a line: how a part is laid out over lines (which
// naming the fields of a rule may change, with its trailing commas) does not matter, a
// character of a pattern does.
func tokens(src string) string {
	var s scanner.Scanner
	fset := token.NewFileSet()
	s.Init(fset.AddFile("", -1, len(src)), []byte(src), nil, 0)
	var out []string
	for {
		_, tok, lit := s.Scan()
		switch {
		case tok == token.EOF:
			return strings.Join(out, "\n")
		case tok == token.SEMICOLON && lit == "\n":
			continue // inserted at a line's end
		case tok == token.RBRACE || tok == token.RPAREN || tok == token.RBRACK:
			if n := len(out); n > 0 && out[n-1] == "," {
				out = out[:n-1]
			}
		}
		if lit == "" {
			lit = tok.String()
		}
		out = append(out, lit)
	}
}

func compareGoCopy(t *testing.T, upstream string, c struct {
	upstream, ours string
	renames        map[string]string
}) {
	theirs := readGoParts(t, upstream, nil)
	ours := readGoParts(t, c.ours, c.renames)
	hint := "port chroma's change to " + c.ours + " by hand"
	for name, want := range theirs.decls {
		got, ok := ours.decls[name]
		if !ok {
			t.Errorf("%s has no %s of chroma's %s: %s", c.ours, name, c.upstream, hint)
		} else if tokens(got) != tokens(want) {
			t.Errorf("%s of %s differs from chroma's %s: %s\n--- ours\n%s\n--- chroma's\n%s", name, c.ours, c.upstream, hint, got, want)
		}
	}
	for _, k := range []struct {
		what         string
		ours, theirs []string
	}{{"lexer configs", ours.configs, theirs.configs}, {"function literals", ours.funcs, theirs.funcs}} {
		if tokens(strings.Join(k.ours, "\n")) != tokens(strings.Join(k.theirs, "\n")) {
			t.Errorf("the %s of %s differ from chroma's %s: %s\n--- ours\n%s\n--- chroma's\n%s", k.what, c.ours, c.upstream, hint, strings.Join(k.ours, "\n"), strings.Join(k.theirs, "\n"))
		}
	}
	if len(theirs.decls) == 0 || len(theirs.configs) == 0 {
		t.Errorf("found nothing to compare in chroma's %s", c.upstream)
	}
}

// TestTheAppLeavesChromasRegistriesOut: no package of the app imports chroma's lexers or
// styles package, whose initialisation parses every definition they hold.
func TestTheAppLeavesChromasRegistriesOut(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/phoenix-desktop/phoenix/cmd/phoenix-desktop").Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("go list -deps: %v\n%s", err, stderr)
	}
	deps := "\n" + string(out)
	if !strings.Contains(deps, "\n"+chromaModule+"\n") {
		t.Fatalf("the app does not import chroma's engine: the test no longer looks at the right list")
	}
	for _, p := range []string{chromaModule + "/lexers", chromaModule + "/styles"} {
		if strings.Contains(deps, "\n"+p+"\n") {
			t.Errorf("the app imports %s, which parses all its definitions when the process starts: use package syntax", p)
		}
	}
}
