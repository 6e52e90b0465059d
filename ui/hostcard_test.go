package ui

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/ui/button"
)

// buttonsIn lists the buttons below o, in layout order.
func buttonsIn(o fyne.CanvasObject) []*button.Button {
	var out []*button.Button
	var walk func(fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch w := o.(type) {
		case *button.Button:
			out = append(out, w)
		case *fyne.Container:
			for _, c := range w.Objects {
				walk(c)
			}
		case *widget.Card:
			walk(w.Content)
		}
	}
	walk(o)
	return out
}

func buttonNamed(t *testing.T, o fyne.CanvasObject, text string) *button.Button {
	t.Helper()
	for _, b := range buttonsIn(o) {
		if b.Text == text && b.Visible() {
			return b
		}
	}
	t.Fatalf("no visible button %q", text)
	return nil
}

// REQ-BED-015 (issue 24): the approval card offers three answers, "Allow edits in this
// project" first and highlighted; it grants Project mode, after which the badge says Project,
// the header offers to switch down, and a second request offers only what is left.
func TestApprovalCardOffersProjectFirst_REQ_BED_015(t *testing.T) {
	h, id := upgradeScene(t)
	p := h.approvalPart()
	var labels []string
	for _, b := range buttonsIn(p.obj) {
		if b.Visible() {
			labels = append(labels, b.Text)
		}
	}
	if !slices.Equal(labels, []string{approveProjectLabel, approveFullLabel, denyLabel}) {
		t.Fatalf("buttons %v; want Project first, then everything, then Deny", labels)
	}
	if p.project.Importance != widget.HighImportance || p.full.Importance == widget.HighImportance {
		t.Error("the recommended answer is not the highlighted one")
	}
	if got := p.explain.String(); !containsAll(got, domain.ModeProject.AllowsForPerson(), domain.ModeUnrestricted.AllowsForPerson(), "keeps Restricted mode") {
		t.Errorf("the card does not say what each answer allows: %q", got)
	}

	test.Tap(p.project)
	h.waitFor("Project mode", func() bool { return h.m.header.mode.text == "Project" })
	if h.f.decisions[0] != domain.ModeProject || h.f.conversation(id).Mode != domain.ModeProject {
		t.Fatalf("decision %q, mode %s; want project", h.f.decisions[0], h.f.conversation(id).Mode)
	}
	h.settle()
	if !h.m.header.switchBox.Visible() || !h.m.header.switchBtn.Visible() || h.m.header.projectBtn.Visible() {
		t.Error("in Project mode the header offers Switch to Restricted only")
	}

	// The agent asks again from Project mode: the card offers everything or Deny.
	h.f.respond(t, id, "", []domain.ToolCall{upgradeCall("u2", "I need to install a global tool.")}, domain.Usage{InputTokens: 600})
	h.waitFor("the second card", func() bool {
		r := h.lastRow()
		return r != nil && r.kind == rowApproval && r.exec != 0 && len(h.f.decisions) == 1 && h.status() == "Waiting for your approval"
	})
	h.settle()
	p = h.approvalPart()
	if p.project.Visible() || !p.full.Visible() || !p.deny.Visible() {
		t.Fatal("in Project mode the card must not offer Project again")
	}
	if got := p.explain.String(); !containsAll(got, "keeps Project mode") {
		t.Errorf("explain %q", got)
	}
	test.Tap(p.deny)
	h.waitFor("the agent to go on", func() bool { return h.status() == "Thinking…" })
	if h.f.decisions[1] != actors.DenyUpgrade || h.m.header.mode.text != "Project" {
		t.Fatalf("decision %q, badge %q", h.f.decisions[1], h.m.header.mode.text)
	}
	h.f.respond(t, id, "Done.", nil, domain.Usage{InputTokens: 700})
	h.waitFor("ready", func() bool { return h.status() == "Ready" })
	test.Tap(h.m.header.switchBtn)
	h.waitFor("Restricted again", func() bool { return h.m.header.mode.text == "Restricted" })
}

