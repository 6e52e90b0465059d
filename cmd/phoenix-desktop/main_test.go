package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"golang.org/x/term"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/mcp/mcptest"
	"github.com/phoenix-desktop/phoenix/persistence"
	"github.com/phoenix-desktop/phoenix/remote"
	"github.com/phoenix-desktop/phoenix/sandbox"
	"github.com/phoenix-desktop/phoenix/secrets"
	"github.com/phoenix-desktop/phoenix/ui"
)

func TestMain(m *testing.M) {
	maybePrintFyneWord()
	sandbox.MaybeRunHelper()
	remote.MaybeRunAgent()   // the test binary, copied over SSH, as the remote agent (remote_test.go)
	mcptest.MaybeRunServer() // the test binary as the small MCP server (mcpask_test.go)
	maybeRunAsCLI()          // the test binary as the command line (cliserve_test.go)
	// The tests never read the developer's own settings (their MCP servers, for one).
	config, err := os.MkdirTemp("", "phoenix-test-config-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", config)
	code := m.Run()
	os.RemoveAll(config)
	// A Fyne app made in-process (the window's preferences a command reads) keeps an inotify
	// instance to its end, and a user has 128 for every program: a package tested beside this
	// one needs some (actors' checkpoint change detectors).
	if n := inotifyInstances(); n > maxInotifyInstances && code == 0 {
		fmt.Fprintf(os.Stderr, "the tests left %d inotify instances open (at most %d): a test makes Fyne apps where the window's preferences are found (give it an XDG_CONFIG_HOME of its own)\n", n, maxInotifyInstances)
		code = 1
	}
	os.Exit(code)
}

// maxInotifyInstances bounds the inotify instances the tests may leave: a few tests read the
// window's preferences, each in a configuration directory of its own.
const maxInotifyInstances = 16

// inotifyInstances counts this process's inotify instances.
func inotifyInstances() int {
	entries, _ := os.ReadDir("/proc/self/fd")
	n := 0
	for _, e := range entries {
		if link, _ := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); link == "anon_inode:inotify" {
			n++
		}
	}
	return n
}

func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// cli runs the command in-process and returns its exit code and output.
func cli(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestChatDemoBashLsPrintsTheListing(t *testing.T) {
	data, cwd := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "hello-listing.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := cli(t, "chat", "--demo", "--data-dir", data, "--cwd", cwd, "bash: ls")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"── You", "bash: ls", "hello-listing.txt", "Done."} {
		if !strings.Contains(out, want) {
			t.Fatalf("transcript lacks %q:\n%s", want, out)
		}
	}

	// list, show --json and export see the same conversation.
	id, shown := onlyConversation(t, data)
	if shown.Conversation.State.Kind() != domain.StateIdle || len(shown.Messages) != 4 {
		t.Fatalf("show: state %s, %d messages", shown.Conversation.State.Kind(), len(shown.Messages))
	}
	if err := domain.ValidateHistory(shown.Messages, false); err != nil {
		t.Fatal(err)
	}
	code, out, _ = cli(t, "export", id, "--data-dir", data)
	if code != 0 || !strings.HasPrefix(out, "# bash: ls") || !strings.Contains(out, "hello-listing.txt") {
		t.Fatalf("export: %d\n%s", code, out)
	}

	// --continue sends to the same conversation.
	code, out, _ = cli(t, "chat", "--demo", "--data-dir", data, "--continue", id, "echo: again")
	if code != 0 || !strings.Contains(out, "again") {
		t.Fatalf("continue: %d\n%s", code, out)
	}
}

