package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/transcript"
	"github.com/phoenix-desktop/phoenix/ui/button"
)

// MCPServers is the MCP part of Settings: the person's servers, their states, tools and
// stderr, and the servers a project's .mcp.json offers. *actors.MCPServers satisfies it.
// Every method but OnChange, ConfigPath, LoadError and Restricted may touch the disk or start
// a server, so the window calls them off the UI goroutine.
type MCPServers interface {
	ConfigPath() string
	LoadError() error
	Restricted() bool
	Statuses(cwd string) []actors.MCPStatus
	SetServer(name string, c actors.MCPServerConfig) error
	RemoveServer(name string) error
	SetEnabled(name string, enabled bool) error
	ProjectServers(cwd string) ([]actors.MCPProjectServer, error)
	AllowProjectServer(cwd, name string) error
	Check(ctx context.Context, name, cwd string, unrestricted bool) actors.MCPStatus
	OnChange(fn func()) (remove func())
	Retry(name string)
	SignIn(ctx context.Context, name, cwd string, open func(authURL string) error) error
}

// mcpPanel is the "MCP servers" dialog; tests reach its widgets.
type mcpPanel struct {
	m   *MainWindow
	mcp MCPServers
	cwd string // the open conversation's working directory, for its .mcp.json

	content  *fyne.Container
	scroll   *container.Scroll
	header   *widget.Label
	servers  *fyne.Container
	project  *fyne.Container
	message  *widget.Label
	dlg      dialog.Dialog
	statuses []actors.MCPStatus
	offered  []actors.MCPProjectServer

	// The "Add a server" form.
	name, command, url *escEntry
	args, env, headers *escEntry
	kind               *widget.RadioGroup
	add                *button.Button
}

const (
	mcpKindCommand = "Command (stdio)"
	mcpKindURL     = "URL (streamable HTTP)"
)

// mcpSettingsItem is the Settings dialog's line that opens the MCP servers dialog.
func (m *MainWindow) mcpSettingsItem() *widget.FormItem {
	open := button.New("MCP servers…", m.showMCPSettings)
	hint := "Tools from Model Context Protocol servers"
	if m.deps.MCP == nil {
		open.Disable()
		hint = "Off in this session (--no-mcp)"
	}
	return &widget.FormItem{Text: "MCP", Widget: open, HintText: hint}
}

// showMCPSettings opens the MCP servers dialog.
func (m *MainWindow) showMCPSettings() {
	if m.deps.MCP == nil {
		return
	}
	p := &mcpPanel{m: m, mcp: m.deps.MCP}
	if m.current != nil {
		p.cwd = m.current.conv.Cwd
	}
	p.header = widget.NewLabel("")
	p.header.Wrapping = fyne.TextWrapWord
	p.servers = container.NewVBox()
	p.project = container.NewVBox()
	p.message = widget.NewLabel("")
	p.message.Wrapping = fyne.TextWrapWord

	p.name = newEscEntry()
	p.name.SetPlaceHolder("name, e.g. files")
	p.kind = widget.NewRadioGroup([]string{mcpKindCommand, mcpKindURL}, func(string) { p.showKind() })
	p.kind.Horizontal = true
	p.command = newEscEntry()
	p.command.SetPlaceHolder("command, e.g. npx")
	p.args = newEscMultiLineEntry()
	p.args.SetPlaceHolder("arguments, one per line")
	p.args.SetMinRowsVisible(2)
	p.env = newEscMultiLineEntry()
	p.env.SetPlaceHolder("environment, one NAME=value per line")
	p.env.SetMinRowsVisible(2)
	p.url = newEscEntry()
	p.url.SetPlaceHolder("https://…/mcp")
	p.headers = newEscMultiLineEntry()
	p.headers.SetPlaceHolder("headers, one Name: value per line")
	p.headers.SetMinRowsVisible(2)
	p.add = button.New("Add server", p.addServer)
	p.kind.SetSelected(mcpKindCommand)
	// Escape in a field closes this dialog only: Settings, under it, stays open.
	for _, e := range p.entries() {
		e.onEscape = p.escape
	}

	// The form stays below the scrolled list, not in it: a text field under the pointer takes
	// the mouse wheel for itself (Fyne's entries scroll), so a list with the form in it stopped
	// scrolling as soon as a field passed under the pointer (seen in the real window).
	form := container.NewVBox(
		widget.NewSeparator(),
		container.NewBorder(nil, nil, widget.NewLabelWithStyle("Add a server", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), p.kind, p.name),
		p.command, container.NewGridWithColumns(2, p.args, p.env), p.url, p.headers,
		container.NewBorder(nil, nil, nil, p.add, p.message))
	p.content = container.NewVBox(p.header, p.servers, widget.NewSeparator(), p.project)
	p.scroll = container.NewVScroll(p.content)
	cd := dialog.NewCustomWithoutButtons("MCP servers", container.NewBorder(nil, form, nil, nil, p.scroll), m.win)
	// Close asks before dropping a server typed into the form and not added (discard.go).
	cd.SetButtons([]fyne.CanvasObject{button.New("Close", func() { m.dismiss(cd) })})
	p.dlg = cd
	p.dlg.Resize(fyne.NewSize(760, 600))
	m.mcpPanel = p
	p.dlg.SetOnClosed(p.mcp.OnChange(func() { m.do(p.reload) }))
	p.reload()
	m.showModal(p.dlg)
	m.guardModal(p.dlg, "the server you were adding", func() bool {
		for _, e := range p.entries() {
			if strings.TrimSpace(e.Text) != "" {
				return true
			}
		}
		return false
	})
}

