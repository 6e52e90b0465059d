package ui

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/transcript"
	"github.com/phoenix-desktop/phoenix/ui/button"
)

// header is the top of the right pane: the open conversation's title and working directory,
// its mode badge with the switches down, the note when Landlock is missing, and the context
// meter with "Wrap up now". The window places its three rows (box, landlockNote, meterRow)
// around the project controls.
type header struct {
	m        *MainWindow
	box      *fyne.Container
	title    *widget.Label
	subtitle *widget.Label
	// folded puts the subtitle on the title's row, in a window too low for two
	// (smallscreen.go).
	folded       bool
	mode         *badge
	switchBtn    *button.Button
	projectBtn   *button.Button
	worktreeBtn  *button.Button
	switchBox    *fyne.Container
	landlockNote *widget.Label
	meter        *meter
	meterLabel   *widget.Label
	wrapBtn      *button.Button
	changesBtn   *button.Button
	meterRow     *fyne.Container
	// detailsText is the text of the badge's details dialog last opened (tests read it).
	detailsText *widget.Label
}

func newHeader(m *MainWindow) *header {
	h := &header{m: m}
	h.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	h.title.Truncation = fyne.TextTruncateEllipsis
	h.subtitle = widget.NewLabel("")
	h.subtitle.Truncation = fyne.TextTruncateEllipsis
	h.subtitle.SizeName = theme.SizeNameCaptionText
	h.mode = newBadge()
	h.mode.onTap = h.showSandboxDetails
	h.switchBtn = button.New("Switch to Restricted", func() { m.downgrade(domain.ModeRestricted) })
	h.projectBtn = button.New("Switch to Project", func() { m.downgrade(domain.ModeProject) })
	h.switchBox = container.NewCenter(container.NewHBox(h.projectBtn, h.switchBtn))
	h.worktreeBtn = newWorktreeButton(m)
	// The Changes view of the last turn (reviewpane.go).
	h.changesBtn = button.NewWithIcon("Changes", theme.ListIcon(), func() { m.rv.openCurrent() })
	h.changesBtn.Importance = widget.LowImportance
	h.box = container.NewBorder(nil, nil, nil, container.NewHBox(container.NewCenter(h.worktreeBtn), container.NewCenter(h.changesBtn), container.NewCenter(m.demo.header), container.NewCenter(h.mode), h.switchBox),
		container.New(&column{Gap: -pad() * 2}, h.title, h.subtitle))
	h.landlockNote = widget.NewLabel("")
	h.landlockNote.Wrapping = fyne.TextWrapWord
	h.landlockNote.Importance = widget.WarningImportance
	h.meter = newMeter()
	h.meterLabel = widget.NewLabel("")
	h.meterLabel.SizeName = theme.SizeNameCaptionText
	h.wrapBtn = button.NewWithIcon("Wrap up now", theme.MailForwardIcon(), m.wrapUp)
	h.wrapBtn.Importance = widget.WarningImportance
	h.meterRow = container.NewBorder(nil, nil, nil, container.NewHBox(h.meterLabel, h.wrapBtn), h.meter)
	return h
}

// refresh shows the open conversation (or hides the rows that need one).
func (h *header) refresh() {
	m := h.m
	m.refreshModeMenu()
	// Until the probe has answered (after the window is shown), nothing is said: the note
	// is for a machine that lacks Landlock, not for one still being asked.
	if m.sandboxKnown && !m.sandbox.Available {
		reason := m.sandbox.Reason
		if reason == "" {
			reason = "this kernel does not support it"
		}
		setText(h.landlockNote, "Landlock is unavailable ("+strings.TrimSuffix(reason, ".")+"): Restricted mode cannot be enforced, so conversations run Unrestricted.")
		h.landlockNote.Show()
	} else {
		h.landlockNote.Hide()
	}
	cs := m.current
	if cs == nil {
		m.setTitle(AppTitle)
		h.box.Hide()
		h.meterRow.Hide()
		return
	}
	c := cs.conv
	h.box.Show()
	m.setTitle(AppTitle + " — " + transcript.Title(c.Title, c.Cwd))
	title := transcript.Title(c.Title, c.Cwd)
	sub := transcript.Place(c) + " · " + m.b.ModelLabel(c.Model)
	if w := c.Worktree; w != nil {
		sub = transcript.Place(c) + " · worktree of " + shortPath(w.Repo) + " on " + w.Branch + ", from " + w.Base + " · " + m.b.ModelLabel(c.Model)
	}
	if c.ContinuedFrom != "" {
		if from := m.convs[c.ContinuedFrom]; from != nil {
			sub += " · continues “" + transcript.Title(from.conv.Title, from.conv.Cwd) + "”"
		} else {
			sub += " · continues an earlier conversation"
		}
	}
	setText(h.subtitle, sub)
	h.subtitle.Hidden = h.folded
	if h.folded {
		title += " · " + sub
	}
	setText(h.title, title)
	if text, color := c.Mode.Title(), modeColor(c.Mode); h.mode.text != text || h.mode.color != color {
		h.mode.set(text, color)
	}
	m.refreshWorktreeButton(h.worktreeBtn)
	// Switching down is offered from any mode above Restricted, to every mode below it.
	h.switchBox.Hidden = !m.sandboxKnownAvailable() || c.Mode.Rank() == domain.ModeRestricted.Rank()
	h.projectBtn.Hidden = c.Mode.Rank() <= domain.ModeProject.Rank()
	h.changesBtn.Hidden = !m.rv.enabled() || c.IsSubAgent()
	// What was shown or hidden above is laid out by relayout, which the window runs after
	// every refresh of its parts; the texts refreshed themselves where they changed.
	h.refreshMeter(cs)
}