// REQ-BED-016: from Unrestricted the header offers both lower modes; Switch to Project
// takes effect at once.
func TestSwitchDownToProject_REQ_BED_016(t *testing.T) {
	h, id := upgradeScene(t)
	test.Tap(h.approvalPart().full)
	h.waitFor("Unrestricted", func() bool { return h.m.header.mode.text == "Unrestricted" })
	h.f.respond(t, id, "Done.", nil, domain.Usage{InputTokens: 600})
	h.waitFor("ready", func() bool { return h.status() == "Ready" })
	h.settle()
	if !h.m.header.projectBtn.Visible() || !h.m.header.switchBtn.Visible() {
		t.Fatal("Unrestricted offers Switch to Project and Switch to Restricted")
	}
	test.Tap(h.m.header.projectBtn)
	h.waitFor("Project", func() bool { return h.m.header.mode.text == "Project" })
	if h.f.conversation(id).Mode != domain.ModeProject {
		t.Fatalf("mode %s", h.f.conversation(id).Mode)
	}
}

// The host card (issue 24): a command's request to reach a new host shows a card for its
// conversation with Allow once, Always for this project and Deny; the answer goes to the
// backend and the card closes; a request withdrawn by the runtime closes too, and another
// conversation's request is not shown here.
func TestHostCard(t *testing.T) {
	h, id := newOpenConversation(t, nil)
	publish := func(ev actors.Event) {
		h.f.mu.Lock()
		defer h.f.mu.Unlock()
		h.f.publish(ev)
	}
	publish(actors.HostApprovalRequested{ConvID: id, RequestID: id + "/1", Host: "registry.npmjs.org", Port: 443, Project: "/home/ada/src/parser"})
	publish(actors.HostApprovalRequested{ConvID: "other", RequestID: "other/1", Host: "evil.example", Port: 80})
	h.waitFor("the host card", func() bool { return h.m.hosts.box.Visible() && len(h.m.hosts.box.Objects) == 1 })
	card := h.m.hosts.box.Objects[0]
	var labels []string
	for _, b := range buttonsIn(card) {
		labels = append(labels, b.Text)
	}
	if !slices.Equal(labels, []string{hostAllowOnceLabel, hostAllowAlwaysLabel, hostDenyLabel}) {
		t.Fatalf("buttons %v", labels)
	}
	if !containsAll(textsIn(card), "The agent wants to reach registry.npmjs.org:443") {
		t.Fatalf("card text %q", textsIn(card))
	}
	test.Tap(buttonNamed(t, card, hostAllowAlwaysLabel))
	h.waitFor("the card to close", func() bool { return !h.m.hosts.box.Visible() })
	if d := h.f.hostAnswers[id+"/1"]; d != actors.HostAllowAlways {
		t.Fatalf("answer %v", d)
	}

	// A request the runtime withdraws (the command ended) closes without an answer.
	publish(actors.HostApprovalRequested{ConvID: id, RequestID: id + "/2", Host: "10.0.0.1", Port: 22})
	h.waitFor("the second card", func() bool { return h.m.hosts.box.Visible() })
	if !containsAll(textsIn(h.m.hosts.box), "10.0.0.1:22") {
		t.Fatalf("card text %q", textsIn(h.m.hosts.box))
	}
	publish(actors.HostApprovalAnswered{ConvID: id, RequestID: id + "/2", Withdrawn: true})
	h.waitFor("the withdrawn card to close", func() bool { return !h.m.hosts.box.Visible() })
	if _, answered := h.f.hostAnswers[id+"/2"]; answered {
		t.Fatal("a withdrawn request was answered")
	}

	// The folded card of a command that tries many hosts: Deny all, or ask about each.
	hosts := []string{"a.example", "b.example", "c.example", "d.example", "e.example", "f.example"}
	publish(actors.HostApprovalRequested{ConvID: id, RequestID: id + "/3", Host: "a.example", Port: 443, Many: hosts})
	h.waitFor("the folded card", func() bool { return h.m.hosts.box.Visible() && len(h.m.hosts.box.Objects) == 1 })
	card = h.m.hosts.box.Objects[0]
	labels = nil
	for _, b := range buttonsIn(card) {
		labels = append(labels, b.Text)
	}
	if !slices.Equal(labels, []string{hostAskEachLabel, hostDenyAllLabel}) {
		t.Fatalf("folded card's buttons %v", labels)
	}
	if !containsAll(textsIn(card), "many hosts at once (6): a.example, b.example, c.example, d.example and 2 more") {
		t.Fatalf("folded card text %q", textsIn(card))
	}
	test.Tap(buttonNamed(t, card, hostDenyAllLabel))
	h.waitFor("the folded card to close", func() bool { return !h.m.hosts.box.Visible() })
	if d := h.f.hostAnswers[id+"/3"]; d != actors.HostDeny {
		t.Fatalf("Deny all answered %v", d)
	}
}

