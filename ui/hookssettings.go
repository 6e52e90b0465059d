package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/ui/button"
)

// HooksBackend is the part of the command API behind Settings → Hooks: the person's hooks
// file, and the open conversation's project hooks with their approval. *actors.Runtime
// satisfies it; a Backend without it shows the line disabled.
type HooksBackend interface {
	HooksFile() string
	HooksText() (string, error)
	SaveHooks(text string) ([]string, error)
	// ProjectHooks reads a project's hooks in the folder cwd on host ("" for this machine;
	// a remote project's are read there, which can fail).
	ProjectHooks(ctx context.Context, host, cwd string) (actors.ProjectHooks, error)
	AllowProjectHooks(ctx context.Context, host, cwd, fingerprint string) error
}

var _ HooksBackend = (*actors.Runtime)(nil)

// hooksPanel is the Hooks dialog: the person's hooks.json, edited as text (the shape Claude
// Code, Codex and crush share, so a file from one of them can be pasted in), and the working
// directory's project hooks, which run only once allowed as shown.
type hooksPanel struct {
	m   *MainWindow
	b   HooksBackend
	cwd string
	// host is the open conversation's project's machine ("" for this one).
	host    string
	dlg     *dialog.CustomDialog
	text    *escEntry
	message *widget.Label
	// mine lists the person's hooks, each with the walls it runs under and its "runs as me"
	// switch, as the text in the editor has them.
	mine    *fyne.Container
	project *fyne.Container
	allow   *button.Button
	shown   actors.ProjectHooks
	// saved is the text as read or last saved: Close asks before discarding edits to it.
	saved      string
	discardDlg *confirmDialog
}

// hooksSettingsItem is the Settings dialog's line that opens the Hooks dialog.
func (m *MainWindow) hooksSettingsItem() *widget.FormItem {
	open := button.New("Hooks…", m.showHooksSettings)
	hint := "Programs run before and after tool calls, on prompts, at the end of a turn"
	if _, ok := m.b.(HooksBackend); !ok {
		open.Disable()
		hint = "Unavailable"
	}
	return &widget.FormItem{Text: "Hooks", Widget: open, HintText: hint}
}

func (m *MainWindow) showHooksSettings() {
	b, ok := m.b.(HooksBackend)
	if !ok {
		return
	}
	p := &hooksPanel{m: m, b: b}
	if m.current != nil {
		p.cwd, p.host = m.current.conv.Cwd, m.current.conv.Host
	}
	p.text = newEscMultiLineEntry()
	p.text.SetMinRowsVisible(10)
	p.text.SetPlaceHolder(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/check.sh", "timeout": 30}]}]}}`)
	p.text.onEscape = p.close
	p.message = widget.NewLabel("")
	p.message.Wrapping = fyne.TextWrapWord
	p.project = container.NewVBox()
	p.allow = button.New("Allow these project hooks", p.allowProject)
	save := button.New("Save my hooks", p.save)
	save.Importance = widget.HighImportance
	head := widget.NewLabel(fmt.Sprintf("Your hooks (%s) run under the conversation's walls, like its commands: in Restricted mode they read but do not write, in Project mode they write the project and reach the hosts you allowed. A hook gets the event as JSON on stdin; exit status 2 refuses (its stderr is the reason the model sees); the default timeout is 60 s.", b.HooksFile()))
	head.Wrapping = fyne.TextWrapWord
	p.mine = container.NewVBox()
	p.text.OnChanged = func(string) { p.drawMine() }
	content := container.NewVBox(head, p.text, container.NewBorder(nil, nil, nil, save, p.message), p.mine, widget.NewSeparator(), p.project)
	p.dlg = dialog.NewCustomWithoutButtons("Hooks", container.NewVScroll(content), m.win)
	p.dlg.SetButtons([]fyne.CanvasObject{button.New("Close", p.close)})
	p.dlg.Resize(fyne.NewSize(760, 600))
	m.hooksPanel = p
	go func() {
		text, err := b.HooksText()
		proj := actors.ProjectHooks{}
		var projErr error
		if p.cwd != "" {
			proj, projErr = b.ProjectHooks(context.Background(), p.host, p.cwd)
		}
		m.do(func() {
			switch {
			case err != nil:
				p.message.SetText("Could not read your hooks: " + err.Error())
			case projErr != nil:
				p.message.SetText(sentence(projErr))
			}
			p.text.SetText(text)
			p.drawMine()
			p.saved = text
			p.drawProject(proj)
		})
	}()
	m.showModal(p.dlg)
}

func (p *hooksPanel) save() {
	text := p.text.Text
	go func() {
		notes, err := p.b.SaveHooks(text)
		p.m.do(func() {
			switch {
			case err != nil:
				p.message.SetText(err.Error() + ". Nothing was saved; your text is still here.")
			case len(notes) > 0:
				p.message.SetText("Saved. Some of it is not used: " + strings.Join(notes, "; "))
			default:
				p.message.SetText("Saved. The next event uses them.")
			}
			if err == nil {
				p.saved = text
			}
		})
	}()
}

func (p *hooksPanel) drawProject(proj actors.ProjectHooks) {
	p.shown = proj
	p.project.Objects = p.project.Objects[:0]
	if p.cwd == "" {
		p.project.Objects = append(p.project.Objects, widget.NewLabel("Open a conversation to see its project's hooks."))
		p.project.Refresh()
		return
	}
	where := p.cwd
	if p.host != "" {
		where = p.cwd + " on " + p.host
		mine := widget.NewLabel(fmt.Sprintf(remoteMineText, p.host))
		mine.Wrapping = fyne.TextWrapWord
		p.project.Objects = append(p.project.Objects, mine)
	}
	if len(proj.Files) == 0 {
		p.project.Objects = append(p.project.Objects, widget.NewLabel("The project in "+where+" has no hooks."))
		p.project.Refresh()
		return
	}
	state := "They do not run until you allow exactly these; a change to the files needs a new approval."
	if p.host != "" {
		state = "They do not run until you allow exactly these, for this folder on " + p.host + " only; a change to the files needs a new approval."
	}
	if proj.Allowed {
		state = "Allowed: they run under the conversation's mode, in the sandbox where it is Restricted."
		if p.host != "" {
			state = "Allowed: they run on " + p.host + ", under the conversation's mode there."
		}
	}
	l := widget.NewLabel(fmt.Sprintf("Project hooks of %s (%s). %s", where, strings.Join(proj.Files, ", "), state))
	l.Wrapping = fyne.TextWrapWord
	p.project.Objects = append(p.project.Objects, l)
	var lines []string
	for ev, groups := range proj.Config.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				m := g.Matcher
				if m == "" {
					m = "*"
				}
				lines = append(lines, fmt.Sprintf("%s  %s  %s", ev, m, h.Command))
			}
		}
	}
	slices.Sort(lines)
	code := widget.NewLabel(strings.Join(lines, "\n"))
	code.TextStyle = fyne.TextStyle{Monospace: true}
	code.Wrapping = fyne.TextWrapBreak
	p.project.Objects = append(p.project.Objects, code)
	for _, n := range proj.Notices {
		nl := widget.NewLabel("! " + n)
		nl.Wrapping = fyne.TextWrapWord
		p.project.Objects = append(p.project.Objects, nl)
	}
	if !proj.Allowed {
		p.project.Objects = append(p.project.Objects, p.allow)
	}
	p.project.Refresh()
}

