package actors

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/phoenix-desktop/phoenix/custom"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/tools"
)

// Hooks of a conversation whose project is on another machine (issue 37).
//
// The project's hooks are files of the project, so they are read and run on its host, by the
// agent there (remote/hooks.go), under the remote sandbox in the conversation's mode, as its
// bash is. Their approval is the person's, so it is kept here (hooks-approved.json) under the
// host and the folder (custom.ApprovalKey): approving /srv/app on one machine approves neither
// the same folder on another nor a local /srv/app. The app sends the approved fingerprint
// with each event and the agent runs them only while the files there hold exactly it.
//
// The person's own hooks name programs of this machine (their scripts, notify-send, a webhook
// call), so they run here — never on the host, where those programs are not. The project is
// not here, so they run in a private temp dir, told of the project's folder there by their
// input's cwd and $CLAUDE_PROJECT_DIR, and of the host by $PHOENIX_REMOTE_HOST. Walled, they
// run under this machine's Restricted walls whatever the conversation's mode (its mode is the
// host's: here there is no project to write, and no network, so no way to the agent's code);
// a runs-as-me one runs as the person, without the baseline guard: the agent's tools write
// only on the host, so nothing such a hook runs here can be the agent's work.

// RemoteHooks reads and runs a remote project's hooks on its host. The object behind
// Config.Remote implements it too (cmd's remoteHosts); without it a remote project's hooks
// are neither shown nor run (the person's own still run here).
type RemoteHooks interface {
	// ProjectHooks reads the hooks the folder dir on host offers (Allowed unset: approvals
	// are here).
	ProjectHooks(ctx context.Context, host, dir string, status func(text string)) (ProjectHooks, error)
	// RunProjectHooks runs, on host, the project hooks of the event in the folder in.Cwd
	// there, under mode, only if its files hold the configuration whose fingerprint is
	// approved; it returns what they hold and the hooks' results.
	RunProjectHooks(ctx context.Context, host string, mode domain.Mode, approved string, in custom.Input, status func(text string)) (ProjectHooks, []custom.Result, error)
	// PathExists says whether path exists on host (a patch's file: Write or Edit to a hook).
	PathExists(ctx context.Context, host, path string) (bool, error)
}

// hookSession is where a conversation's hook session started: its folder, on its host.
type hookSession struct{ host, cwd string }

// hasHooks reports whether a hook may run for the event in the folder cwd on host: for this
// machine as custom.Hooks.Has; for a host, the person's own for the event, or the project's
// there unless the last reading of them (remoteHookState) found none approved — the first
// event of a folder in this process always asks the host, so waiting hooks are told once.
func (r *Runtime) hasHooks(ev custom.Event, host, cwd string) bool {
	if r.cfg.Hooks == nil {
		return false
	}
	if host == "" {
		return r.cfg.Hooks.Has(ev, cwd)
	}
	if r.cfg.Hooks.HasPerson(ev) {
		return true
	}
	if _, ok := r.cfg.Remote.(RemoteHooks); !ok {
		return false
	}
	last, read := r.remoteHookState.Load(custom.ApprovalKey(host, cwd))
	if !read {
		return true
	}
	p := last.(ProjectHooks)
	return len(p.Files) > 0 && r.cfg.Hooks.Judge(host, p).Allowed
}

// remoteHookRunners are what runs a remote conversation's hooks: the person's here, the
// project's on host.
func (r *Runtime) remoteHookRunners(convID, host string, mode domain.Mode, cwd string) custom.Runners {
	vars := func(base []string) []string {
		return append(custom.Env(base, cwd), "PHOENIX_REMOTE_HOST="+host)
	}
	rs := custom.Runners{
		Walled: hereHookRunner{tempRoot: r.cfg.TempRoot, vars: vars},
		AsMe:   hereHookRunner{tempRoot: r.cfg.TempRoot, vars: vars, asMe: true},
		Host:   host,
	}
	if rh, ok := r.cfg.Remote.(RemoteHooks); ok {
		rs.OnHost = func(ctx context.Context, in custom.Input, approved string) (custom.ProjectHooks, []custom.Result, error) {
			p, results, err := rh.RunProjectHooks(ctx, host, mode, approved, in, func(text string) {
				r.publish(Notice{ConvID: convID, Level: NoticeInfo, Text: text})
			})
			if err == nil {
				r.remoteHookState.Store(custom.ApprovalKey(host, in.Cwd), p)
			}
			return p, results, err
		}
	}
	return rs
}

// hereHookRunner runs a person's hook of a remote conversation on this machine, in a private
// temp dir (there is no project here): under the Restricted walls, or as the person (asMe).
type hereHookRunner struct {
	tempRoot string
	vars     func(base []string) []string
	asMe     bool
}

func (h hereHookRunner) Run(ctx context.Context, command string, stdin []byte, stdout, stderr io.Writer) (int, error) {
	if !h.asMe {
		return tools.RunHook(ctx, tools.Env{Mode: domain.ModeRestricted}, h.tempRoot, command, stdin, h.vars, stdout, stderr)
	}
	dir, err := os.MkdirTemp(h.tempRoot, "hook-")
	if err != nil {
		return 0, fmt.Errorf("create a temp dir for the hook: %w", err)
	}
	defer os.RemoveAll(dir)
	return custom.PersonRunner{Dir: dir, Env: h.vars(os.Environ())}.Run(ctx, command, stdin, stdout, stderr)
}

// hooksReadWait bounds reading a remote project's hooks for Settings → Hooks, connecting
// included, as for its other files.
const hooksReadWait = remoteReadWait

// readProjectHooks reads what the folder cwd on host offers, judged against the approvals.
func (r *Runtime) readProjectHooks(ctx context.Context, host, cwd string) (ProjectHooks, error) {
	if host == "" {
		return r.cfg.Hooks.Project(cwd), nil
	}
	rh, ok := r.cfg.Remote.(RemoteHooks)
	if !ok {
		return ProjectHooks{Cwd: cwd, Host: host}, fmt.Errorf("this session of Phoenix Desktop cannot reach other machines, so the hooks of %s on %s cannot be read", cwd, host)
	}
	ctx, cancel := context.WithTimeout(ctx, hooksReadWait)
	defer cancel()
	p, err := rh.ProjectHooks(ctx, host, cwd, nil)
	if err != nil {
		return ProjectHooks{Cwd: cwd, Host: host}, fmt.Errorf("the hooks of %s on %s could not be read: %w", cwd, host, err)
	}
	r.remoteHookState.Store(custom.ApprovalKey(host, cwd), p)
	return r.cfg.Hooks.Judge(host, p), nil
}

// errNoHooks is the answer of the hook settings in a session without hooks.
var errNoHooks = errors.New("hooks are off in this session")