func TestChatExitCodes(t *testing.T) {
	data, cwd := t.TempDir(), t.TempDir()
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"error state exits 1", []string{"chat", "--demo", "--data-dir", data, "--cwd", cwd, "fail: 401 always\necho: x"}, 1, "auth"},
		{"context exhausted exits 3", []string{"chat", "--demo", "--data-dir", data, "--cwd", cwd, "usage: 95000\necho: x"}, 3, "exhausted"},
		{"missing directory", []string{"chat", "--demo", "--data-dir", data, "--cwd", filepath.Join(cwd, "nope"), "echo: x"}, 1, "not an existing directory"},
		{"unknown command", []string{"frobnicate"}, 2, "unknown command"},
		{"show without id", []string{"show", "--data-dir", data}, 1, "which conversation"},
		{"conflicting flags", []string{"chat", "--approve-upgrades", "--deny-upgrades", "x"}, 1, "exclude"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := cli(t, c.args...)
			if code != c.code || !strings.Contains(strings.ToLower(out+errs), c.want) {
				t.Fatalf("exit %d (want %d)\nstdout: %s\nstderr: %s", code, c.code, out, errs)
			}
		})
	}
}

func TestChatApprovalFlags_REQ_BED_015(t *testing.T) {
	if !sandbox.Probe().Available {
		t.Skip("Landlock unavailable: conversations start Unrestricted")
	}
	data, cwd := t.TempDir(), t.TempDir()
	prompt := "upgrade: write a file\npatch: made.txt <<< written"
	code, out, errs := cli(t, "chat", "--demo", "--deny-upgrades", "--data-dir", data, "--cwd", cwd, prompt)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(cwd, "made.txt")); !os.IsNotExist(err) {
		t.Fatalf("denied upgrade still wrote the file: %v", err)
	}
	code, out, errs = cli(t, "chat", "--demo", "--approve-upgrades", "--data-dir", data, "--cwd", cwd, prompt)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if b, err := os.ReadFile(filepath.Join(cwd, "made.txt")); err != nil || strings.TrimSpace(string(b)) != "written" {
		t.Fatalf("approved upgrade did not write the file: %q %v", b, err)
	}
}

