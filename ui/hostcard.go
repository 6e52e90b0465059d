package ui

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/transcript"
	"github.com/phoenix-desktop/phoenix/ui/button"
)

// The host card (issue 24): a Project-mode command's first connection to a host the project
// has not allowed waits in the proxy while the card asks the person. It is not a state of the
// conversation — the command keeps running — so the cards live beside the chat, above the
// composer, for the conversation on screen; a card closes when it is answered here, by the
// CLI, or when its connection went away (actors.HostApprovalAnswered).

// Words of the host card.
const (
	hostAllowOnceLabel   = "Allow once"
	hostAllowAlwaysLabel = "Always for this project"
	hostDenyLabel        = "Deny"
	// The folded card of a command that tries many hosts at once.
	hostAskEachLabel = "Ask about each"
	hostDenyAllLabel = "Deny all"
)

// manyHostsText is the folded card's title: how many hosts, and the first few.
func manyHostsText(hosts []string) string {
	const shown = 4
	list := strings.Join(hosts[:min(shown, len(hosts))], ", ")
	if len(hosts) > shown {
		list += fmt.Sprintf(" and %d more", len(hosts)-shown)
	}
	return fmt.Sprintf("A command is trying to reach many hosts at once (%d): %s", len(hosts), list)
}

// hostCardText is the card's question.
func hostCardText(host string, port int) string {
	// A command's connection or the agent's fetch_url: both go through the proxy, which
	// cannot tell them apart.
	return "The agent wants to reach " + hostPort(host, port)
}

func hostPort(host string, port int) string {
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return host + ":" + strconv.Itoa(port)
}

// hostCards holds the open host requests of every conversation and shows the current one's.
type hostCards struct {
	m   *MainWindow
	box *fyne.Container
	// open holds the requests not answered yet, in arrival order.
	open  []actors.HostApprovalRequested
	shown string // "conversation\x00ids" the box shows, to rebuild only on change
}

func newHostCards(m *MainWindow) *hostCards {
	h := &hostCards{m: m, box: container.NewVBox()}
	h.box.Hide()
	return h
}

// onEvent follows the requests and their answers; on the UI goroutine.
func (h *hostCards) onEvent(ev actors.Event) {
	switch e := ev.(type) {
	case actors.HostApprovalRequested:
		h.open = append(h.open, e)
		title := "Phoenix Desktop"
		if cs := h.m.convs[e.ConvID]; cs != nil {
			title = transcript.Title(cs.conv.Title, cs.conv.Cwd)
		}
		if len(e.Many) > 0 {
			h.m.notify(e.ConvID, title, manyHostsText(e.Many))
		} else {
			h.m.notify(e.ConvID, title, hostCardText(e.Host, e.Port)+": allow it?")
		}
	case actors.HostApprovalAnswered:
		h.open = slices.DeleteFunc(h.open, func(r actors.HostApprovalRequested) bool { return r.RequestID == e.RequestID })
	}
	h.refresh()
	h.m.composer.refresh() // it says whether the agent waits for the person
}

// current lists the open requests of the conversation on screen.
func (h *hostCards) current() []actors.HostApprovalRequested {
	if h.m.current == nil {
		return nil
	}
	var out []actors.HostApprovalRequested
	for _, r := range h.open {
		if r.ConvID == h.m.current.id {
			out = append(out, r)
		}
	}
	return out
}

// refresh shows the cards of the conversation on screen, rebuilding them only when that set
// changed (it is called with every refresh of the window).
func (h *hostCards) refresh() {
	reqs := h.current()
	key := ""
	if h.m.current != nil {
		key = h.m.current.id
	}
	for _, r := range reqs {
		key += "\x00" + r.RequestID
	}
	if key == h.shown {
		return
	}
	h.shown = key
	h.box.RemoveAll()
	for _, r := range reqs {
		h.box.Add(h.card(r))
	}
	h.box.Hidden = len(reqs) == 0
	h.box.Refresh()
}

