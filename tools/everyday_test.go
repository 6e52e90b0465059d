package tools

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/sandbox"
)

// goModule writes a small Go module with a library, a command and a test, commits it, and
// returns its directory.
func goModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":              "module example.com/everyday\n\ngo 1.22\n",
		"greet/greet.go":      "// Package greet says hello.\npackage greet\n\n// Hello greets name.\nfunc Hello(name string) string { return \"hello, \" + name }\n",
		"greet/greet_test.go": "package greet\n\nimport \"testing\"\n\nfunc TestHello(t *testing.T) {\n\tif got := Hello(\"go\"); got != \"hello, go\" {\n\t\tt.Fatal(got)\n\t}\n}\n",
		"cmd/hi/main.go":      "package main\n\nimport \"example.com/everyday/greet\"\n\n// println, not fmt, so that the build compiles as little of the standard library as it can:\n// the conversation's build cache starts empty.\nfunc main() { println(greet.Hello(\"world\")) }\n",
		"README.md":           "# everyday\n\nA needle in the README.\n",
	}
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-q", "-m", "first"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// snapshot records every file under dir: its kind, mode, size, time and content digest.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		sum := ""
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			sum = fmt.Sprintf("%x", sha256.Sum256(b))
		}
		out[path] = fmt.Sprintf("%v %d %d %s", fi.Mode(), fi.Size(), fi.ModTime().UnixNano(), sum)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEverydayWorkInRestrictedMode_REQ_BED_014: the work a coding agent does all day
// succeeds as bash tool calls in a Restricted conversation on a real Go module, and the
// working tree is exactly as it was afterwards.
func TestEverydayWorkInRestrictedMode_REQ_BED_014(t *testing.T) {
	layers := sandbox.Describe()
	if !layers.Available {
		t.Skipf("Landlock unavailable: %s", layers.Reason)
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not installed")
	}
	view := false
	for _, l := range layers.Layers {
		if l.Name == "mount view" {
			view = l.Active
		}
	}
	module := goModule(t)
	before := snapshot(t, module)
	env := Env{Cwd: module, Mode: domain.ModeRestricted, TempDir: t.TempDir()}
	cases := []struct {
		name, command, want string
		needsView           bool // chmod-based: see sandbox.Describe's known limits
	}{
		{"go build", `go build ./... && echo built`, "built", false},
		{"go vet", `go vet ./... && echo vetted`, "vetted", false},
		{"go test", `go test -count=1 ./...`, "ok  \texample.com/everyday/greet", false},
		{"go run", `go run ./cmd/hi`, "hello, world", false},
		{"gofmt -l", `gofmt -l . && echo formatted`, "formatted", false},
		{"git status", `git status --short --branch`, "##", false},
		{"git log", `git log --oneline`, "first", false},
		{"git diff", `git diff HEAD --stat && echo diffed`, "diffed", false},
		{"git blame", `git blame README.md`, "needle", false},
		{"git grep", `git grep -n needle`, "README.md:3", false},
		{"rg", `rg -n needle`, "README.md:3", false},
		{"grep -r", `grep -rn Hello --include=*.go .`, "greet.go", false},
		{"find", `find . -name '*.go' -not -path './.git/*' | sort`, "./greet/greet.go", false},
		{"python", `python3 -c 'import json; print(json.dumps({"ok": 6*7}))'`, `{"ok": 42}`, false},
		{"pipes and sort", `printf 'b\na\nc\n' | sort | head -n 2 | tr '\n' ' '`, "a b", false},
		{"mktemp and write", `f=$(mktemp) && echo scratch > "$f" && cat "$f" && rm "$f"`, "scratch", false},
		{"git clone into TMPDIR", `git clone -q . "$TMPDIR/clone" && git -C "$TMPDIR/clone" log --oneline`, "first", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.needsView && !view {
				t.Skip("needs the mount view, which this machine lacks (see phoenix-desktop doctor)")
			}
			if c.name == "rg" {
				if _, err := exec.LookPath("rg"); err != nil {
					t.Skip("rg is not installed")
				}
			}
			out := bashCall(t, context.Background(), env, c.command, 300)
			if out.Outcome != domain.OutcomeSuccess || !strings.Contains(out.Content, c.want) {
				t.Errorf("%s: %s\n%s", c.command, out.Outcome, out.Content)
			}
		})
	}
	after := snapshot(t, module)
	for path, was := range before {
		if now, ok := after[path]; !ok {
			t.Errorf("%s disappeared", path)
		} else if now != was {
			t.Errorf("%s changed: %s → %s", path, was, now)
		}
	}
	for path := range after {
		if _, ok := before[path]; !ok {
			t.Errorf("%s appeared", path)
		}
	}
}
