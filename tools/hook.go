package tools

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/phoenix-desktop/phoenix/sandbox"
)

// RunHook runs a hook's command as the conversation's bash runs a command: through sandbox.Run
// under env's mode (SandboxPolicy, so a mode this code does not know never loosens it), in
// env.Cwd, with the app's variables less the secrets (environ adds the hook's own). The event
// is written to a file of a private temp dir made under tempRoot ("" for the system's), which
// becomes the hook's standard input (sandbox.Run gives commands /dev/null) and env.TempDir
// (and its working directory when env.Cwd is "").
// One home for a walled hook's run: a local project's and a remote project's agent on its
// host run hooks with it.
func RunHook(ctx context.Context, env Env, tempRoot, command string, stdin []byte, environ func(base []string) []string,
	stdout, stderr io.Writer) (int, error) {
	dir, err := os.MkdirTemp(tempRoot, "hook-")
	if err != nil {
		return 0, fmt.Errorf("create a temp dir for the hook: %w", err)
	}
	defer os.RemoveAll(dir)
	input := filepath.Join(dir, "event.json")
	if err := os.WriteFile(input, stdin, 0o600); err != nil {
		return 0, fmt.Errorf("write the hook's event: %w", err)
	}
	vars := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); !IsSecret(name) {
			vars = append(vars, kv)
		}
	}
	if environ != nil {
		vars = environ(vars)
	}
	env.TempDir = dir
	if env.Cwd == "" {
		// No project here (a remote project's person's hook): it runs in its temp dir.
		env.Cwd = dir
	}
	script := "exec <" + shellQuote(input) + "\n" + command
	return sandbox.Run(ctx, SandboxPolicy(env), script, sandbox.RunOptions{Dir: env.Cwd, Env: vars, Stdout: stdout, Stderr: stderr})
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
