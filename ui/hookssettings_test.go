package ui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
)

// hooksFake is the fake backend with the person's hooks file.
type hooksFake struct {
	*fakeBackend
	hmu  sync.Mutex
	text string
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
	return actors.ProjectHooks{Cwd: cwd, Host: host}, nil
}
func (f *hooksFake) AllowProjectHooks(context.Context, string, string, string) error { return nil }

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
