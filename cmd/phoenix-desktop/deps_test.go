package main

import (
	"os/exec"
	"path"
	"slices"
	"strings"
	"testing"
)

// TestReleaseBinaryLinksNoTestCode lists every package the app links (`go list -deps`) and
// fails on test code among them: a package of ours whose name says test, the standard
// library's testing packages, and the test libraries of go.mod. The bench command's runtime
// rig lives in actors/rig for this reason.
func TestReleaseBinaryLinksNoTestCode(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go tool is needed to list the app's packages: %v", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	const module = "github.com/phoenix-desktop/phoenix/"
	deps := strings.Fields(string(out))
	var ours int
	for _, p := range deps {
		testCode := p == "testing" || strings.HasPrefix(p, "testing/") ||
			strings.HasPrefix(p, "go.uber.org/goleak") || strings.HasPrefix(p, "pgregory.net/rapid") ||
			strings.HasPrefix(p, "fyne.io/fyne/v2/test")
		if strings.HasPrefix(p, module) {
			ours++
			testCode = testCode || strings.Contains(path.Base(p), "test")
		}
		if testCode {
			t.Errorf("the release binary links %s, which is test code", p)
		}
	}
	if ours < 5 {
		t.Fatalf("go list found only %d packages of ours; the listing is wrong:\n%s", ours, out)
	}
}

// importRules are the packages of ours that a package may import (its non-test files), as
// each package's doc.go states: the rules keep the layers one-way. A package not listed here
// is not restricted by this test.
var importRules = map[string][]string{
	"domain":     {},
	"providers":  {},
	"transcript": {"domain"},
	"imaging":    {"domain"},
	"llm":        {"domain", "imaging", "providers"},
	"ui":         {"actors", "domain", "imaging", "providers", "transcript"},
}

func TestImportRules(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go tool is needed to list the packages: %v", err)
	}
	const module = "github.com/phoenix-desktop/phoenix/"
	out, err := exec.Command(goTool, "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", module+"...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	checked := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		allowed, ruled := importRules[pkg]
		if !ruled {
			continue
		}
		checked[pkg] = true
		for _, imp := range fields[1:] {
			if dep, ours := strings.CutPrefix(imp, module); ours && !slices.Contains(allowed, dep) {
				t.Errorf("%s imports %s; it may import only %v of this module", pkg, dep, allowed)
			}
		}
	}
	for pkg := range importRules {
		if !checked[pkg] {
			t.Errorf("package %s was not found by go list", pkg)
		}
	}
}
