package actors

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

// Issue 42: the person's own hooks run under the conversation's walls, and a hook marked
// "runAsMe" runs outside them only while the agent has changed nothing it runs.

// projectModeHarness is a harness with the person's hooks file in cfgDir and a Project-mode
// conversation; it skips where Project mode's walls cannot stand.
func projectModeHarness(t *testing.T, hooksJSON string) (*harness, domain.Conversation) {
	t.Helper()
	cfgDir := t.TempDir()
	writeFile(t, filepath.Join(cfgDir, "hooks.json"), hooksJSON)
	h := newHarness(t, withHooks(cfgDir))
	if !h.cfg.Sandbox.Available {
		t.Skip("Landlock is unavailable: conversations are Unrestricted only")
	}
	c := h.create(NewConversation{Mode: domain.ModeProject})
	if c.Mode != domain.ModeProject {
		t.Skipf("Project mode is refused here (created in %s)", c.Mode)
	}
	return h, c
}

func writeExec(t *testing.T, path, text string) {
	t.Helper()
	writeFile(t, path, text)
	if err := os.Chmod(path, 0o755); err != nil {
		t.Fatal(err)
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// The reproduction of issue 42: a personal PostToolUse hook ./post.sh; the agent's
// Project-mode bash rewrites post.sh to write a file outside the project; the hook that
// runs next must not write it (it runs under Project mode's walls, which end at the tree).
func TestPersonalHookRunsUnderTheWallsTheAgentCannotEscapeThroughIt(t *testing.T) {
	h, c := projectModeHarness(t, `{"hooks":{"PostToolUse":[{"matcher":"Bash","hooks":[{"command":"./post.sh"}]}]}}`)
	writeExec(t, filepath.Join(h.cwd, "post.sh"), "#!/bin/sh\necho formatted\n")
	outside := filepath.Join(t.TempDir(), "pwned")
	_, hooks, _ := h.turnEvents(c.ID, fmt.Sprintf(`bash: printf '#!/bin/sh\necho owned > %s\n' > post.sh`, outside))
	if exists(outside) {
		t.Fatal("the hook ran what the agent wrote outside the walls: the file outside the project exists")
	}
	if got := readFile(t, filepath.Join(h.cwd, "post.sh")); !strings.Contains(got, outside) {
		t.Fatalf("the agent's rewrite did not happen (post.sh = %q): the test proves nothing", got)
	}
	if len(hooks) != 1 || hooks[0].Result.AsMe || hooks[0].Result.Exit == 0 {
		t.Fatalf("the walled hook's run: %+v", hooks)
	}
	// Within the walls it still works: it writes the tree, and its words reach the transcript.
	writeExec(t, filepath.Join(h.cwd, "post.sh"), "#!/bin/sh\necho formatted > formatted.txt\necho done formatting\n")
	_, hooks, _ = h.turnEvents(c.ID, "bash: true")
	if len(hooks) != 1 || !strings.Contains(hooks[0].Text, "done formatting") || !exists(filepath.Join(h.cwd, "formatted.txt")) {
		t.Fatalf("the walled hook did not run in the tree: %+v", hooks)
	}
}

// A "runs as me" hook refuses, naming the file, once the agent changed its script.
func TestRunAsMeHookRefusedAfterTheAgentChangedItsScript(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "ran")
	h, c := projectModeHarness(t, `{"hooks":{"PostToolUse":[{"matcher":"Bash","hooks":[{"command":"./post.sh","runAsMe":true}]}]}}`)
	writeExec(t, filepath.Join(h.cwd, "post.sh"), "#!/bin/sh\necho as-me >> "+outside+"\n")
	// First call: nothing it uses changed, so it runs as the person (it writes outside).
	_, hooks, _ := h.turnEvents(c.ID, "bash: echo hi > notes.txt")
	if len(hooks) != 0 || readFile(t, outside) != "as-me\n" {
		t.Fatalf("the unchanged runs-as-me hook did not run as the person: %+v", hooks)
	}
	_, hooks, _ = h.turnEvents(c.ID, `bash: printf '#!/bin/sh\necho agent >> `+outside+`\n' > post.sh`)
	if got := readFile(t, outside); got != "as-me\n" {
		t.Fatalf("the hook ran the agent's script outside the walls: %q", got)
	}
	if len(hooks) != 1 || !hooks[0].Result.AsMe || hooks[0].Result.Err == "" {
		t.Fatalf("the refusal is not in the transcript: %+v", hooks)
	}
	mustContain(t, hooks[0].Text, filepath.Join(h.cwd, "post.sh"))
	mustContain(t, hooks[0].Text, "changed after the agent began changing files")
	// The refusal stays after a restart of the app: the baseline is in the store.
	cfgDir := filepath.Dir(h.rt.HooksFile())
	h.close()
	h.open(withHooks(cfgDir))
	_, hooks, _ = h.turnEvents(c.ID, "bash: true")
	if len(hooks) != 1 || hooks[0].Result.Err == "" || readFile(t, outside) != "as-me\n" {
		t.Fatalf("after a restart: %+v", hooks)
	}
}

// An npx-style runs-as-me hook: the agent changes what node_modules/.bin runs; the hook is
// refused. While the agent changes only the sources, it runs (as the person).
func TestRunAsMeNpxHookRefusedWhenTheAgentChangedNodeModulesBin(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "ran")
	h, c := projectModeHarness(t, `{"hooks":{"PostToolUse":[{"matcher":"Bash","hooks":[{"command":"npx --no-install fmt-tool","runAsMe":true}]}]}}`)
	writeFile(t, filepath.Join(h.cwd, "package.json"), `{"name":"app","version":"1.0.0","bin":{},"devDependencies":{"fmt-tool":"1.0.0"}}`)
	writeFile(t, filepath.Join(h.cwd, "node_modules/fmt-tool/package.json"), `{"name":"fmt-tool","version":"1.0.0","bin":{"fmt-tool":"cli.js"}}`)
	writeExec(t, filepath.Join(h.cwd, "node_modules/fmt-tool/cli.js"), "#!/usr/bin/env node\nrequire('fs').appendFileSync("+fmt.Sprintf("%q", outside)+", 'fmt\\n')\n")
	if err := os.MkdirAll(filepath.Join(h.cwd, "node_modules/.bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../fmt-tool/cli.js", filepath.Join(h.cwd, "node_modules/.bin/fmt-tool")); err != nil {
		t.Fatal(err)
	}
	_, hooks, _ := h.turnEvents(c.ID, "bash: mkdir -p src && echo 'let a = 1' > src/app.js")
	if len(hooks) != 0 || readFile(t, outside) != "fmt\n" {
		t.Fatalf("the npx hook did not run while only the sources changed: %+v", hooks)
	}
	_, hooks, _ = h.turnEvents(c.ID, `bash: printf '#!/bin/sh\necho agent >> `+outside+`\n' > node_modules/.bin/fmt-tool.new && chmod +x node_modules/.bin/fmt-tool.new && mv node_modules/.bin/fmt-tool.new node_modules/.bin/fmt-tool`)
	if got := readFile(t, outside); got != "fmt\n" {
		t.Fatalf("the hook ran what the agent put in node_modules/.bin: %q", got)
	}
	if len(hooks) != 1 || hooks[0].Result.Err == "" {
		t.Fatalf("the refusal is not in the transcript: %+v", hooks)
	}
	mustContain(t, hooks[0].Text, filepath.Join(h.cwd, "node_modules", ".bin"))
}
