// Command phoenix-desktop is the Phoenix Desktop app: the desktop GUI by default, and headless
// sub-commands (chat, list, show, export, checkpoints, rewind, changes, revert, queue, fork, spent, bench, mcp list) that use the same actors, for scripts,
// tests and benchmarks.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/phoenix-desktop/phoenix/bench"
	"github.com/phoenix-desktop/phoenix/persistence"
	"github.com/phoenix-desktop/phoenix/providers"
	"github.com/phoenix-desktop/phoenix/remote"
	"github.com/phoenix-desktop/phoenix/sandbox"
	"github.com/phoenix-desktop/phoenix/startpages"
	_ "github.com/phoenix-desktop/phoenix/startpages/late" // a release during package initialisation
)

var usage = `Usage:
  phoenix-desktop [--data-dir DIR] [--demo] [--model M] [--base-url URL]   open the desktop app
  phoenix-desktop chat [flags] PROMPT…      run one user turn headless and print the transcript
  phoenix-desktop list [--data-dir DIR] [--json]
  phoenix-desktop show ID [--data-dir DIR] [--json]
  phoenix-desktop export ID [--data-dir DIR]   print the conversation as Markdown
  phoenix-desktop checkpoints ID [--json]   list the working-tree checkpoints taken before file changes
  phoenix-desktop rewind ID CHECKPOINT [--force] [--dry-run]   restore the files as they were before it
  phoenix-desktop rewind --undo ID [RESTORE]   take back the last rewind (or RESTORE, from checkpoints)
  phoenix-desktop changes ID [--turn N | --uncommitted] [--json]   what the conversation changed, hunks numbered
  phoenix-desktop revert ID --file PATH [--hunk N]   take back a file, or one hunk of it (same scope flags)
  phoenix-desktop queue ID [--json] [--clear] [--release]   messages queued while the agent worked
  phoenix-desktop fork ID MSG [--json]      continue from message MSG in a new conversation, keeping ID
  phoenix-desktop merge ID [--json]         merge the conversation's worktree branch into its base (exit 4 on conflict)
  phoenix-desktop worktree ID [--keep | --remove [--confirm] | --restore] [--json]   the worktree; keep its branch, remove both, or undo the removal
  phoenix-desktop spent [--today] [--json]   what the replies took and cost, each counted once (today: Settings' figure)
  phoenix-desktop search WORDS… [--archived] [--json]   find messages in every conversation
  phoenix-desktop delete ID [--data-dir DIR]   delete a conversation for good
  phoenix-desktop --version                 print the version and the source revision
  phoenix-desktop bench [--json]            measure the headline numbers on this machine
  phoenix-desktop doctor [--json] [--remote HOST]   which sandbox layers this machine (or HOST over SSH) enforces, and why any is missing
  phoenix-desktop mcp list [--cwd DIR] [--json]   start the MCP servers, show their states and tools
  phoenix-desktop mcp login NAME                  sign in to a URL MCP server (OAuth, in the browser)
  phoenix-desktop commands [--cwd DIR] [--json]   the /commands and skills a conversation there has
  phoenix-desktop hooks [allow] [--cwd DIR] [--json]   the hooks that run there; allow the project's

Run "phoenix-desktop COMMAND -h" for the flags of a command. While the app is open on the
same data directory, the commands that use it run inside the app and show in its window.
Without an API key (` + strings.Join(providers.EnvVars(providers.FieldAPIKey), " or ") + `) and base URL, the built-in offline
demo model is used.
`

func main() {
	// The sandbox helper must run before anything else: when this process is the restricted
	// re-execution of bash, it must not start the app (it never returns in that case).
	sandbox.MaybeRunHelper()
	// On a remote machine this binary, copied there over SSH, is the agent of the app's
	// conversations (remote.Dial starts it so); it never starts the app there.
	remote.MaybeRunAgent()
	// Likewise the MCP server that `bench` measures against is this binary started again.
	bench.MaybeRunEchoServer()
	// And the bare Fyne window the idle rows compare the app's window with.
	bench.MaybeRunBareWindow()
	// And the window the Changes view's rows measure.
	bench.MaybeRunChangesWindow()
	// The binary's pages package initialisation touched leave the process (the third release,
	// after startpages' and startpages/late's during initialisation).
	startpages.Release()
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	// The cold-start bench rows read the process's peak memory here (bench.EnvPeakRSSFile).
	bench.WritePeakRSS()
	os.Exit(code)
}

// exitError carries a specific exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func run(args []string, stdout, stderr io.Writer) int {
	// While the app runs on the data directory, it runs the command (cliclient.go).
	if code, served := runThroughApp(args, stdout, stderr); served {
		return code
	}
	return runWith(localEnv(), args, stdout, stderr)
}

// runWith runs a command where env says: in this process, or inside the app for a client.
func runWith(env *cmdEnv, args []string, stdout, stderr io.Writer) int {
	cmd, rest := "", args
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, rest = args[0], args[1:]
	}
	if cmd == "" && len(rest) > 0 && (rest[0] == "--version" || rest[0] == "-version") {
		fmt.Fprintln(stdout, versionLine())
		return 0
	}
	var err error
	switch cmd {
	case "":
		err = runGUI(rest, stderr)
	case "chat":
		// A headless turn is profiled as the window is (PHOENIX_CPU_PROFILE): the CLI path's
		// own costs show in its profile, not the bench's (issue 39).
		stopProfile := startCPUProfile(stderr)
		err = runChat(env, rest, stdout, stderr)
		stopProfile()
	case "list":
		err = runList(env, rest, stdout, stderr)
	case "show":
		err = runShow(env, rest, stdout, stderr)
	case "export":
		err = runExport(env, rest, stdout, stderr)
	case "search":
		err = runSearch(env, rest, stdout, stderr)
	case "delete":
		err = runDelete(env, rest, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, versionLine())
		return 0
	case "bench":
		err = runBench(rest, stdout, stderr)
	case "checkpoints":
		err = runCheckpoints(env, rest, stdout, stderr)
	case "rewind":
		err = runRewind(env, rest, stdout, stderr)
	case "changes":
		err = runChanges(env, rest, stdout, stderr)
	case "revert":
		err = runRevert(env, rest, stdout, stderr)
	case "queue":
		err = runQueue(env, rest, stdout, stderr)
	case "fork":
		err = runFork(env, rest, stdout, stderr)
	case "merge":
		err = runMerge(env, rest, stdout, stderr)
	case "worktree":
		err = runWorktree(env, rest, stdout, stderr)
	case "spent":
		err = runSpent(env, rest, stdout, stderr)
	case "doctor":
		err = runDoctor(rest, stdout, stderr)
	case "mcp":
		err = runMCP(rest, stdout, stderr)
	case "commands":
		err = runCommands(rest, stdout, stderr)
	case "hooks":
		err = runHooksCmd(rest, stdout, stderr)
	case "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "phoenix-desktop: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	if err == nil {
		return 0
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintln(stderr, "phoenix-desktop:", errorText(err))
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	if errors.Is(err, persistence.ErrDiskFull) {
		return exitDiskFull
	}
	return 1
}

// errorText is a failed command's last line. A full disk is said in the store's own words,
// without the chain of what was being saved (the banner's words), and what to do: a headless
// command ends, so nothing resumes by itself as in the window (issue 33).
func errorText(err error) string {
	var full *persistence.DiskFullError
	if errors.As(err, &full) {
		return full.Banner() + "; run again once there is room (data in " + full.Dir + ")"
	}
	return err.Error()
}