// textsIn joins the label texts below o.
func textsIn(o fyne.CanvasObject) string {
	var out string
	var walk func(fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch w := o.(type) {
		case *widget.Label:
			out += w.Text + "\n"
		case *fyne.Container:
			for _, c := range w.Objects {
				walk(c)
			}
		case *widget.Card:
			walk(w.Content)
		}
	}
	walk(o)
	return out
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// fakeHostRules is the allowed hosts of the Settings test.
type fakeHostRules struct {
	mu    sync.Mutex
	hosts map[string][]string
	reg   map[string]bool
}

func (r *fakeHostRules) AllowedHosts(p string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.hosts[p])
}

func (r *fakeHostRules) AddHost(p, pattern string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if strings.ContainsAny(pattern, " /") || pattern == "" {
		return fmt.Errorf("%q is not a host name or pattern: write a name like example.org or *.example.org", pattern)
	}
	r.hosts[p] = append(r.hosts[p], pattern)
	return nil
}

func (r *fakeHostRules) RemoveHost(p, pattern string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hosts[p] = slices.DeleteFunc(r.hosts[p], func(h string) bool { return h == pattern })
	return nil
}

func (r *fakeHostRules) Registries(p string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reg[p]
}

func (r *fakeHostRules) SetRegistries(p string, on bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reg[p] = on
	return nil
}

// Settings → Allowed hosts… lists the open project's hosts, removes one, and switches the
// package registries on.
func TestAllowedHostsSettings(t *testing.T) {
	rules := &fakeHostRules{hosts: map[string][]string{"/home/ada/src/parser": {"proxy.golang.org", "*.npmjs.org"}}, reg: map[string]bool{}}
	h, _ := newOpenConversation(t, func(_ *fakeBackend, d *Deps) { d.Hosts = rules })
	p := h.m.showHostSettings()
	body := p.body
	h.waitFor("the hosts", func() bool {
		return containsAll(textsIn(body), "proxy.golang.org", "*.npmjs.org", "/home/ada/src/parser")
	})
	var remove *button.Button
	for _, o := range body.Objects {
		if c, ok := o.(*fyne.Container); ok && containsAll(textsIn(c), "*.npmjs.org") {
			remove = buttonNamed(t, c, "Remove")
		}
	}
	if remove == nil {
		t.Fatal("no Remove button beside *.npmjs.org")
	}
	test.Tap(remove)
	h.waitFor("the host to go", func() bool {
		return containsAll(textsIn(body), "proxy.golang.org") && !containsAll(textsIn(body), "*.npmjs.org")
	})
	if got := rules.AllowedHosts("/home/ada/src/parser"); !slices.Equal(got, []string{"proxy.golang.org"}) {
		t.Fatalf("hosts %v", got)
	}
	for _, o := range body.Objects {
		if c, ok := o.(*widget.Check); ok {
			test.Tap(c)
		}
	}
	h.waitFor("registries on", func() bool { return rules.Registries("/home/ada/src/parser") })
}

