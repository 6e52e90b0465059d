package ui

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/providers"
	"github.com/phoenix-desktop/phoenix/ui/button"
)

// This file is the first run (issue 28): while no provider is configured the window opens on
// a welcome card instead of "No conversation is open". It offers the provider presets (the
// providers table), a field for the key (saved through the same path as Settings), a "Test
// connection" that sends one small real request (Deps.Probe), and the offline demo with
// example prompts that start a conversation with the demo model. The "Demo (offline)" chips
// in the header and the status bar say wherever the demo model answers.

// demoPrompt is an example the welcome card offers: Label on the button, Text sent to the
// demo model, which reads it as a small program (llm/fakellm/doc.go): its first line is
// prose, the lines after it are the script's steps, shown in the message as they are.
type demoPrompt struct{ Label, Text string }

// demoPrompts are the welcome card's examples. None writes a file: the demo runs in the
// person's folder.
var demoPrompts = []demoPrompt{
	{"List the files in this folder", "List the files in this folder.\nbash: ls -la"},
	{"Show how a thinking model reasons", "Think before you answer.\nreason: The person wants to see how the reasoning of a thinking model is shown, so I think first and answer after.\necho: This answer came after the reasoning shown above it, which you can fold away."},
	{"Ask me for write access", "Ask me before you change anything.\nupgrade: I would like to edit files in this folder (the demo only asks; it writes nothing)\necho: That is how I ask for more access: the card lets you allow edits in this project, allow everything, or keep me read-only."},
}

// probeTimeout bounds "Test connection": a small request that has not answered by then will
// not answer a conversation either.
const probeTimeout = 30 * time.Second

// welcomeCard is the first-run card; tests reach its widgets.
type welcomeCard struct {
	m        *MainWindow
	obj      fyne.CanvasObject
	preset   *widget.Select
	key      *escEntry
	test     *button.Button
	save     *button.Button
	result   *widget.Label
	examples []*button.Button
	busy     bool
}

// startState is what the chat area shows while no conversation is open: the welcome card on
// a first run, else the empty state.
func (m *MainWindow) startState() fyne.CanvasObject {
	if !m.deps.FirstRun {
		return m.emptyState()
	}
	m.welcome = newWelcomeCard(m)
	return m.welcome.obj
}

