package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/sandbox"
)

// BenchmarkKeywordSearch50k searches a generated tree of 50 000 files (about 30 MB, with
// .gitignore rules) with ripgrep and with the Go implementation.
func BenchmarkKeywordSearch50k(b *testing.B) {
	root := b.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	words := []string{"needle", "haystack", "Config", "handler", "request", "response", "cache", "token"}
	for i := range 50000 {
		dir := filepath.Join(root, fmt.Sprintf("d%03d", i%250), fmt.Sprintf("s%d", i%8))
		if i < 2000 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		var sb strings.Builder
		for j := range 10 {
			fmt.Fprintf(&sb, "// %d.%d %s calls %s\nfunc f%d() {}\n", i, j, words[(i+j)%len(words)], words[(i*j)%len(words)], j)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", i)), []byte(sb.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("d00*/\n*.gen.go\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"query":"where are config handlers","search_terms":["Config","handler","needle"]}`)
	impls := map[string]*KeywordSearch{"go": {}}
	if rg, err := exec.LookPath("rg"); err == nil {
		impls["ripgrep"] = &KeywordSearch{rg: rg}
	}
	for name, k := range impls {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				out := k.Run(context.Background(), Env{Cwd: root}, args)
				if out.Outcome != domain.OutcomeSuccess {
					b.Fatal(out.Content)
				}
			}
		})
	}
}

// BenchmarkBashTool is the whole bash tool on `true`: argument decoding, the supervisor,
// the sandbox in Restricted mode, output capture.
func BenchmarkBashTool(b *testing.B) {
	envs := map[string]Env{"unrestricted": {Cwd: b.TempDir(), Mode: domain.ModeUnrestricted}}
	if sandbox.Probe().Available {
		envs["restricted"] = Env{Cwd: b.TempDir(), Mode: domain.ModeRestricted, TempDir: b.TempDir()}
	}
	args := json.RawMessage(`{"command":"true"}`)
	for name, env := range envs {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if out := NewBash().Run(context.Background(), env, args); out.Outcome != domain.OutcomeSuccess {
					b.Fatal(out.Content)
				}
			}
		})
	}
}