func (p *hooksPanel) allowProject() {
	host, cwd, fp := p.host, p.cwd, p.shown.Fingerprint
	go func() {
		err := p.b.AllowProjectHooks(context.Background(), host, cwd, fp)
		proj, readErr := p.b.ProjectHooks(context.Background(), host, cwd)
		p.m.do(func() {
			switch {
			case err != nil:
				p.message.SetText("Not allowed: " + err.Error())
			case readErr != nil:
				p.message.SetText(sentence(readErr))
			}
			p.drawProject(proj)
		})
	}()
}

// remoteMineText says where the person's hooks run for a conversation on another machine.
const remoteMineText = "This conversation's project is on %s: your hooks run on this machine, where their programs are, in an empty temporary folder ($PHOENIX_REMOTE_HOST and $CLAUDE_PROJECT_DIR name the machine and the folder there); without \"Runs as me\" they read this machine but write nothing and have no network. The project's hooks run there."

// runAsMeLabel is the switch's words: what "runs as me" means, and what protects it.
const runAsMeLabel = "Runs as me: outside the walls, with my files, keys and network — refused once the agent has changed what it runs"

// drawMine lists the hooks of the editor's text, each with the walls it runs under and the
// switch that lets it run as the person. The switch edits the text; Save keeps it.
func (p *hooksPanel) drawMine() {
	p.mine.Objects = p.mine.Objects[:0]
	cfg, err := actors.ParseHooks(p.text.Text)
	if err != nil || cfg.Count() == 0 {
		p.mine.Refresh()
		return
	}
	for _, l := range cfg.List() {
		line := widget.NewLabel(fmt.Sprintf("%s  %s  %s — runs %s", l.Event, l.Matcher, l.Hook.Command, l.Hook.Walls(false)))
		line.Wrapping = fyne.TextWrapWord
		ev, command := l.Event, l.Hook.Command
		sw := widget.NewCheck(runAsMeLabel, nil)
		sw.SetChecked(l.Hook.RunAsMe)
		sw.OnChanged = func(on bool) {
			text, err := actors.SetHookRunAsMe(p.text.Text, ev, command, on)
			if err != nil {
				p.message.SetText(err.Error())
				return
			}
			p.text.SetText(text) // redraws this list through OnChanged
			p.message.SetText("Not saved yet: Save my hooks to use it.")
		}
		p.mine.Objects = append(p.mine.Objects, line, sw)
	}
	p.mine.Refresh()
}
