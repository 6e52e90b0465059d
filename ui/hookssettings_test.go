package ui

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
)

// hooksFake is the fake backend with the person's hooks file.
type hooksFake struct {
	*fakeBackend
	hmu  sync.Mutex
	text string
	// project is what ProjectHooks answers (nil: no hooks); asked and allowed record the
	// host:folder of each reading and approval.
	project *actors.ProjectHooks
	asked   []string
	allowed []string
}

func (f *hooksFake) HooksFile() string { return "/config/phoenix-desktop/hooks.json" }
func (f *hooksFake) HooksText() (string, error) {
	f.hmu.Lock()
	defer f.hmu.Unlock()
	return f.text, nil
}
func (f *hooksFake) SaveHooks(text string) ([]string, error) {
	f.hmu.Lock()
	defer f.hmu.Unlock()
	f.text = text
	return nil, nil
}
func (f *hooksFake) ProjectHooks(_ context.Context, host, cwd string) (actors.ProjectHooks, error) {
	f.hmu.Lock()
	defer f.hmu.Unlock()
	f.asked = append(f.asked, host+":"+cwd)
	p := actors.ProjectHooks{Cwd: cwd, Host: host}
	if f.project != nil {
		p = *f.project
		p.Cwd, p.Host = cwd, host
		p.Allowed = slices.Contains(f.allowed, host+":"+cwd)
	}
	return p, nil
}
func (f *hooksFake) AllowProjectHooks(_ context.Context, host, cwd, _ string) error {
	f.hmu.Lock()
	defer f.hmu.Unlock()
	f.allowed = append(f.allowed, host+":"+cwd)
	return nil
}

// Issue 37: for a conversation on another machine, Settings → Hooks reads the project's
// hooks there, says where they and the person's run, and allows them for that host.
func TestHooksSettingsOfARemoteProjectAreTheHosts(t *testing.T) {
	f := newFakeBackend()
	f.add(domain.NewConversationParams{Title: "there", Cwd: "/srv/app", Host: "dev@box", Model: "gpt-4o"})
	cfg, err := actors.ParseHooks(`{"hooks":{"PreToolUse":[{"hooks":[{"command":"./check.sh"}]}]}}`)
	if err != nil {
		t.Fatal(err)
	}
	hb := &hooksFake{fakeBackend: f, project: &actors.ProjectHooks{Files: []string{".phoenix/hooks.json"}, Config: cfg, Fingerprint: "fp"}}
	h := &harness{t: t, f: f, q: newQueue()}
	h.deps = Deps{Do: h.q.push, Now: func() time.Time { return testNow }}
	h.start(hb, f.sub)
	h.openTitled("there")
	h.m.showHooksSettings()
	p := h.m.hooksPanel
	h.waitFor("the project's hooks", func() bool { return p.allow.Visible() && len(p.project.Objects) > 2 })
	if got := p.project.Objects[0].(*widget.Label).Text; !strings.Contains(got, "your hooks run on this machine") || !strings.Contains(got, "on dev@box") {
		t.Errorf("where the person's hooks run: %q", got)
	}
	if got := p.project.Objects[1].(*widget.Label).Text; !strings.Contains(got, "Project hooks of /srv/app on dev@box (.phoenix/hooks.json)") || !strings.Contains(got, "for this folder on dev@box only") {
		t.Errorf("the project's hooks: %q", got)
	}
	p.allowProject()
	h.waitFor("the approval", func() bool {
		for _, o := range p.project.Objects {
			if l, ok := o.(*widget.Label); ok && strings.Contains(l.Text, "Allowed: they run on dev@box") {
				return true
			}
		}
		return false
	})
	hb.hmu.Lock()
	defer hb.hmu.Unlock()
	if !slices.Equal(hb.allowed, []string{"dev@box:/srv/app"}) || hb.asked[0] != "dev@box:/srv/app" {
		t.Errorf("asked %q, allowed %q", hb.asked, hb.allowed)
	}
}

// Issue 42: Settings → Hooks shows under which walls each of the person's hooks runs, and
// its "Runs as me" switch writes runAsMe into the file.
func TestHooksSettingsShowWallsAndRunAsMeSwitch(t *testing.T) {
	f := newFakeBackend()
	hb := &hooksFake{fakeBackend: f, text: `{"hooks":{"PostToolUse":[{"matcher":"Edit","hooks":[{"command":"npx prettier --write ."}]}]}}`}
	h := &harness{t: t, f: f, q: newQueue()}
	h.deps = Deps{Do: h.q.push, Now: func() time.Time { return testNow }}
	h.start(hb, f.sub)
	h.m.showHooksSettings()
	p := h.m.hooksPanel
	h.waitFor("the person's hooks", func() bool { return len(p.mine.Objects) == 2 })
	line, sw := p.mine.Objects[0].(*widget.Label), p.mine.Objects[1].(*widget.Check)
	if !strings.Contains(line.Text, "npx prettier --write . — runs under the conversation's walls") || sw.Checked {
		t.Fatalf("the hook's line %q, switch %v", line.Text, sw.Checked)
	}
	if !strings.Contains(sw.Text, "outside the walls") || !strings.Contains(sw.Text, "refused once the agent has changed what it runs") {
		t.Errorf("the switch does not say what it means: %q", sw.Text)
	}
	sw.SetChecked(true)
	h.waitFor("the redrawn list", func() bool {
		l, ok := p.mine.Objects[0].(*widget.Label)
		return ok && strings.Contains(l.Text, "runs as you, outside the walls")
	})
	if !strings.Contains(p.text.Text, `"runAsMe": true`) || !strings.Contains(p.message.Text, "Not saved yet") {
		t.Fatalf("the switch did not write the text: %q (%q)", p.text.Text, p.message.Text)
	}
	p.save()
	h.waitFor("the save", func() bool {
		text, _ := hb.HooksText()
		return strings.Contains(text, `"runAsMe": true`)
	})
}