// refreshMeter shows how full the context window is, and offers the wrap-up near the top.
func (h *header) refreshMeter(cs *convState) {
	c := cs.conv
	window := c.ContextWindow
	if window <= 0 {
		window = domain.ContextWindowFor(c.Model)
	}
	h.meter.set(c.Usage, window)
	label := meterText(c.Usage, window) + costText(c.Usage, c.Spent)
	_, exhausted := cs.exhausted()
	warn := domain.AtWarning(c.Usage, window) && !exhausted
	h.m.refreshWrapUpMenu()
	if warn {
		label = "Context nearly full: " + label
	}
	importance := widget.MediumImportance
	if warn {
		importance = widget.WarningImportance
	}
	if h.meterLabel.Text != label || h.meterLabel.Importance != importance {
		h.meterLabel.Text, h.meterLabel.Importance = label, importance
		h.meterLabel.Refresh()
	}
	h.wrapBtn.Hidden = !wrapUpOffered(cs)
	if cs.busy() {
		h.wrapBtn.Disable()
	} else {
		h.wrapBtn.Enable()
	}
	h.meterRow.Hidden = h.m.meterFolded() // findsmall.go; laid out by relayout
}

// wrapUpOffered reports whether "Wrap up now" is offered (the header's button and the menu's
// item): past the 80% warning, in a conversation that is not already wrapping up or wrapped
// up. Under it, a wrap-up would end a conversation that still has room (REQ-BED-023).
func wrapUpOffered(cs *convState) bool {
	// Not while the history loads: the person cannot yet see what they would wrap up.
	if cs == nil || !cs.loaded || !domain.AtWarning(cs.conv.Usage, cs.conv.Window()) {
		return false
	}
	if _, exhausted := cs.exhausted(); exhausted {
		return false
	}
	_, continuing := cs.conv.State.(domain.AwaitingContinuation)
	return !continuing
}

// modeColor is the badge's colour: calm for Restricted, the primary colour for Project, a
// warning for Unrestricted.
func modeColor(mode domain.Mode) fyne.ThemeColorName {
	switch mode {
	case domain.ModeUnrestricted:
		return theme.ColorNameWarning
	case domain.ModeProject:
		return theme.ColorNamePrimary
	}
	return theme.ColorNameSuccess
}

// sandboxDetails is what the mode badge's details say: the conversation's mode, then which
// layers of the sandbox this machine has and why any is missing (the same report as
// `phoenix-desktop doctor`).
func (h *header) sandboxDetails() string {
	m := h.m
	head := "This conversation is Restricted: its commands can read your files but change nothing outside their private temp dir, and reach no network."
	if m.current != nil && m.current.conv.Mode == domain.ModeUnrestricted {
		head = "This conversation is Unrestricted: its commands run without the sandbox (a supervisor still ends every process they start)."
	}
	if m.current != nil && m.current.conv.Mode == domain.ModeProject {
		var hosts []string
		if m.deps.Hosts != nil {
			hosts = m.deps.Hosts.AllowedHosts(m.current.conv.Cwd)
		}
		head = "This conversation is in Project mode. " + actors.ProjectSummary(len(hosts))
		if len(hosts) > 0 {
			head += "\nAllowed hosts: " + strings.Join(hosts, ", ")
		}
	}
	if m.current != nil && m.deps.LanguageServers != nil {
		if servers := actors.LanguageServersText(m.deps.LanguageServers(m.current.conv.ID)); servers != "" {
			head += "\n\n" + servers
		}
	}
	if m.current != nil && m.current.conv.Host != "" {
		// Not this machine's sandbox: the host's, which the dialog asks for (remotebadge.go).
		return head + "\n\n" + remoteSandboxAsking(m.current.conv.Host)
	}
	// The report's own summary describes Restricted mode; the head above already says what
	// this conversation's mode allows, and the dialog describes only that one (issue 36).
	report := m.sandboxStatus()
	report.Summary = ""
	return head + "\n\n" + report.String()
}

func (h *header) showSandboxDetails() {
	details := h.sandboxDetails()
	text := widget.NewLabel(details)
	text.Wrapping = fyne.TextWrapWord
	h.detailsText = text
	scroll := container.NewVScroll(text)
	scroll.SetMinSize(fyne.NewSize(560, 360))
	title := "Sandbox on this machine"
	if cs := h.m.current; cs != nil && cs.conv.Host != "" {
		title = "Sandbox on " + cs.conv.Host
		h.askRemoteSandbox(cs.conv.Host, strings.TrimSuffix(details, "\n\n"+remoteSandboxAsking(cs.conv.Host)), text)
	}
	h.m.showModal(newCloseDialog(title, "Close", scroll, h.m.win))
}
