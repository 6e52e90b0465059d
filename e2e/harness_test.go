package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/phoenix-desktop/phoenix/actors"
	actorsrig "github.com/phoenix-desktop/phoenix/actors/rig"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm"
	"github.com/phoenix-desktop/phoenix/llm/fakellm"
	"github.com/phoenix-desktop/phoenix/persistence"
	"github.com/phoenix-desktop/phoenix/sandbox"
)

// TestMain lets the test binary serve as the sandbox helper (bash runs through a re-exec of
// the running binary), removes the CLI binary the tests built, and checks that no test
// leaves a goroutine behind.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	goleak.VerifyTestMain(cleanupM{m})
}

// cleanupM runs the tests, then removes what they shared, before goleak looks.
type cleanupM struct{ m *testing.M }

func (c cleanupM) Run() int {
	code := c.m.Run()
	if cli.dir != "" {
		_ = os.RemoveAll(cli.dir) // a temporary directory; nothing to do if it lingers
	}
	return code
}

// --- a real runtime in the test process ---------------------------------------------------

// rig is a real runtime (actors/rig: real actors, a Badger store in a temporary directory,
// real tools through the sandbox helper, the fake OpenAI server over real HTTP), with the
// short names the suites use.
type rig struct {
	t     testing.TB
	env   *actorsrig.Env
	dir   string
	cwd   string
	srv   *fakellm.Server
	store *persistence.Store
	rt    *actors.Runtime
	sub   *actors.Subscription
	once  sync.Once
}

type rigOptions struct {
	// idle is the LLM client's idle timeout; zero means 10 s, long enough that only a
	// scripted stall trips it on a loaded machine.
	idle time.Duration
}

func quietLogger() *slog.Logger {
	if testing.Verbose() && os.Getenv("E2E_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	return slog.New(slog.DiscardHandler)
}

// newRig starts a runtime. It returns an error rather than failing the test so that it can
// be called from the fault matrix's worker goroutines.
func newRig(t testing.TB, o rigOptions) (*rig, error) {
	idle := o.idle
	if idle == 0 {
		idle = 10 * time.Second
	}
	env, err := actorsrig.Start(actorsrig.Options{Logger: quietLogger(),
		LLM: func(c *llm.Config) { c.IdleTimeout = idle }})
	if err != nil {
		return nil, err
	}
	return &rig{t: t, env: env, dir: env.DataDir, cwd: env.Cwd, srv: env.Server, store: env.Store,
		rt: env.Runtime, sub: env.Events}, nil
}

func mustRig(t testing.TB, o rigOptions) *rig {
	t.Helper()
	r, err := newRig(t, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.close)
	return r
}

// close stops the runtime, the server and the store; it is idempotent. The soak swaps
// servers (swapServer), so the current one is closed too.
func (r *rig) close() {
	r.once.Do(func() {
		r.env.Close()
		r.srv.Close()
	})
}

func (r *rig) create(p actors.NewConversation) (domain.Conversation, error) {
	if p.Cwd == "" {
		p.Cwd = r.cwd
	}
	return r.rt.Create(context.Background(), p)
}

// errTimeout is returned by watch when the wanted state did not come: the run is stuck.
var errTimeout = errors.New("timed out")

// watch collects the StateChanged events of every conversation until done says stop, or
// until the timeout. The events come from the subscription opened when the rig started, so
// nothing that happened since is missed.
func (r *rig) watch(timeout time.Duration, done func(actors.StateChanged) bool) ([]actors.StateChanged, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	var seen []actors.StateChanged
	for {
		select {
		case ev, ok := <-r.sub.Events():
			if !ok {
				return seen, errors.New("the event stream closed")
			}
			sc, is := ev.(actors.StateChanged)
			if !is {
				continue
			}
			seen = append(seen, sc)
			if done(sc) {
				return seen, nil
			}
		case <-deadline.C:
			return seen, errTimeout
		}
	}
}

// restOf waits until the conversation id is at rest and returns it.
func (r *rig) restOf(id string, timeout time.Duration) (domain.Conversation, error) {
	seen, err := r.watch(timeout, func(sc actors.StateChanged) bool {
		return sc.Conv.ID == id && !domain.Busy(sc.Conv.State)
	})
	if err != nil {
		c, gerr := r.store.Get(id)
		return c, fmt.Errorf("conversation %s did not come to rest: it is %v (%v) after %d state changes: %w",
			id, c.State, gerr, len(seen), err)
	}
	return seen[len(seen)-1].Conv, nil
}

// turn sends text and waits for the conversation to rest.
func (r *rig) turn(id, text string) (domain.Conversation, error) {
	if err := r.rt.Send(context.Background(), id, text, nil); err != nil {
		return domain.Conversation{}, fmt.Errorf("send %.40q: %w", text, err)
	}
	return r.restOf(id, 60*time.Second)
}

func (r *rig) mustTurn(id, text string) domain.Conversation {
	r.t.Helper()
	c, err := r.turn(id, text)
	if err != nil {
		r.t.Fatal(err)
	}
	return c
}

// history loads the committed messages and checks them with the rule the APIs enforce.
func (r *rig) history(id string) ([]domain.Message, error) {
	_, msgs, err := r.store.Load(id)
	if err != nil {
		return nil, err
	}
	if err := domain.ValidateHistory(msgs, false); err != nil {
		return msgs, fmt.Errorf("history of %s is not valid for the API: %w", id, err)
	}
	return msgs, nil
}

func (r *rig) mustHistory(id string) []domain.Message {
	r.t.Helper()
	msgs, err := r.history(id)
	if err != nil {
		r.t.Fatal(err)
	}
	return msgs
}

func lastOf(msgs []domain.Message, kind domain.MessageKind) (domain.Message, bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Kind == kind {
			return msgs[i], true
		}
	}
	return domain.Message{}, false
}

