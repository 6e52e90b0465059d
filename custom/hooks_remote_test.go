package custom

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRemoteApprovalIsTheHostsOwn: an approval of a folder's hooks on one machine is that
// machine's: the same folder on another host, or on this machine, is not approved by it, nor
// the other way round; the file of approvals keeps a local folder's key as it was.
func TestRemoteApprovalIsTheHostsOwn(t *testing.T) {
	dir, cfgDir := fixture(t), t.TempDir()
	h := OpenHooks(cfgDir)
	read := ReadProjectHooks(dir) // what an agent would read on a host with this folder
	if read.Fingerprint == "" || read.Allowed {
		t.Fatalf("read = %+v", read)
	}
	now := func() (ProjectHooks, error) { return read, nil }
	if err := h.AllowProjectOn("dev@box", dir, read.Fingerprint, now); err != nil {
		t.Fatal(err)
	}
	if !h.Judge("dev@box", read).Allowed {
		t.Fatal("the approved host's hooks are not allowed")
	}
	for _, host := range []string{"", "dev@box2", "box", `dev@box" /`} {
		if h.Judge(host, read).Allowed {
			t.Errorf("the approval on dev@box leaks to host %q", host)
		}
	}
	if h.Project(dir).Allowed {
		t.Error("the approval on dev@box allows the same folder on this machine")
	}
	if err := h.AllowProject(dir, read.Fingerprint); err != nil {
		t.Fatal(err)
	}
	if h.Judge("dev@box2", read).Allowed {
		t.Error("the local approval leaks to another host")
	}
	b, _ := os.ReadFile(filepath.Join(cfgDir, approvalsFile))
	if !strings.Contains(string(b), `"`+dir+`": "`) {
		t.Errorf("a local folder's key changed: %s", b)
	}
	// A reading that claims a fingerprint it does not hold is judged on what it holds.
	forged := read
	forged.Config = Config{Hooks: map[Event][]Group{Stop: {{Hooks: []Hook{{Command: "rm -rf ~"}}}}}}
	if h.Judge("dev@box", forged).Allowed {
		t.Error("a configuration other than the approved one is allowed by its claimed fingerprint")
	}
	// A host that cannot be read again refuses the approval, saying why.
	err := h.AllowProjectOn("dev@box3", dir, read.Fingerprint, func() (ProjectHooks, error) { return ProjectHooks{}, errors.New("connection lost") })
	if err == nil || !strings.Contains(err.Error(), "could not be read there again") || h.Judge("dev@box3", read).Allowed {
		t.Errorf("an approval without a fresh reading: %v", err)
	}
}

// TestRemoteProjectHooksRunOnTheHostOnly: for a project on another host, no project file of
// this machine is read or run; the host runs them (OnHost) with the approved fingerprint,
// and a host that cannot run them is a hook result that says so, the person's still run.
func TestRemoteProjectHooksRunOnTheHostOnly(t *testing.T) {
	dir, cfgDir := fixture(t), t.TempDir()
	h := OpenHooks(cfgDir)
	// The local folder's hooks are approved: they must not run for the remote project.
	if err := h.AllowProject(dir, h.Project(dir).Fingerprint); err != nil {
		t.Fatal(err)
	}
	writePersonHooks(t, cfgDir, `{"hooks":{"PreToolUse":[{"hooks":[{"command":"echo mine"}]}]}}`)
	read := ReadProjectHooks(dir)
	var gotApproved []string
	onHost := func(ctx context.Context, in Input, approved string) (ProjectHooks, []Result, error) {
		gotApproved = append(gotApproved, approved)
		if approved != read.Fingerprint {
			return read, nil, nil
		}
		return read, []Result{{Event: in.HookEventName, Command: "there", Project: true, Exit: BlockExitCode, Blocked: true, Reason: "refused there"}}, nil
	}
	run := PersonRunner{Dir: t.TempDir()}
	rs := Runners{Walled: run, Host: "dev@box", OnHost: onHost}
	out := h.Run(context.Background(), bashInput(dir, "rm -rf build"), rs)
	if out.Blocked || len(out.Results) != 1 || out.Results[0].Project || strings.TrimSpace(out.Results[0].Stdout) != "mine" {
		t.Fatalf("before the approval there: %+v", out)
	}
	if len(out.Notices) != 1 || !strings.Contains(out.Notices[0], "on dev@box has hooks") || !strings.Contains(out.Notices[0], "--remote dev@box") {
		t.Errorf("notices = %q", out.Notices)
	}
	if err := h.AllowProjectOn("dev@box", dir, read.Fingerprint, func() (ProjectHooks, error) { return read, nil }); err != nil {
		t.Fatal(err)
	}
	out = h.Run(context.Background(), bashInput(dir, "rm -rf build"), rs)
	if !out.Blocked || out.Reason != "refused there" || len(out.Results) != 2 {
		t.Fatalf("after the approval there: %+v", out)
	}
	if len(gotApproved) != 2 || gotApproved[0] != "" || gotApproved[1] != read.Fingerprint {
		t.Errorf("the host was given the approvals %q", gotApproved)
	}
	rs.OnHost = func(context.Context, Input, string) (ProjectHooks, []Result, error) {
		return ProjectHooks{}, nil, errors.New("could not reach dev@box")
	}
	out = h.Run(context.Background(), bashInput(dir, "ls"), rs)
	if out.Blocked || len(out.Results) != 2 || !strings.Contains(out.Results[1].Line(), "could not run: could not reach dev@box") {
		t.Errorf("a host that cannot be reached: %+v", out)
	}
}
