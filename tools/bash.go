package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/sandbox"
)

// Bash runs `bash -c` in the conversation's working directory on a long-lived sandbox
// supervisor (sandbox.Run), restricted or not according to the mode (REQ-BED-010,
// REQ-BED-014). The supervisor sweeps every run, so a cancel or a timeout ends the whole
// process tree (REQ-BED-005).
type Bash struct{}

// NewBash returns the bash tool.
func NewBash() *Bash { return &Bash{} }

// Name is the catalogue name.
func (*Bash) Name() string { return domain.ToolBash }

type bashArgs struct {
	Command        string `json:"command"`
	TimeoutSeconds *int   `json:"timeout_seconds"`
}

// Run runs the command and reports its output, exit status, timeout or cancellation.
func (b *Bash) Run(ctx context.Context, env Env, raw json.RawMessage) Output {
	var args bashArgs
	if err := decodeArgs(b.Name(), raw, &args); err != nil {
		return errorf("%v", err)
	}
	if strings.TrimSpace(args.Command) == "" {
		return errorf("The command is empty.")
	}
	timeout := time.Duration(domain.BashDefaultTimeoutSeconds) * time.Second
	if args.TimeoutSeconds != nil {
		s := *args.TimeoutSeconds
		if s < 1 || s > domain.BashMaxTimeoutSeconds {
			return errorf("timeout_seconds must be between 1 and %d; it was %d.", domain.BashMaxTimeoutSeconds, s)
		}
		timeout = time.Duration(s) * time.Second
	}
	if fi, err := os.Stat(env.Cwd); err != nil || !fi.IsDir() {
		return errorf("The working directory %q is not available: %v", env.Cwd, errOrNotDir(err))
	}
	// sandbox.Run refuses a Restricted policy without a private temp dir, and says so.
	policy := SandboxPolicy(env)
	runCtx, stop := context.WithTimeout(ctx, timeout)
	defer stop()
	var stdout, stderr capture
	// What the sandbox did about the command (Project mode: a protected file it created was
	// removed) goes to the model with the output.
	var notices []string
	start := time.Now()
	code, err := sandbox.Run(runCtx, policy, args.Command, sandbox.RunOptions{
		Dir: env.Cwd, Env: commandEnv(os.Environ(), env.restricted(), env.TempDir),
		Stdout: &stdout, Stderr: &stderr,
		Notice: func(n string) { notices = append(notices, n) },
	})
	elapsed := time.Since(start)

	var status string
	outcome := domain.OutcomeSuccess
	var setup *sandbox.SetupError
	switch {
	case ctx.Err() != nil:
		outcome, status = domain.OutcomeCancelled, "cancelled by the user"
	case errors.Is(runCtx.Err(), context.DeadlineExceeded):
		outcome, status = domain.OutcomeError, fmt.Sprintf("killed after the %s timeout", timeout)
	case errors.As(err, &setup):
		return errorf("The sandbox could not start the command: %s", setup.Reason)
	case err != nil && !errors.Is(err, sandbox.ErrOutputHeld):
		return errorf("The command could not be run: %v", err)
	case code != 0:
		outcome, status = domain.OutcomeError, fmt.Sprintf("exit status %d", code)
	case err != nil:
		// The command exited but something kept its output open past the grace period; the
		// output is complete up to that point.
		status = err.Error()
	}
	content, truncated := formatOutput(&stdout, &stderr, status)
	for _, n := range notices {
		content += "[" + n + "]\n"
	}
	lines := stdout.lineCount() + stderr.lineCount()
	summary := summarize(outcome, status, lines, elapsed, truncated)
	return Output{Outcome: outcome, Content: content, Display: &domain.ToolDisplay{Summary: summary}}
}

func errOrNotDir(err error) error {
	if err != nil {
		return err
	}
	return errors.New("not a directory")
}

// formatOutput labels the streams: stdout alone stays unlabelled (the common case), and when
// stderr has anything, each non-empty stream gets a header. A status line comes last.
func formatOutput(stdout, stderr *capture, status string) (string, bool) {
	outBudget, errBudget := splitBudget(stdout.total, stderr.total, OutputLimit)
	out, outCut := stdout.render(outBudget)
	errText, errCut := stderr.render(errBudget)
	var b strings.Builder
	switch {
	case out == "" && errText == "":
		b.WriteString("(no output)\n")
	case errText == "":
		b.WriteString(withNewline(out))
	default:
		if out != "" {
			b.WriteString("--- stdout ---\n")
			b.WriteString(withNewline(out))
		}
		b.WriteString("--- stderr ---\n")
		b.WriteString(withNewline(errText))
	}
	if status != "" {
		fmt.Fprintf(&b, "[%s]\n", status)
	}
	return b.String(), outCut || errCut
}

func withNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// summarize is the one line the UI shows, such as "exit 0 · 12 lines".
func summarize(outcome domain.Outcome, status string, lines int64, elapsed time.Duration, truncated bool) string {
	head := "exit 0"
	switch {
	case outcome == domain.OutcomeCancelled:
		head = "cancelled"
	case strings.HasPrefix(status, "killed after"):
		head = "timed out"
	case strings.HasPrefix(status, "exit status "):
		head = "exit " + strings.TrimPrefix(status, "exit status ")
	}
	parts := []string{head, plural(lines, "line")}
	if elapsed >= time.Second {
		parts = append(parts, elapsed.Round(100*time.Millisecond).String())
	}
	if truncated {
		parts = append(parts, "truncated")
	}
	return strings.Join(parts, " · ")
}

func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, "ch") {
		return fmt.Sprintf("%d %ses", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
