package ui

import (
	"context"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/ui/button"
)

// RemoteHostsBackend is the part of the command API behind Settings → Remote hosts: the hosts
// of the person's conversations on other machines, and Forget. *actors.Runtime satisfies it;
// a Backend without it shows the line disabled.
type RemoteHostsBackend interface {
	RemoteHosts(ctx context.Context) ([]string, error)
	ForgetHost(ctx context.Context, host string) error
}

var _ RemoteHostsBackend = (*actors.Runtime)(nil)

// remoteHostsSettingsItem is the Settings dialog's line that opens the Remote hosts dialog.
func (m *MainWindow) remoteHostsSettingsItem() *widget.FormItem {
	open := button.New("Remote hosts…", func() { m.showRemoteHosts() })
	hint := "Machines your conversations work on over SSH"
	if _, ok := m.b.(RemoteHostsBackend); !ok {
		open.Disable()
		hint = "Unavailable"
	}
	return &widget.FormItem{Text: "Remote hosts", Widget: open, HintText: hint}
}

// remoteHostsPanel lists the hosts used, each with Forget: the copy of Phoenix there is
// removed (the conversations stay, and copy it again on their next tool call).
type remoteHostsPanel struct {
	m       *MainWindow
	b       RemoteHostsBackend
	body    *fyne.Container
	message *widget.Label
}

// showRemoteHosts opens the dialog; it returns its panel (nil without the backend) for tests.
func (m *MainWindow) showRemoteHosts() *remoteHostsPanel {
	b, ok := m.b.(RemoteHostsBackend)
	if !ok {
		return nil
	}
	p := &remoteHostsPanel{m: m, b: b, body: container.NewVBox(), message: widget.NewLabel("")}
	p.message.Wrapping = fyne.TextWrapWord
	head := widget.NewLabel("Phoenix reaches these machines with your own ssh and keeps a copy of itself in ~/.cache/phoenix-desktop on each. Forget ends the connection and removes that copy.")
	head.Wrapping = fyne.TextWrapWord
	scroll := container.NewVScroll(container.NewVBox(head, p.body, p.message))
	scroll.SetMinSize(fyne.NewSize(560, 300))
	p.body.Add(widget.NewLabel("Reading…"))
	go func() {
		ctx, cancel := context.WithTimeout(m.ctx, callTimeout)
		defer cancel()
		hosts, err := b.RemoteHosts(ctx)
		m.do(func() { p.show(hosts, err) })
	}()
	m.showModal(newCloseDialog("Remote hosts", "Close", scroll, m.win))
	return p
}

func (p *remoteHostsPanel) show(hosts []string, err error) {
	p.body.RemoveAll()
	switch {
	case err != nil:
		p.body.Add(widget.NewLabel("The hosts could not be read: " + err.Error()))
	case len(hosts) == 0:
		p.body.Add(widget.NewLabel("None yet: a conversation on user@host:/path adds its host here."))
	}
	_, rules := p.m.b.(RemoteAllowedHostsBackend)
	for _, h := range hosts {
		forget := button.New("Forget", nil)
		forget.OnTapped = func() { p.forget(h, forget) }
		right := fyne.CanvasObject(forget)
		allowed := container.NewVBox()
		if rules {
			// Read on demand, not on opening: each host is one connection, and a host that is
			// down would keep the others waiting.
			show := button.New("Allowed hosts", nil)
			show.OnTapped = func() { p.loadAllowed(h, allowed) }
			right = container.NewHBox(show, forget)
		}
		p.body.Add(container.NewVBox(container.NewBorder(nil, nil, nil, right, widget.NewLabel(h)), allowed))
	}
	p.body.Refresh()
}

// RemoteAllowedHostsBackend is the part of the command API that reads and changes a remote
// host's allowed hosts (Project mode's "always" answers, kept on that host), through its
// agent. *actors.Runtime satisfies it; a Backend without it shows no such list.
type RemoteAllowedHostsBackend interface {
	RemoteAllowedHosts(ctx context.Context, host string) ([]actors.RemoteProjectHosts, error)
	RemoveRemoteAllowedHost(ctx context.Context, host, project, pattern string) error
}

var _ RemoteAllowedHostsBackend = (*actors.Runtime)(nil)

// loadAllowed reads a host's allowed hosts there and shows them in box, each with Forget.
func (p *remoteHostsPanel) loadAllowed(host string, box *fyne.Container) {
	b := p.m.b.(RemoteAllowedHostsBackend)
	box.RemoveAll()
	box.Add(widget.NewLabel("Reading the allowed hosts on " + host + "…"))
	box.Refresh()
	go func() {
		ctx, cancel := context.WithTimeout(p.m.ctx, callTimeout)
		defer cancel()
		projects, err := b.RemoteAllowedHosts(ctx, host)
		p.m.do(func() { p.showAllowed(host, box, projects, err) })
	}()
}

func (p *remoteHostsPanel) showAllowed(host string, box *fyne.Container, projects []actors.RemoteProjectHosts, err error) {
	box.RemoveAll()
	note := func(text string) {
		l := widget.NewLabel(text)
		l.Wrapping = fyne.TextWrapWord
		box.Add(l)
	}
	switch {
	case err != nil:
		note("The allowed hosts on " + host + " could not be read: " + err.Error())
	case len(projects) == 0:
		note("No project on " + host + " has allowed hosts: Project mode asks before a command there reaches one.")
	}
	for _, pr := range projects {
		box.Add(widget.NewLabelWithStyle(pr.Project, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
		if pr.Registries {
			note("Package registries allowed (read from the toolchains' settings on " + host + ")")
		}
		for _, allowed := range pr.Hosts {
			forget := button.New("Forget", nil)
			forget.OnTapped = func() { p.forgetAllowed(host, pr.Project, allowed, box, forget) }
			box.Add(container.NewBorder(nil, nil, nil, forget, widget.NewLabel(allowed)))
		}
	}
	box.Refresh()
}

// forgetAllowed takes one host off a project's allowed hosts on its machine, then reads the
// list there again.
func (p *remoteHostsPanel) forgetAllowed(host, project, allowed string, box *fyne.Container, btn *button.Button) {
	b := p.m.b.(RemoteAllowedHostsBackend)
	btn.Disable()
	go func() {
		ctx, cancel := context.WithTimeout(p.m.ctx, callTimeout)
		defer cancel()
		err := b.RemoveRemoteAllowedHost(ctx, host, project, allowed)
		p.m.do(func() {
			if err != nil {
				btn.Enable()
				p.message.SetText(allowed + " is still allowed for " + project + " on " + host + ": " + err.Error())
				return
			}
			p.message.SetText(allowed + " is no longer allowed for " + project + " on " + host + "; Project mode asks again before a command there reaches it.")
			p.loadAllowed(host, box)
		})
	}()
}

func (p *remoteHostsPanel) forget(host string, btn *button.Button) {
	btn.Disable()
	p.message.SetText("Removing Phoenix from " + host + "…")
	go func() {
		ctx, cancel := context.WithTimeout(p.m.ctx, callTimeout)
		defer cancel()
		err := p.b.ForgetHost(ctx, host)
		p.m.do(func() {
			if err != nil {
				btn.Enable()
				p.message.SetText("Not removed: " + err.Error())
				return
			}
			p.message.SetText("Removed Phoenix from " + host + "; a conversation there copies it again on its next tool call.")
		})
	}()
}