func TestSecondInstanceIsToldTheStoreIsLocked(t *testing.T) {
	data := t.TempDir()
	var flags commonFlags
	flags.dataDir = data
	store, err := flags.openStore(quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	code, _, errs := cli(t, "list", "--data-dir", data)
	if code == 0 || !strings.Contains(errs, "already running") {
		t.Fatalf("exit %d: %s", code, errs)
	}
}

// waitForCommand waits until a process whose command line holds marker runs. (Processes have
// no event to wait on; the poll is bounded.)
func waitForCommand(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for exec.Command("pgrep", "-f", marker).Run() != nil {
		if time.Now().After(deadline) {
			t.Fatal("the command never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestChatSIGINTCancelsTheTurn: Ctrl+C during chat stops the running tool like the Stop
// button, the turn comes to rest with a cancelled result, and chat exits 130.
func TestChatSIGINTCancelsTheTurn_REQ_BED_005(t *testing.T) {
	data, cwd := t.TempDir(), t.TempDir()
	marker := fmt.Sprintf("sleep 30.%d", time.Now().UnixNano()%100000)
	done := make(chan int, 1)
	var out, errb bytes.Buffer
	go func() {
		done <- run([]string{"chat", "--demo", "--data-dir", data, "--cwd", cwd, "bash: " + marker}, &out, &errb)
	}()
	waitForCommand(t, marker)
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != exitInterrupted {
			t.Fatalf("exit %d, want %d\n%s\n%s", code, exitInterrupted, out.String(), errb.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("chat did not stop after SIGINT")
	}
	if !strings.Contains(out.String(), "cancelled") {
		t.Fatalf("the transcript does not show the cancelled result:\n%s", out.String())
	}
	if exec.Command("pgrep", "-f", marker).Run() == nil {
		t.Fatal("the command still runs after the turn was cancelled")
	}
}

func TestChatRefusesBeforeCreatingAnything(t *testing.T) {
	data, cwd := t.TempDir(), t.TempDir()
	for _, args := range [][]string{
		{"chat", "--demo", "--data-dir", data, "--cwd", cwd, "   "},
		{"chat", "--demo", "--data-dir", data, "--cwd", cwd, "--image", filepath.Join(cwd, "missing.png"), "look"},
		{"chat", "--demo", "--data-dir", data, "--cwd", cwd, "echo: hi", "--json"},
	} {
		if code, _, errs := cli(t, args...); code != 1 || errs == "" {
			t.Fatalf("%v: exit %d, %s", args, code, errs)
		}
	}
	code, out, _ := cli(t, "list", "--data-dir", data, "--json")
	if code != 0 || strings.TrimSpace(out) != "[]" && strings.TrimSpace(out) != "null" {
		t.Fatalf("refused commands left conversations behind: %s", out)
	}
}

func TestChatWithoutTerminalDeniesUpgrades_REQ_BED_015(t *testing.T) {
	if !sandbox.Probe().Available {
		t.Skip("Landlock unavailable: conversations start Unrestricted")
	}
	if term.IsTerminal(int(os.Stdin.Fd())) {
		t.Skip("standard input is a terminal: chat would ask on it")
	}
	data, cwd := t.TempDir(), t.TempDir()
	code, out, errs := cli(t, "chat", "--demo", "--json", "--data-dir", data, "--cwd", cwd, "upgrade: write\npatch: x.txt <<< y")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(errs, "no terminal") {
		t.Fatalf("stderr does not explain the denial: %s", errs)
	}
	// Standard output stays valid JSON lines.
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("not a JSON line: %q", line)
		}
	}
}

// REQ-BED-003 (issue 13 item 1): chat prints the cut-off notice with the limit and how to go
// on; the limit can be set per model (--output-limit), and the demo server cuts at it.
func TestChatPrintsCutOffNotice_REQ_BED_003(t *testing.T) {
	data, cwd := t.TempDir(), t.TempDir()
	long := strings.Repeat("0123456789", 10)
	code, out, errs := cli(t, "chat", "--demo", "--data-dir", data, "--cwd", cwd, "--output-limit", "demo=10", "echo: "+long)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{long[:40], "! The reply was cut off at the model's output limit.", "! The limit is 10 tokens. To have it go on: phoenix-desktop chat --continue "} {
		if !strings.Contains(out, want) {
			t.Fatalf("transcript lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "── Agent\n"+long[:40]+"\n!") {
		t.Fatalf("the reply was not cut at 10 tokens (40 characters):\n%s", out)
	}
	if code, _, errs := cli(t, "chat", "--demo", "--data-dir", data, "--cwd", cwd, "--output-limit", "demo", "echo: x"); code == 0 || !strings.Contains(errs, "MODEL=TOKENS") {
		t.Fatalf("a malformed --output-limit: exit %d, %s", code, errs)
	}
}

// REQ-BED-016 (issue 13 item 3) headless: SIGUSR1 is "Switch to Restricted"; the command
// running with write access is stopped at once and the rest of the round runs read-only.
func TestChatSIGUSR1SwitchesToRestricted_REQ_BED_016(t *testing.T) {
	if !sandbox.Probe().Available {
		t.Skip("Landlock is unavailable: conversations are Unrestricted only")
	}
	data, cwd := t.TempDir(), t.TempDir()
	marker := fmt.Sprintf("sleep 30.%d", time.Now().UnixNano()%100000)
	late := filepath.Join(cwd, "written-after-the-switch")
	done := make(chan int, 1)
	var out, errb bytes.Buffer
	go func() {
		done <- run([]string{"chat", "--demo", "--unrestricted", "--data-dir", data, "--cwd", cwd,
			fmt.Sprintf("bash: %s ;; bash: touch %s || echo refused", marker, late)}, &out, &errb)
	}()
	waitForCommand(t, marker)
	if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("chat did not finish after SIGUSR1")
	}
	for _, want := range []string{"switched the conversation to Restricted mode", "refused", "Mode changed to Restricted"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("transcript lacks %q:\n%s", want, out.String())
		}
	}
	if _, err := os.Stat(late); !os.IsNotExist(err) {
		t.Fatalf("a file was written after the switch (%v)", err)
	}
}

// TestDoctorReportsTheSandboxLayers_REQ_BED_014: doctor prints the same report as
// sandbox.Describe, as text and as JSON.
func TestDoctorReportsTheSandboxLayers_REQ_BED_014(t *testing.T) {
	want := sandbox.Describe()
	code, out, errs := cli(t, "doctor")
	if code != 0 || out != want.String() {
		t.Fatalf("doctor: exit %d, stderr %q\n%s\nwant\n%s", code, errs, out, want.String())
	}
	for _, layer := range []string{"Landlock", "seccomp", "capabilities", "mount view", "supervisor", "parent-death signal"} {
		if !strings.Contains(out, "] "+layer+": ") {
			t.Errorf("doctor does not report the %s layer:\n%s", layer, out)
		}
	}
	code, out, _ = cli(t, "doctor", "--json")
	var got sandbox.Layers
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil || got.String() != want.String() {
		t.Fatalf("doctor --json: exit %d\n%s", code, out)
	}
	if code, _, _ := cli(t, "doctor", "extra"); code == 0 {
		t.Errorf("doctor accepted an argument")
	}
}

func TestVersionNamesTheRevision(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26.8", Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-11-23T22:00:00Z"},
		{Key: "vcs.modified", Value: "true"}}}
	got := formatVersion("1.2.3", info)
	want := "Phoenix Desktop 1.2.3 (revision 0123456789ab with uncommitted changes of 2026-11-23T22:00:00Z, go1.26.8)"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if got := formatVersion("1.2.3", &debug.BuildInfo{GoVersion: "go1.26.8"}); !strings.Contains(got, "revision unknown") {
		t.Fatalf("without vcs info: %q", got)
	}
}

func TestSearchAndDeleteHeadless(t *testing.T) {
	data, cwd := t.TempDir(), t.TempDir()
	for _, prompt := range []string{"echo: the pelican flew", "echo: a heron and a pelican"} {
		if code, out, errs := cli(t, "chat", "--demo", "--data-dir", data, "--cwd", cwd, prompt); code != 0 {
			t.Fatalf("chat: %d\n%s\n%s", code, out, errs)
		}
	}
	search := func(args ...string) (int, []struct {
		ConvID string `json:"conversation"`
		Line   string `json:"line"`
	}) {
		t.Helper()
		code, out, errs := cli(t, append([]string{"search", "--data-dir", data, "--json"}, args...)...)
		var res struct {
			Hits []struct {
				ConvID string `json:"conversation"`
				Line   string `json:"line"`
			} `json:"hits"`
		}
		if code == 0 && json.Unmarshal([]byte(out), &res) != nil {
			t.Fatalf("search output is not JSON: %s\n%s", out, errs)
		}
		return code, res.Hits
	}
	// Each conversation has the word in its user message and in the demo's echo.
	if code, hits := search("pelican"); code != 0 || len(hits) != 4 {
		t.Fatalf("pelican: %d, %+v", code, hits)
	}
	code, hits := search("heron")
	if code != 0 || len(hits) != 2 || !strings.Contains(hits[0].Line, "heron") {
		t.Fatalf("heron: %d, %+v", code, hits)
	}
	if code, _, errs := cli(t, "search", "--data-dir", data, "!"); code != 1 || !strings.Contains(errs, "word") {
		t.Fatalf("bad query: %d %s", code, errs)
	}

	code, out, errs := cli(t, "delete", hits[0].ConvID, "--data-dir", data)
	if code != 0 || !strings.Contains(out, "Deleted "+hits[0].ConvID) {
		t.Fatalf("delete: %d\n%s\n%s", code, out, errs)
	}
	if code, hits := search("heron"); code != 0 || len(hits) != 0 {
		t.Fatalf("deleted conversation still found: %+v", hits)
	}
	if code, hits := search("pelican"); code != 0 || len(hits) != 2 {
		t.Fatalf("the other conversation: %+v", hits)
	}
	if code, _, errs := cli(t, "delete", hits[0].ConvID+"x", "--data-dir", data); code != 1 || !strings.Contains(errs, "not found") {
		t.Fatalf("unknown id: %d %s", code, errs)
	}
}

func TestKeyMovesOutOfThePreferences(t *testing.T) {
	const key = "sk-legacy-key-in-prefs-4242"
	app := test.NewTempApp(t)
	ui.SaveSettings(app.Preferences(), ui.Settings{BaseURL: "https://api.openai.com/v1", APIKey: key, Model: "gpt-4o"})
	store, err := secrets.OpenFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	migrateKey(app.Preferences(), store, log)
	if got := ui.LegacyAPIKey(app.Preferences()); got != "" {
		t.Fatal("the key is still in the preferences")
	}
	if got, err := (apiKeyStore{s: store}).APIKey(); err != nil || got != key {
		t.Fatalf("stored key %q, %v", got, err)
	}
	if s := ui.LoadSettings(app.Preferences()); s.BaseURL == "" || s.Model != "gpt-4o" {
		t.Fatalf("the other settings were lost: %+v", s)
	}
	if strings.Contains(logs.String(), key) || !strings.Contains(logs.String(), "moved the API key") {
		t.Fatalf("log: %s", logs.String())
	}
	// Nothing to move the second time.
	logs.Reset()
	migrateKey(app.Preferences(), store, log)
	if logs.Len() != 0 {
		t.Fatalf("second start logged: %s", logs.String())
	}
}

// lockedStore is a Secret Service whose collection stays locked: every call fails.
type lockedStore struct{}

func (lockedStore) Get(string) (string, error) { return "", errors.New("the collection is locked") }
func (lockedStore) Set(string, string) error   { return errors.New("the collection is locked") }
func (lockedStore) Where() string              { return "to the desktop's keyring (Secret Service)" }
func (lockedStore) Secure() bool               { return true }

// A key that cannot be moved stays in the preferences file and is used from there; a later
// start moves it once the store works.
func TestKeyThatCannotMoveStaysInUse(t *testing.T) {
	const key = "sk-legacy-key-stuck-in-prefs-5151"
	app := test.NewTempApp(t)
	ui.SaveSettings(app.Preferences(), ui.Settings{BaseURL: "https://api.openai.com/v1", APIKey: key, Model: "gpt-4o"})
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	keys := keyStore(app.Preferences(), lockedStore{}, log)
	if got, err := ui.ReadAPIKey(keys); err != nil || got != key {
		t.Fatalf("after a failed move the key in use is %q, %v", got, err)
	}
	if !strings.Contains(keys.Where(), "preferences file, because it could not be moved") ||
		!strings.Contains(keys.Where(), "locked") {
		t.Fatalf("Settings would say %q", keys.Where())
	}
	if ui.LegacyAPIKey(app.Preferences()) != key {
		t.Fatal("the legacy copy was removed though the move failed")
	}
	store, err := secrets.OpenFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	keys = keyStore(app.Preferences(), store, log)
	if got, err := ui.ReadAPIKey(keys); err != nil || got != key || !strings.Contains(keys.Where(), store.Path()) {
		t.Fatalf("the next start: %q, %v, %s", got, err, keys.Where())
	}
	if ui.LegacyAPIKey(app.Preferences()) != "" {
		t.Fatal("the legacy copy stays after the key was moved")
	}
}

// A thinking model's reasoning is stored with its reply: chat prints it only with
// --show-reasoning, and show and export, which read the store afresh, include it apart from
// the answer.
func TestChatShowExportReasoning(t *testing.T) {
	data, cwd := t.TempDir(), t.TempDir()
	prompt := "reason: The person wants the listing, so I run ls first.\nbash: ls\nreason: The listing came back; I report it.\n"
	code, out, errs := cli(t, "chat", "--demo", "--data-dir", data, "--cwd", cwd, prompt)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if strings.Contains(out, "┆") {
		t.Fatalf("chat printed the reasoning without --show-reasoning:\n%s", out)
	}
	code, out, errs = cli(t, "chat", "--demo", "--show-reasoning", "--data-dir", data, "--cwd", cwd, prompt)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"  ┆ Thinking (", "  ┆ The person wants the listing, so I run ls first.", "  ┆ The listing came back; I report it.", "Done."} {
		if !strings.Contains(out, want) {
			t.Fatalf("chat --show-reasoning lacks %q:\n%s", want, out)
		}
	}

	code, out, _ = cli(t, "list", "--data-dir", data, "--json")
	var list []struct{ ID string }
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 2 {
		t.Fatalf("list: %d %s", code, out)
	}
	id := list[0].ID
	code, out, _ = cli(t, "show", id, "--data-dir", data)
	if code != 0 || !strings.Contains(out, "  ┆ The person wants the listing, so I run ls first.") {
		t.Fatalf("show lacks the reasoning: %d\n%s", code, out)
	}
	code, out, _ = cli(t, "show", id, "--data-dir", data, "--json")
	var shown struct {
		Messages []domain.Message `json:"messages"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &shown) != nil || len(shown.Messages) != 4 {
		t.Fatalf("show --json: %d %s", code, out)
	}
	first := shown.Messages[1]
	if first.Reasoning == nil || first.Reasoning.Text != "The person wants the listing, so I run ls first." || first.Text != "" {
		t.Fatalf("stored reply %+v; want the reasoning in its own field", first)
	}
	if u := first.Usage; u == nil || u.ReasoningTokens == 0 || u.ReasoningTokens > u.OutputTokens {
		t.Fatalf("usage %+v", first.Usage)
	}
	code, out, _ = cli(t, "export", id, "--data-dir", data)
	if code != 0 || !strings.Contains(out, " tokens)*\n>\n> The person wants the listing, so I run ls first.\n") ||
		!strings.Contains(out, "> The listing came back; I report it.") {
		t.Fatalf("export lacks the quoted reasoning: %d\n%s", code, out)
	}
}

// TestHelpListsTheCommands: --help on the app lists the commands beside the app's flags.
func TestHelpListsTheCommands(t *testing.T) {
	for _, arg := range []string{"--help", "-h"} {
		var out, errOut strings.Builder
		if code := run([]string{arg}, &out, &errOut); code != 0 {
			t.Fatalf("%s exits %d: %s", arg, code, errOut.String())
		}
		help := out.String() + errOut.String()
		for _, want := range []string{"phoenix-desktop chat", "phoenix-desktop list", "phoenix-desktop mcp list", "Flags of the desktop app:", "-data-dir"} {
			if !strings.Contains(help, want) {
				t.Errorf("%s does not mention %q:\n%s", arg, want, help)
			}
		}
	}
}

// A command that fails on a full disk ends with the store's words, not the chain of what was
// being saved (issue 25), and what to do: run it again once there is room (issue 33).
func TestErrorTextOnAFullDisk(t *testing.T) {
	full := &persistence.DiskFullError{Dir: "/data", Free: 1 << 20, Need: 300 << 20}
	err := fmt.Errorf("chat: save conversation c1: commit c1: %w", full)
	if got, want := errorText(err), full.Banner()+"; run again once there is room (data in /data)"; got != want {
		t.Fatalf("errorText = %q, want %q", got, want)
	}
}

// shownConversation is what `show --json` prints.
type shownConversation struct {
	Conversation domain.Conversation `json:"conversation"`
	Messages     []domain.Message    `json:"messages"`
}

// onlyConversation is the one conversation in data, as `list --json` and `show --json` give it.
func onlyConversation(t *testing.T, data string) (string, shownConversation) {
	t.Helper()
	code, out, errs := cli(t, "list", "--data-dir", data, "--json")
	var list []struct{ ID string }
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 {
		t.Fatalf("list: exit %d, want one conversation\n%s\n%s", code, out, errs)
	}
	id := list[0].ID
	code, out, _ = cli(t, "show", id, "--data-dir", data, "--json")
	var shown shownConversation
	if code != 0 || json.Unmarshal([]byte(out), &shown) != nil {
		t.Fatalf("show: %d %s", code, out)
	}
	return id, shown
}
