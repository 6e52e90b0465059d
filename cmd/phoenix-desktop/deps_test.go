package main

import (
	"os/exec"
	"path"
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
