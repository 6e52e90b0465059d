package actors

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/custom"
	"github.com/phoenix-desktop/phoenix/instructions"
)

// projectHost is a host whose agent answers a project's files (the real one reads them there:
// remote.TestRemoteProjectFilesAreReadThere, and end to end with a real sshd in cmd).
type projectHost struct {
	*hostRunner
	files Instructions
	cust  Custom
	err   error
	read  []string // host:dir of each reading
}

func (p *projectHost) ReadProject(_ context.Context, host, dir string, status func(string)) (Instructions, Custom, error) {
	p.mu.Lock()
	p.read = append(p.read, host+":"+dir)
	p.mu.Unlock()
	status("Connecting to " + host + "…")
	return p.files, p.cust, p.err
}

func (p *projectHost) RemoteAllowedHosts(context.Context, string) ([]RemoteProjectHosts, error) {
	return nil, errors.New("not in this test")
}

func (p *projectHost) RemoveRemoteAllowedHost(context.Context, string, string, string) error {
	return errors.New("not in this test")
}

// TestRemoteProjectInstructionsCommandsAndSkillsComeFromTheHost: a conversation on another
// machine gets its project's AGENTS.md, commands and skills from there (never a folder of the
// same path here) and the person's own instructions and commands from here, in the order and
// under the cap of a local project; the person's skills are not offered, their files being
// where the conversation's tools do not run. A host that cannot be read leaves the person's
// own and says why; Reload instructions reads the host again.
func TestRemoteProjectInstructionsCommandsAndSkillsComeFromTheHost(t *testing.T) {
	personal := t.TempDir()
	writeFile(t, filepath.Join(personal, "AGENTS.md"), "Answer in English.")
	writeFile(t, filepath.Join(personal, "commands", "mine.md"), "My own command $ARGUMENTS")
	writeFile(t, filepath.Join(personal, "skills", "notes", "SKILL.md"), "---\nname: notes\ndescription: my notes here\n---\n")
	host := &projectHost{hostRunner: &hostRunner{started: make(chan struct{})},
		files: Instructions{Files: []instructions.File{{Path: "/srv/p/AGENTS.md", Label: "AGENTS.md", Text: "Rules kept on the host."}}},
		cust: Custom{Commands: []custom.Command{{Name: "deploy", Body: "Deploy $ARGUMENTS", Path: "/srv/p/.claude/commands/deploy.md", Label: "project .claude/commands"}},
			Skills: []custom.Skill{{Name: "release", Description: "Cut a release", Path: "/srv/p/.claude/skills/release/SKILL.md"}}}}
	h := newHarness(t, withRemote(host), withInstructionsDir(personal), func(c *Config) { c.PersonalDirs = []string{personal} })
	writeFile(t, filepath.Join(h.cwd, "AGENTS.md"), "A local folder of the same path: never read.")

	c := h.create(NewConversation{Cwd: h.cwd, Host: "me@box"})
	if !slices.Equal(host.read, []string{"me@box:" + h.cwd}) {
		t.Fatalf("the host was read %q", host.read)
	}
	set, err := h.rt.Instructions(context.Background(), c.ID)
	if err != nil || len(set.Files) != 2 || set.Files[0].Path != filepath.Join(personal, "AGENTS.md") || set.Files[1].Path != "/srv/p/AGENTS.md" {
		t.Fatalf("instructions %q, %v", set.Labels(), err)
	}
	cmds, err := h.rt.Commands(context.Background(), c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cmds.Command("deploy"); !ok {
		t.Errorf("the host's command is not offered: %+v", cmds.Commands)
	}
	if _, ok := cmds.Command("mine"); !ok {
		t.Errorf("the person's command is not offered: %+v", cmds.Commands)
	}
	if got := cmds.SkillNames(); !slices.Equal(got, []string{"release"}) {
		t.Errorf("skills offered: %q, want only the host's", got)
	}
	h.turn(c.ID, "echo: hello")
	sys := h.srv.LastChat().SystemPrompt()
	for _, want := range []string{"Rules kept on the host.", "Answer in English.", "release: Cut a release (/srv/p/.claude/skills/release/SKILL.md)"} {
		mustContain(t, sys, want)
	}
	if strings.Contains(sys, "never read") || strings.Contains(sys, "my notes here") {
		t.Fatalf("the first request carries a local file:\n%s", sys)
	}
	if strings.Index(sys, "Answer in English.") > strings.Index(sys, "Rules kept on the host.") {
		t.Fatalf("the project's file is not nearer than the person's:\n%s", sys)
	}

	// The host cannot be read: the person's own stay, and the conversation says why.
	host.err = errors.New("could not reach me@box")
	sub := h.rt.Subscribe()
	defer sub.Close()
	set, err = h.rt.ReloadInstructions(context.Background(), c.ID)
	if err != nil || len(set.Files) != 1 || set.Files[0].Text != "Answer in English." {
		t.Fatalf("reload with the host down: %+v %v", set, err)
	}
	waitNotice(t, sub, c.ID, "were not read: could not reach me@box")
	if n := strings.Join(set.Notices, "\n"); !strings.Contains(n, "on me@box were not read: could not reach me@box") {
		t.Fatalf("the instructions do not say why the project's are missing: %q", set.Notices)
	}
	if cmds, _ := h.rt.Commands(context.Background(), c.ID); len(cmds.Commands) != 1 || cmds.Commands[0].Name != "mine" {
		t.Fatalf("commands with the host down: %+v", cmds.Commands)
	}
}

// waitNotice waits for a notice of conv that contains text.
func waitNotice(t *testing.T, sub *Subscription, conv, text string) {
	t.Helper()
	timeout := time.NewTimer(10 * time.Second)
	defer timeout.Stop()
	for {
		select {
		case ev := <-sub.Events():
			if n, ok := ev.(Notice); ok && n.ConvID == conv && strings.Contains(n.Text, text) {
				return
			}
		case <-timeout.C:
			t.Fatalf("no notice saying %q", text)
		}
	}
}
