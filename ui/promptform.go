package ui

import (
	"context"
	"strings"

	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
)

// The arguments of an MCP prompt as a small form (issue 26): an MCP prompt sent from the
// composer with nothing typed after its name, while it has required arguments, opens a form
// with one field per argument instead of failing; Fetch puts the prompt's text in the
// composer, where the person reads it and sends it. Typing the arguments after the name, in
// order, still sends at once.

// needsForm reports whether a menu item is an MCP prompt with a required argument.
func (it slashItem) needsForm() bool {
	if it.prompt == nil {
		return false
	}
	for _, a := range it.prompt.Arguments {
		if a.Required {
			return true
		}
	}
	return false
}

// showPromptForm asks for the prompt's arguments and puts its text in the composer.
func (m *MainWindow) showPromptForm(cs *convState, it slashItem) {
	b, ok := m.b.(PromptsBackend)
	if !ok {
		return
	}
	pr := *it.prompt
	entries := map[string]*widget.Entry{}
	var items []*widget.FormItem
	for _, a := range pr.Arguments {
		e := widget.NewEntry()
		entries[a.Name] = e
		label := a.Name
		if a.Required {
			label += " *"
		}
		items = append(items, &widget.FormItem{Text: label, Widget: e, HintText: a.Description})
	}
	d := newScrollingForm("/"+it.name, "Fetch", items, func() {
		args := map[string]string{}
		for name, e := range entries {
			if v := strings.TrimSpace(e.Text); v != "" {
				args[name] = v
			}
		}
		go m.fetchPrompt(b, cs, pr, args)
	}, m.win)
	d.Resize(m.fitDialog(settingsSize))
	m.showModal(d)
	m.guardModal(d, "the prompt's arguments", func() bool {
		for _, e := range entries {
			if strings.TrimSpace(e.Text) != "" {
				return true
			}
		}
		return false
	})
}

// fetchPrompt fetches the prompt with its arguments off the UI goroutine and puts its text in
// the composer; a refusal (a missing argument, a server gone) is shown and the draft kept.
func (m *MainWindow) fetchPrompt(b PromptsBackend, cs *convState, pr actors.MCPPrompt, args map[string]string) {
	ctx, cancel := context.WithTimeout(m.ctx, callTimeout)
	defer cancel()
	text, err := b.GetPrompt(ctx, cs.id, pr.Server, pr.Name, args)
	m.do(func() {
		if m.closed || m.current != cs {
			return
		}
		if err != nil {
			m.showInline(failureText("fetch the prompt", err))
			return
		}
		m.composer.entry.SetText(text)
	})
}
