package archtest

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/phoenix-desktop/phoenix"

// rule is one row of the table: which packages of ours a package may import.
type rule struct {
	anything bool
	allowed  []string
}

var backticked = regexp.MustCompile("`([^`]+)`")

// readRules parses the imports table of the design document.
func readRules(t *testing.T) map[string]rule {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatalf("read the design document: %v", err)
	}
	begin := bytes.Index(doc, []byte("<!-- imports:begin -->"))
	end := bytes.Index(doc, []byte("<!-- imports:end -->"))
	if begin < 0 || end < begin {
		t.Fatal("docs/ARCHITECTURE.md has no imports table between <!-- imports:begin --> and <!-- imports:end -->")
	}
	rules := map[string]rule{}
	sc := bufio.NewScanner(bytes.NewReader(doc[begin:end]))
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "|")
		if len(cells) < 5 {
			continue
		}
		name := backticked.FindStringSubmatch(cells[1])
		if name == nil {
			continue // the header and separator rows
		}
		allowedCell := strings.TrimSpace(cells[3])
		r := rule{anything: allowedCell == "everything"}
		for _, m := range backticked.FindAllStringSubmatch(allowedCell, -1) {
			r.allowed = append(r.allowed, m[1])
		}
		if !r.anything && len(r.allowed) == 0 && allowedCell != "nothing" {
			t.Fatalf("the row of %s says %q: write `pkg` names, \"nothing\" or \"everything\"", name[1], allowedCell)
		}
		rules[name[1]] = r
	}
	if len(rules) == 0 {
		t.Fatal("the imports table in docs/ARCHITECTURE.md has no rows")
	}
	return rules
}

// TestImportsFollowTheDesignDocument lists every package with its own imports and checks
// them against the table. Test files are left out: tests may use helpers of other packages.
func TestImportsFollowTheDesignDocument(t *testing.T) {
	rules := readRules(t)
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"/...").Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("go list: %v\n%s", err, stderr)
	}
	seen := map[string]bool{}
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(strings.TrimPrefix(fields[0], module), "/")
		seen[pkg] = true
		r, ok := rules[pkg]
		if !ok {
			t.Errorf("package %s has no row in the imports table of docs/ARCHITECTURE.md: add one saying what it is for and what it may import", pkg)
			continue
		}
		if r.anything {
			continue
		}
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(imp, module+"/")
			if !slices.Contains(r.allowed, dep) {
				t.Errorf("%s imports %s, which its row in docs/ARCHITECTURE.md does not allow (allowed: %v)", pkg, dep, r.allowed)
			}
		}
	}
	for pkg := range rules {
		if !seen[pkg] {
			t.Errorf("the imports table names %s, which is not a package of the module (or has only tests): remove its row", pkg)
		}
	}
}