// entries are the fields of the "Add a server" form.
func (p *mcpPanel) entries() []*escEntry {
	return []*escEntry{p.name, p.command, p.args, p.env, p.url, p.headers}
}

// escape closes the topmost dialog: this one, or one it opened (a server's tools, its
// stderr, the question before removing it).
func (p *mcpPanel) escape() { p.m.closeTopModal() }

func (p *mcpPanel) showKind() {
	url := p.kind.Selected == mcpKindURL
	for _, w := range []*escEntry{p.command, p.args, p.env, p.url, p.headers} {
		if (w == p.url || w == p.headers) == url {
			w.Show()
		} else {
			w.Hide()
		}
	}
}

// reload reads the statuses off the UI goroutine and redraws.
func (p *mcpPanel) reload() {
	m := p.m
	go func() {
		statuses := p.mcp.Statuses(p.cwd)
		var offered []actors.MCPProjectServer
		var projErr error
		if p.cwd != "" {
			offered, projErr = p.mcp.ProjectServers(p.cwd)
		}
		m.do(func() {
			p.statuses, p.offered = statuses, offered
			p.draw(projErr)
		})
	}()
}

func (p *mcpPanel) draw(projErr error) {
	var head []string
	if path := p.mcp.ConfigPath(); path != "" {
		head = append(head, "Servers are saved in "+path+".")
	} else {
		head = append(head, "The servers come from --mcp-config and cannot be edited here.")
	}
	if err := p.mcp.LoadError(); err != nil {
		head = append(head, "The file cannot be used, so no server starts: "+err.Error())
	}
	if p.mcp.Restricted() {
		head = append(head, "In Restricted conversations (and every sub-agent) a command server runs in the sandbox like bash: read-only, no network. URL servers are not reachable there; they work once you approve write access.")
	}
	p.header.SetText(strings.Join(head, "\n"))
	p.servers.Objects = nil
	if len(p.statuses) == 0 {
		p.servers.Add(widget.NewLabel("No MCP servers yet."))
	}
	for _, st := range p.statuses {
		p.servers.Add(p.serverCard(st))
	}

	p.project.Objects = nil
	if projErr != nil {
		l := widget.NewLabel("This project's .mcp.json cannot be used: " + projErr.Error())
		l.Importance = widget.DangerImportance
		l.Wrapping = fyne.TextWrapWord
		p.project.Add(l)
	}
	if len(p.offered) > 0 {
		p.project.Add(widget.NewLabelWithStyle("Offered by "+p.cwd+"/.mcp.json (they start only once you allow them for this directory)",
			fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
	}
	for _, o := range p.offered {
		o := o
		line := widget.NewLabel(fmt.Sprintf("%s — %s", o.Name, describeServer(o.Config)))
		line.Wrapping = fyne.TextWrapWord
		var action fyne.CanvasObject
		switch {
		case o.Shadowed:
			action = widget.NewLabel("your own server of this name is used")
		case o.Allowed:
			action = widget.NewLabel("allowed")
		default:
			action = button.New("Allow for this project", func() {
				p.run(func() error { return p.mcp.AllowProjectServer(p.cwd, o.Name) })
			})
		}
		p.project.Add(container.NewBorder(nil, nil, nil, action, line))
	}
	// The lists changed size: the whole scrolled content lays out again.
	p.content.Refresh()
	p.scroll.Refresh()
}

// describeServer is a server's command line or URL.
func describeServer(c actors.MCPServerConfig) string {
	c = c.Redacted() // a URL's password and query may hold tokens; the edit form shows them
	if c.IsURL() {
		return c.URL
	}
	return strings.TrimSpace(c.Command + " " + strings.Join(c.Args, " "))
}

func (p *mcpPanel) serverCard(st actors.MCPStatus) fyne.CanvasObject {
	title := widget.NewLabelWithStyle(st.Name, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	state := widget.NewLabel(string(st.State))
	switch st.State {
	case actors.MCPStateFailed, actors.MCPStateInvalid, actors.MCPStateNeedsSignIn, "unreachable in Restricted mode":
		state.Importance = widget.DangerImportance
	case "running", "ok":
		state.Importance = widget.SuccessImportance
	}
	if st.Running > 0 {
		state.SetText(string(st.State) + " in " + transcript.Count(st.Running, "conversation", "conversations"))
	}
	what := widget.NewLabel(st.Config.Kind() + ": " + describeServer(st.Config))
	what.Importance = widget.LowImportance
	what.Wrapping = fyne.TextWrapWord
	rows := []fyne.CanvasObject{container.NewHBox(title, state), what}
	if st.Config.IsURL() && p.mcp.Restricted() {
		note := widget.NewLabel("Not reachable from Restricted conversations (no network).")
		note.Importance = widget.WarningImportance
		rows = append(rows, note)
	}
	if st.Error != "" {
		e := widget.NewLabel(transcript.OneLine(st.Error, 300))
		e.Importance = widget.DangerImportance
		e.Wrapping = fyne.TextWrapWord
		rows = append(rows, e)
	}
	name := st.Name
	enabled := newEscCheck("Enabled")
	enabled.onEscape = p.escape
	enabled.SetChecked(st.Enabled)
	enabled.OnChanged = func(on bool) { p.run(func() error { return p.mcp.SetEnabled(name, on) }) }
	check := button.New("Check", nil)
	check.OnTapped = func() {
		check.Disable()
		check.SetText("Checking…")
		go func() {
			ctx, cancel := context.WithTimeout(p.m.ctx, 2*time.Minute)
			defer cancel()
			p.mcp.Check(ctx, name, p.cwd, false)
			p.m.do(p.reload)
		}()
	}
	tools := button.New(fmt.Sprintf("Tools (%d)", len(st.Tools)), func() { p.showTools(st) })
	if len(st.Tools) == 0 {
		tools.Disable()
	}
	stderr := button.New("Stderr", func() { p.showStderr(st) })
	if st.Stderr == "" {
		stderr.Disable()
	}
	remove := button.New("Remove", func() {
		p.m.showModal(newConfirm("Remove "+name+"?", "The server is removed from "+p.mcp.ConfigPath()+"; running conversations stop using it at their next request.",
			func(ok bool) {
				if ok {
					p.run(func() error { return p.mcp.RemoveServer(name) })
				}
			}, p.m.win))
	})
	if st.Project || p.mcp.ConfigPath() == "" {
		enabled.Disable()
		remove.Disable()
	}
	buttons := []fyne.CanvasObject{enabled, check, tools, stderr, remove}
	switch st.State {
	case actors.MCPStateInvalid:
		// Nothing to start until the entry is fixed in the file (or removed here).
		enabled.Disable()
		check.Disable()
	case actors.MCPStateFailed:
		// A failed start is remembered by each conversation; Retry lets them try again.
		buttons = append(buttons, button.New("Retry", func() { p.mcp.Retry(name) }))
	}
	if b := p.signInButton(st); b != nil {
		buttons = append(buttons, b)
	}
	rows = append(rows, container.NewHBox(buttons...), widget.NewSeparator())
	return container.NewVBox(rows...)
}

func (p *mcpPanel) showTools(st actors.MCPStatus) {
	var b strings.Builder
	for _, t := range st.Tools {
		if t.Skipped != "" {
			fmt.Fprintf(&b, "%s — not offered: %s\n", t.Name, t.Skipped)
		} else {
			fmt.Fprintf(&b, "%s%s — %s\n", t.Name, toolHint(t), t.Description)
		}
	}
	l := widget.NewLabel(strings.TrimSpace(b.String()))
	l.Wrapping = fyne.TextWrapWord
	d := newCloseDialog(st.Name+": tools", "Close", container.NewVScroll(l), p.m.win)
	d.Resize(fyne.NewSize(700, 480))
	p.m.showModal(d)
}

func (p *mcpPanel) showStderr(st actors.MCPStatus) {
	text := widget.NewLabel(st.Stderr)
	text.TextStyle.Monospace = true
	text.Wrapping = fyne.TextWrapBreak
	d := newCloseDialog(st.Name+": stderr", "Close", container.NewVScroll(text), p.m.win)
	d.Resize(fyne.NewSize(700, 480))
	p.m.showModal(d)
}

// run does one change off the UI goroutine and shows its error; the hub's change
// notification redraws the list.
func (p *mcpPanel) run(change func() error) {
	go func() {
		err := change()
		p.m.do(func() {
			if err != nil {
				p.message.Importance = widget.DangerImportance
				p.message.SetText(err.Error())
				p.reload()
				return
			}
			p.message.SetText("")
		})
	}()
}

// addServer turns the form into a server configuration and saves it.
func (p *mcpPanel) addServer() {
	name := strings.TrimSpace(p.name.Text)
	var c actors.MCPServerConfig
	var err error
	if p.kind.Selected == mcpKindURL {
		c.URL = strings.TrimSpace(p.url.Text)
		c.Headers, err = parsePairs(p.headers.Text, ":", "header")
	} else {
		c.Command = strings.TrimSpace(p.command.Text)
		c.Args = lines(p.args.Text)
		c.Env, err = parsePairs(p.env.Text, "=", "environment variable")
	}
	if err == nil && slices.ContainsFunc(p.statuses, func(st actors.MCPStatus) bool { return st.Name == name && !st.Project }) {
		err = fmt.Errorf("there is already a server named %s; remove it first or choose another name", name)
	}
	if err != nil {
		p.message.Importance = widget.DangerImportance
		p.message.SetText(err.Error())
		return
	}
	p.message.Importance = widget.MediumImportance
	p.message.SetText("Saving…")
	p.run(func() error {
		if err := p.mcp.SetServer(name, c); err != nil {
			return err
		}
		p.m.do(func() {
			for _, e := range p.entries() {
				e.SetText("")
			}
		})
		return nil
	})
}

// lines splits text into its non-empty, trimmed lines.
func lines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// parsePairs reads "NAME=value" (or "Name: value") lines.
func parsePairs(text, sep, what string) (map[string]string, error) {
	var out map[string]string
	for _, l := range lines(text) {
		k, v, ok := strings.Cut(l, sep)
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("%q is not a %s: write NAME%svalue", l, what, sep)
		}
		if out == nil {
			out = map[string]string{}
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out, nil
}

// toolHint shows a tool's annotations: what the server says it does to the world.
func toolHint(t actors.MCPToolInfo) string {
	switch {
	case t.ReadOnly:
		return " [read-only]"
	case t.Destructive:
		return " [may change or delete]"
	}
	return ""
}