func newWelcomeCard(m *MainWindow) *welcomeCard {
	w := &welcomeCard{m: m}
	title := widget.NewLabelWithStyle("Welcome to Phoenix Desktop", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.SizeName = theme.SizeNameSubHeadingText
	kept := "in a file only you can read"
	if _, prefs := m.keys().(prefKeys); prefs {
		kept = "in the app's preferences file"
	} else if m.keys().Secure() {
		kept = "in your desktop's keyring"
	}
	intro := hintLabel("The agent needs a model provider. Choose one and paste its API key: it is kept " + kept + ", as Settings keeps it. Or try the offline demo first: it needs no key and no network.")
	intro.Importance = widget.MediumImportance
	intro.SizeName = theme.SizeNameText

	labels := make([]string, 0, len(providers.All()))
	for _, p := range providers.All() {
		labels = append(labels, p.Label)
	}
	w.key = newEscPasswordEntry()
	w.test = button.NewWithIcon("Test connection", theme.ViewRefreshIcon(), w.testConnection)
	w.save = button.NewWithIcon("Save and start", theme.ConfirmIcon(), w.saveKey)
	w.save.Importance = widget.HighImportance
	w.result = hintLabel("")
	w.preset = widget.NewSelect(labels, nil)
	w.preset.SetSelected(providers.Label(providers.Default))
	w.preset.OnChanged = func(string) { w.refresh() }
	w.key.OnChanged = func(string) { w.refresh() }
	w.key.OnSubmitted = func(string) { w.saveKey() }
	more := button.New("More settings…", m.showSettings)
	more.Importance = widget.LowImportance
	form := widget.NewForm(widget.NewFormItem("Provider", w.preset), widget.NewFormItem("API key", w.key))

	demoTitle := widget.NewLabelWithStyle("Try the offline demo", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	demoHint := hintLabel("A conversation with the built-in demo model, which follows simple scripts instead of thinking. Click an example:")
	examples := container.NewVBox()
	for _, p := range demoPrompts {
		b := button.NewWithIcon(p.Label, theme.MailSendIcon(), func() { w.startDemo(p) })
		b.Alignment = widget.ButtonAlignLeading
		w.examples = append(w.examples, b)
		examples.Add(b)
	}
	body := container.NewVBox(title, intro, form,
		container.NewHBox(w.test, w.save, more), w.result,
		widget.NewSeparator(), demoTitle, demoHint, examples)
	w.obj = container.NewVScroll(container.New(&welcomeLayout{width: 560}, body))
	w.refresh()
	return w
}

// welcomeLayout centres the card's column at a readable width, less where the window is
// narrow.
type welcomeLayout struct{ width float32 }

func (l *welcomeLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	h := float32(0)
	for _, o := range objs {
		h = max(h, o.MinSize().Height)
	}
	return fyne.NewSize(min(l.width, 320), h+2*theme.Padding())
}

func (l *welcomeLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	w := min(l.width, size.Width-2*theme.Padding())
	for _, o := range objs {
		o.Resize(fyne.NewSize(w, max(o.MinSize().Height, size.Height-2*theme.Padding())))
		o.Move(fyne.NewPos((size.Width-w)/2, theme.Padding()))
	}
}

// chosen is the preset selected, with the settings the card saves and tests: the preset's
// URL and first model, and the key typed.
func (w *welcomeCard) chosen() (providers.Preset, Settings) {
	p, _ := providers.Lookup(w.preset.Selected)
	return p, Settings{Preset: p.Name, BaseURL: p.BaseURL, Model: p.DefaultModel, APIKey: strings.TrimSpace(w.key.Text)}
}

// refresh enables what can be done with what is filled in.
func (w *welcomeCard) refresh() {
	p, s := w.chosen()
	if p.NeedsKey {
		w.key.SetPlaceHolder("Paste your " + p.Label + " API key")
	} else {
		w.key.SetPlaceHolder("Not needed for a local server")
	}
	ready := !w.busy && p.Name != "" && (s.APIKey != "" || !p.NeedsKey)
	enable(w.save, ready)
	enable(w.test, ready && w.m.deps.Probe != nil)
	for _, b := range w.examples {
		enable(b, !w.busy)
	}
}

func enable(b *button.Button, on bool) {
	if on {
		b.Enable()
	} else {
		b.Disable()
	}
}

// say shows the outcome of the last action under the buttons.
func (w *welcomeCard) say(text string, imp widget.Importance) {
	w.result.Importance = imp
	setHint(w.result, text)
}

// testConnection sends one small real request with what is filled in, off the UI goroutine.
func (w *welcomeCard) testConnection() {
	_, s := w.chosen()
	m := w.m
	if m.deps.Probe == nil || w.busy {
		return
	}
	w.busy = true
	w.refresh()
	w.say("Connecting…", widget.MediumImportance)
	go func() {
		ctx, cancel := context.WithTimeout(m.ctx, probeTimeout)
		defer cancel()
		got, err := m.deps.Probe(ctx, s)
		m.do(func() {
			w.busy = false
			w.refresh()
			if err != nil {
				w.say(fmt.Sprintf("Connection failed: %v", err), widget.DangerImportance)
				return
			}
			w.say(got+" Save and start to use it.", widget.SuccessImportance)
		})
	}()
}

// saveKey saves the provider and the key through Settings' path (the key store, then the
// preferences) and applies them; the card then gives way to the empty state.
func (w *welcomeCard) saveKey() {
	_, s := w.chosen()
	m := w.m
	if w.busy || w.save.Disabled() {
		return
	}
	change := keyKeep
	if s.APIKey != "" {
		change = keySet
	}
	w.busy = true
	w.refresh()
	w.say("Saving…", widget.MediumImportance)
	go func() {
		err := m.saveSettings(s, change)
		m.do(func() {
			w.busy = false
			w.refresh()
			if err == nil && m.deps.Apply != nil {
				err = m.deps.Apply(s)
			}
			if err != nil {
				w.say(fmt.Sprintf("The settings were not saved: %v", err), widget.DangerImportance)
				return
			}
			m.leaveWelcome()
		})
	}()
}

// leaveWelcome replaces the card by the empty state once a provider is set up.
func (m *MainWindow) leaveWelcome() {
	if m.welcome == nil {
		return
	}
	m.welcome = nil
	m.empty = m.emptyState()
	if m.current == nil {
		m.chatHolder.Objects = []fyne.CanvasObject{m.empty}
		m.chatHolder.Refresh()
	}
}

// startDemo creates a conversation with the demo model in the folder New conversation would
// offer, opens it and sends the example.
func (w *welcomeCard) startDemo(p demoPrompt) {
	m := w.m
	if w.busy {
		return
	}
	mode := domain.ModeRestricted
	if !m.sandboxStatus().Available {
		mode = domain.ModeUnrestricted
	}
	params := NewConversation{Cwd: m.demoDir(), Model: domain.DemoModel, Title: p.Label, Mode: mode}
	w.busy = true
	w.refresh()
	w.say("Starting the demo…", widget.MediumImportance)
	go func() {
		ctx, cancel := context.WithTimeout(m.ctx, callTimeout)
		defer cancel()
		conv, err := m.b.Create(ctx, params)
		if err == nil {
			err = m.b.Send(ctx, conv.ID, p.Text, nil)
		}
		m.do(func() {
			w.busy = false
			w.refresh()
			if err != nil {
				w.say(fmt.Sprintf("The demo could not start: %v", err), widget.DangerImportance)
				return
			}
			w.say("", widget.MediumImportance)
			m.openCreated(conv, "")
		})
	}()
}

// demoDir is where the demo's conversation works: the folder the app was started in from a
// terminal, else the last one used, else the home folder.
func (m *MainWindow) demoDir() string {
	if m.deps.StartDir != "" {
		return m.deps.StartDir
	}
	home, _ := os.UserHomeDir()
	return m.app.Preferences().StringWithFallback(prefLastCwd, home)
}

// demoChips are the "Demo (offline)" chips of the header and the status bar, shown while the
// open conversation's model is the demo.
type demoChips struct {
	m              *MainWindow
	header, status *badge
}

func newDemoChips(m *MainWindow) *demoChips {
	d := &demoChips{m: m, header: newBadge(), status: newBadge()}
	for _, b := range []*badge{d.header, d.status} {
		b.set(domain.DemoModelLabel, theme.ColorNameHyperlink)
		b.Hide()
	}
	return d
}

// refresh shows the chips when the open conversation's model is the demo.
func (d *demoChips) refresh() {
	on := d.m.current != nil && d.m.current.conv.Model == domain.DemoModel
	for _, b := range []*badge{d.header, d.status} {
		if b.Visible() != on {
			b.Hidden = !on
			b.Refresh()
		}
	}
}