func toolResults(msgs []domain.Message) []domain.ToolResult {
	var out []domain.ToolResult
	for _, m := range msgs {
		if m.Kind == domain.KindToolResult {
			out = append(out, *m.ToolResult)
		}
	}
	return out
}

// --- the CLI binary -----------------------------------------------------------------------

// cli is the phoenix-desktop binary, built once per test run.
var cli struct {
	once sync.Once
	dir  string
	path string
	err  error
	note string
}

// moduleRoot finds the directory of go.mod above the package directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// overlayPath is a build overlay that replaces the GUI entry point by a stub. It exists only
// while cmd/phoenix-desktop/gui.go is being moved to the actors types; the plain build is
// always tried first, so the tests use the real binary as soon as it compiles.
const overlayPath = "/tmp/ov/overlay.json"

// cliBinary builds cmd/phoenix-desktop into a temporary directory, once.
func cliBinary(t testing.TB) string {
	t.Helper()
	cli.once.Do(func() {
		root, err := moduleRoot()
		if err != nil {
			cli.err = err
			return
		}
		cli.dir, err = os.MkdirTemp("", "phoenix-e2e-cli-")
		if err != nil {
			cli.err = err
			return
		}
		goTool, err := exec.LookPath("go")
		if err != nil {
			cli.err = fmt.Errorf("the end-to-end tests build the CLI and need the go command on PATH: %w", err)
			return
		}
		out := filepath.Join(cli.dir, "phoenix-desktop")
		build := func(extra ...string) ([]byte, error) {
			args := append([]string{"build"}, extra...)
			args = append(args, "-o", out, "./cmd/phoenix-desktop")
			cmd := exec.Command(goTool, args...)
			cmd.Dir = root
			return cmd.CombinedOutput()
		}
		msg, err := build()
		if err != nil {
			if _, serr := os.Stat(overlayPath); serr != nil {
				cli.err = fmt.Errorf("build the CLI: %w\n%s", err, msg)
				return
			}
			msg2, err2 := build("-overlay", overlayPath)
			if err2 != nil {
				cli.err = fmt.Errorf("build the CLI: %w\n%s\nwith the GUI stub overlay: %v\n%s", err, msg, err2, msg2)
				return
			}
			cli.note = fmt.Sprintf("the plain build failed, so the CLI was built with the GUI stub overlay %s:\n%s", overlayPath, msg)
		}
		cli.path = out
	})
	if cli.err != nil {
		t.Fatal(cli.err)
	}
	if cli.note != "" {
		t.Log(cli.note)
	}
	return cli.path
}

// cleanEnv is the environment without any model configuration, so that a developer's own
// PHOENIX_* or OPENAI_* variables cannot point the CLI elsewhere.
func cleanEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PHOENIX_") || strings.HasPrefix(kv, "OPENAI_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

type cliResult struct {
	stdout, stderr string
	code           int
}

func (r cliResult) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s\n--- stderr\n%s", r.code, r.stdout, r.stderr)
}

// runCLI runs the binary to its end, within a generous bound.
func runCLI(t testing.TB, env []string, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return runCLIStdin(ctx, t, env, "", args...)
}

// runCLIStdin runs the binary with stdin as its standard input until it ends or ctx is done.
func runCLIStdin(ctx context.Context, t testing.TB, env []string, stdin string, args ...string) cliResult {
	t.Helper()
	cmd := exec.CommandContext(ctx, cliBinary(t), args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Stdin = strings.NewReader(stdin)
	err := cmd.Run()
	res := cliResult{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("phoenix-desktop %.200q did not finish in time:\n%s", args, res)
	case err == nil:
	case errors.As(err, &ee):
		res.code = ee.ExitCode()
	default:
		t.Fatalf("run %.200q: %v", args, err)
	}
	return res
}

// listIDs returns the ids of the user's conversations in a data directory, via the CLI.
func listIDs(t testing.TB, dataDir string) map[string]persistence.Summary {
	t.Helper()
	res := runCLI(t, cleanEnv(), "list", "--data-dir", dataDir, "--json")
	if res.code != 0 {
		t.Fatalf("list: %s", res)
	}
	var list []persistence.Summary
	if err := json.Unmarshal([]byte(res.stdout), &list); err != nil {
		t.Fatalf("list --json: %v\n%s", err, res.stdout)
	}
	out := map[string]persistence.Summary{}
	for _, s := range list {
		out[s.ID] = s
	}
	return out
}

// newCLIConversation runs a first turn that creates a conversation, and returns its id.
func newCLIConversation(t testing.TB, env []string, dataDir string, args ...string) (string, cliResult) {
	t.Helper()
	before := listIDs(t, dataDir)
	res := runCLI(t, env, append([]string{"chat", "--data-dir", dataDir}, args...)...)
	after := listIDs(t, dataDir)
	for id := range after {
		if _, old := before[id]; !old {
			return id, res
		}
	}
	t.Fatalf("chat %v created no conversation:\n%s", args, res)
	return "", res
}