// The registries switch says what it reads: the lines the proxy gives, never the project's.
func TestAllowedHostsSettingsNameWhatTheSwitchReads(t *testing.T) {
	rules := &fakeHostRules{hosts: map[string][]string{"/home/ada/src/parser": nil}, reg: map[string]bool{}}
	sources := []string{"npm: `npm config list` outside any project", "cargo: CARGO_HOME's config.toml"}
	h, _ := newOpenConversation(t, func(_ *fakeBackend, d *Deps) { d.Hosts = rules; d.RegistrySources = sources })
	p := h.m.showHostSettings()
	h.waitFor("the switch's sources", func() bool {
		return containsAll(textsIn(p.body), "The switch reads:", sources[0], sources[1])
	})
}

// lazyHostRules are host rules whose proxy starts on first use, as the runtime's: asked
// whether it runs only when Settings shows the allowed hosts.
type lazyHostRules struct {
	fakeHostRules
	asked   int
	running bool
}

func (r *lazyHostRules) HostRulesAvailable() bool { r.asked++; return r.running }

// TestAllowedHostsAskedWhenShown (issue 36): the window does not ask whether the proxy runs
// (which starts it) before Settings shows the allowed hosts; a proxy that does not run
// leaves the row disabled and says so.
func TestAllowedHostsAskedWhenShown(t *testing.T) {
	rules := &lazyHostRules{fakeHostRules: fakeHostRules{hosts: map[string][]string{}, reg: map[string]bool{}}}
	h, _ := newOpenConversation(t, func(_ *fakeBackend, d *Deps) { d.Hosts = rules })
	if rules.asked != 0 {
		t.Fatalf("the window asked %d times whether the proxy runs before Settings opened", rules.asked)
	}
	item := h.m.hostSettingsItem()
	if rules.asked == 0 || !item.Widget.(*button.Button).Disabled() || item.HintText != "No network proxy runs in this session" {
		t.Fatalf("with no proxy running: asked %d, row %+v", rules.asked, item)
	}
	if h.m.showHostSettings() != nil {
		t.Fatal("the allowed hosts open with no proxy running")
	}
	rules.running = true
	if item := h.m.hostSettingsItem(); item.Widget.(*button.Button).Disabled() {
		t.Fatal("with the proxy running the row is disabled")
	}
}

// TestAllowedHostsSettingsAddAHost (issue 41 item 7): Settings → Allowed hosts can add a host
// to a project, not only remove one; an entry that is no host says why, and keeps the words.
func TestAllowedHostsSettingsAddAHost(t *testing.T) {
	rules := &fakeHostRules{hosts: map[string][]string{}, reg: map[string]bool{}}
	h, _ := newOpenConversation(t, func(_ *fakeBackend, d *Deps) { d.Hosts = rules })
	project := h.m.current.conv.Cwd
	p := h.m.showHostSettings()
	h.waitFor("the project", func() bool { return len(p.adds) == 1 })
	test.Type(p.adds[0], "pkg.example.org")
	p.adds[0].OnSubmitted(p.adds[0].Text)
	h.waitFor("the host allowed and shown", func() bool {
		return slices.Equal(rules.AllowedHosts(project), []string{"pkg.example.org"}) && containsAll(textsIn(p.body), "pkg.example.org")
	})
	test.Type(p.adds[0], "not a host")
	var allow *button.Button
	for _, o := range p.body.Objects {
		if c, ok := o.(*fyne.Container); ok && slices.Contains(c.Objects, fyne.CanvasObject(p.adds[0])) {
			allow = buttonNamed(t, c, "Allow")
		}
	}
	test.Tap(allow)
	h.waitFor("why it was refused", func() bool { return strings.Contains(p.message.Text, "is not a host name") })
	if p.adds[0].Text != "not a host" {
		t.Errorf("a refused entry lost its words: %q", p.adds[0].Text)
	}
}