func (h *hostCards) card(r actors.HostApprovalRequested) fyne.CanvasObject {
	title := widget.NewLabelWithStyle(hostCardText(r.Host, r.Port), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.Wrapping = fyne.TextWrapWord
	explain := widget.NewLabel("A command in Project mode asks to connect through the proxy. " +
		"\"Always\" adds the host to this project's allowed list (Settings → Allowed hosts…).")
	explain.Wrapping = fyne.TextWrapWord
	var buttons []*button.Button
	answer := func(d actors.HostDecision) func() {
		return func() {
			for _, b := range buttons {
				b.Disable()
			}
			h.answer(r, d, func() {
				for _, b := range buttons {
					b.Enable()
				}
			})
		}
	}
	if len(r.Many) > 0 {
		title.SetText(manyHostsText(r.Many))
		explain.SetText("It may be scanning the network or be set up wrongly. \"Deny all\" refuses these and any other new host for a minute; " +
			"\"Ask about each\" shows a card for every host.")
		each := button.NewWithIcon(hostAskEachLabel, theme.QuestionIcon(), answer(actors.HostAllowOnce))
		denyAll := button.NewWithIcon(hostDenyAllLabel, theme.CancelIcon(), answer(actors.HostDeny))
		denyAll.Importance = widget.HighImportance
		buttons = []*button.Button{each, denyAll}
		return widget.NewCard("", "", container.NewVBox(title, explain, container.NewHBox(each, denyAll)))
	}
	once := button.NewWithIcon(hostAllowOnceLabel, theme.ConfirmIcon(), answer(actors.HostAllowOnce))
	always := button.NewWithIcon(hostAllowAlwaysLabel, theme.ConfirmIcon(), answer(actors.HostAllowAlways))
	deny := button.NewWithIcon(hostDenyLabel, theme.CancelIcon(), answer(actors.HostDeny))
	deny.Importance = widget.HighImportance
	buttons = []*button.Button{once, always, deny}
	return widget.NewCard("", "", container.NewVBox(title, explain, container.NewHBox(once, always, deny)))
}

// answer sends the person's decision; AnswerHost returns at once, and the card closes with
// the HostApprovalAnswered that follows. A request that ended meanwhile just closes.
func (h *hostCards) answer(r actors.HostApprovalRequested, d actors.HostDecision, onErr func()) {
	err := h.m.b.AnswerHost(r.RequestID, d)
	switch {
	case errors.Is(err, actors.ErrNoHostRequest):
		h.onEvent(actors.HostApprovalAnswered{ConvID: r.ConvID, RequestID: r.RequestID, Withdrawn: true})
	case err != nil:
		onErr()
		h.m.showInline(fmt.Sprintf("Could not answer for %s: %v.", hostPort(r.Host, r.Port), err))
	}
}

// --- Settings → Allowed hosts… ----------------------------------------------------------

// hostSettingsItem is the Settings row that opens the allowed hosts of each project.
func (m *MainWindow) hostSettingsItem() *widget.FormItem {
	open := button.New("Allowed hosts…", func() { m.showHostSettings() })
	hint := "Hosts Project-mode commands may reach, per project"
	if !m.hostsRunning() {
		open.Disable()
		hint = "No network proxy runs in this session"
	}
	return &widget.FormItem{Text: "Network", Widget: open, HintText: hint}
}

// hostsRunning is whether Settings can show the allowed hosts: there are Deps.Hosts and,
// where they can say so (the runtime, whose proxy starts on first use, so not before the
// window is on screen), a proxy runs.
func (m *MainWindow) hostsRunning() bool {
	if m.deps.Hosts == nil {
		return false
	}
	if a, ok := m.deps.Hosts.(interface{ HostRulesAvailable() bool }); ok {
		return a.HostRulesAvailable()
	}
	return true
}

// hostProjects are the projects Settings lists: the working directories of the person's
// conversations, the open one first.
func (m *MainWindow) hostProjects() []string {
	var out []string
	if m.current != nil {
		out = append(out, m.current.conv.Cwd)
	}
	for _, cs := range m.sidebar.convs {
		if cs.conv.Cwd != "" && !slices.Contains(out, cs.conv.Cwd) {
			out = append(out, cs.conv.Cwd)
		}
	}
	return out
}

// hostPanel is the Allowed hosts dialog: for each project, the package registries switch
// and its allowed hosts, each with Remove.
type hostPanel struct {
	m        *MainWindow
	rules    HostRules
	projects []string
	body     *fyne.Container
	message  *widget.Label
	// adds are the fields that allow a new host, one per project.
	adds []*widget.Entry
}

// showHostSettings opens the Allowed hosts dialog and returns its panel (nil without rules).
func (m *MainWindow) showHostSettings() *hostPanel {
	if !m.hostsRunning() {
		return nil
	}
	p := &hostPanel{m: m, rules: m.deps.Hosts, projects: m.hostProjects(), body: container.NewVBox(), message: widget.NewLabel("")}
	p.message.Wrapping = fyne.TextWrapWord
	head := widget.NewLabel("In Project mode a command reaches the network only through the app's proxy, and only the hosts allowed here (or once, when you answer its card). An empty list allows nothing; *.example.org allows its subdomains.")
	head.Wrapping = fyne.TextWrapWord
	scroll := container.NewVScroll(container.NewVBox(head, p.body, p.message))
	scroll.SetMinSize(fyne.NewSize(600, 380))
	p.load()
	m.showModal(newCloseDialog("Allowed hosts", "Close", scroll, m.win))
	return p
}

// projectHosts is what the dialog shows of one project.
type projectHosts struct {
	project    string
	hosts      []string
	registries bool
}

// load reads the rules off the UI goroutine and shows them.
func (p *hostPanel) load() {
	projects := slices.Clone(p.projects)
	go func() {
		rows := make([]projectHosts, 0, len(projects))
		for _, pr := range projects {
			rows = append(rows, projectHosts{project: pr, hosts: p.rules.AllowedHosts(pr), registries: p.rules.Registries(pr)})
		}
		p.m.do(func() { p.show(rows) })
	}()
}

func (p *hostPanel) show(rows []projectHosts) {
	p.body.RemoveAll()
	p.adds = nil
	if len(rows) == 0 {
		p.body.Add(widget.NewLabel("No projects yet: the list fills as you work in Project mode."))
	}
	for _, r := range rows {
		r := r
		p.body.Add(widget.NewLabelWithStyle(r.project, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
		reg := widget.NewCheck("Package registries (read from your own Go, npm, pip, apt and cargo settings, never the project's)", nil)
		reg.SetChecked(r.registries)
		reg.OnChanged = func(on bool) {
			p.change("change the package registries", func() error { return p.rules.SetRegistries(r.project, on) })
		}
		p.body.Add(reg)
		if src := p.m.deps.RegistrySources; len(src) > 0 {
			reads := widget.NewLabel("The switch reads:\n" + strings.Join(src, "\n"))
			reads.Wrapping = fyne.TextWrapWord
			reads.Importance = widget.LowImportance
			p.body.Add(reads)
		}
		if len(r.hosts) == 0 {
			p.body.Add(widget.NewLabel("No hosts allowed."))
		}
		for _, host := range r.hosts {
			host := host
			remove := button.NewWithIcon("Remove", theme.DeleteIcon(), func() {
				p.change("remove "+host, func() error { return p.rules.RemoveHost(r.project, host) })
			})
			p.body.Add(container.NewBorder(nil, nil, nil, remove, widget.NewLabel(host)))
		}
		// A host can be added here too, not only by answering a command's card (issue 41).
		add := widget.NewEntry()
		add.SetPlaceHolder("a host, e.g. example.org or *.example.org")
		allow := button.NewWithIcon("Allow", theme.ContentAddIcon(), func() {
			if h := strings.TrimSpace(add.Text); h != "" {
				p.change("allow "+h, func() error { return p.rules.AddHost(r.project, h) })
			}
		})
		add.OnSubmitted = func(string) { allow.OnTapped() }
		p.adds = append(p.adds, add)
		p.body.Add(container.NewBorder(nil, nil, nil, allow, add))
		p.body.Add(widget.NewSeparator())
	}
	p.body.Refresh()
}

// change runs one edit off the UI goroutine, then shows the rules again, or why it failed.
func (p *hostPanel) change(what string, do func() error) {
	go func() {
		err := do()
		p.m.do(func() {
			if err != nil {
				p.message.SetText(fmt.Sprintf("Could not %s: %v.", what, err))
				return
			}
			p.message.SetText("")
			p.load()
		})
	}()
}
