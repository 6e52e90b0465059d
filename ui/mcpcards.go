package ui

import (
	"fmt"
	"slices"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/transcript"
	"github.com/phoenix-desktop/phoenix/ui/button"
)

// The MCP cards above the composer (issue 26): a server's request for input, as a form built
// from the schema it sent, and the confirmation of a tool its server marks destructive. They
// are not rows of the chat: the request is no state of the conversation (the MCP call simply
// waits), so a card lives from its actors.MCPInputRequested or MCPToolConfirmation until its
// MCPRequestClosed — answered here, or ended by Stop. The open conversation shows its own
// cards and those of its sub-agents; the others keep theirs until they are opened.

// mcpAnswerer is what the cards call; *actors.Runtime implements it. A backend without it
// shows no cards.
type mcpAnswerer interface {
	AnswerMCPInput(convID, id, action string, entries map[string]string) error
	DecideMCPTool(convID, id string, d actors.MCPToolDecision) error
}

// mcpCards holds the waiting requests of every conversation, and the cards of the open one.
type mcpCards struct {
	m   *MainWindow
	box *fyne.Container
	// pending are the requests by conversation, oldest first.
	pending map[string][]actors.Event
	// cards are built once per request, so that what the person typed survives a redraw.
	cards map[string]*mcpCard
}

func newMCPCards(m *MainWindow) *mcpCards {
	c := &mcpCards{m: m, box: container.NewVBox(), pending: map[string][]actors.Event{}, cards: map[string]*mcpCard{}}
	c.box.Hide()
	return c
}

// onEvent takes the MCP request events; it reports whether ev was one.
func (c *mcpCards) onEvent(ev actors.Event) bool {
	conv := ev.Conversation()
	switch e := ev.(type) {
	case actors.MCPInputRequested:
		c.pending[conv] = append(c.pending[conv], ev)
		c.m.notify(conv, c.titleOf(conv), e.Server+" asks: "+transcript.OneLine(e.Message, 160))
	case actors.MCPToolConfirmation:
		c.pending[conv] = append(c.pending[conv], ev)
		c.m.notify(conv, c.titleOf(conv), fmt.Sprintf("%s wants to run %s", e.Server, e.Tool))
	case actors.MCPRequestClosed:
		c.pending[conv] = slices.DeleteFunc(c.pending[conv], func(p actors.Event) bool { return requestID(p) == e.ID })
		if len(c.pending[conv]) == 0 {
			delete(c.pending, conv)
		}
		delete(c.cards, e.ID)
	default:
		return false
	}
	c.refresh()
	c.m.composer.refresh() // it says whether the agent waits for the person
	return true
}

func (c *mcpCards) titleOf(conv string) string {
	if cs := c.m.convs[conv]; cs != nil {
		return transcript.Title(cs.conv.Title, cs.conv.Cwd)
	}
	return AppTitle
}

func requestID(ev actors.Event) string {
	switch e := ev.(type) {
	case actors.MCPInputRequested:
		return e.ID
	case actors.MCPToolConfirmation:
		return e.ID
	}
	return ""
}

// refresh shows the cards of the open conversation and of its sub-agents.
func (c *mcpCards) refresh() {
	var objs []fyne.CanvasObject
	if cur := c.m.current; cur != nil {
		var convs []string
		for conv := range c.pending {
			if conv == cur.id || (c.m.convs[conv] != nil && c.m.convs[conv].conv.ParentID == cur.id) {
				convs = append(convs, conv)
			}
		}
		slices.Sort(convs)
		for _, conv := range convs {
			for _, ev := range c.pending[conv] {
				card := c.cards[requestID(ev)]
				if card == nil {
					card = newMCPCard(c, ev)
					c.cards[requestID(ev)] = card
				}
				objs = append(objs, card.obj)
			}
		}
	}
	if slices.Equal(objs, c.box.Objects) && c.box.Hidden == (len(objs) == 0) {
		return // the same cards: a refresh would redraw them all (issue 39)
	}
	c.box.Objects = objs
	c.box.Hidden = len(objs) == 0
	c.box.Refresh()
}

// mcpCard is one request's card.
type mcpCard struct {
	c       *mcpCards
	ev      actors.Event
	obj     fyne.CanvasObject
	errText *widget.Label
	buttons []*button.Button
	// values read the form's entries by field name.
	values map[string]func() string
}

func newMCPCard(c *mcpCards, ev actors.Event) *mcpCard {
	card := &mcpCard{c: c, ev: ev, values: map[string]func() string{}}
	card.errText = widget.NewLabel("")
	card.errText.Wrapping = fyne.TextWrapWord
	card.errText.Importance = widget.DangerImportance
	card.errText.Hide()
	var parts []fyne.CanvasObject
	switch e := ev.(type) {
	case actors.MCPInputRequested:
		parts = card.inputParts(e)
	case actors.MCPToolConfirmation:
		parts = card.toolParts(e)
	}
	parts = append(parts, card.errText)
	buttons := make([]fyne.CanvasObject, len(card.buttons))
	for i, b := range card.buttons {
		buttons[i] = b
	}
	parts = append(parts, container.NewHBox(buttons...))
	card.obj = widget.NewCard("", "", container.NewVBox(parts...))
	return card
}

func heading(text string) *widget.Label {
	l := widget.NewLabelWithStyle(text, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	l.Wrapping = fyne.TextWrapWord
	return l
}

func wrapped(text string) *widget.Label {
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	return l
}

// inputParts is the form of a request for input: one widget per field of the schema
// (an entry for text and numbers, a check box, a choice), with Submit, Decline and Cancel.
func (card *mcpCard) inputParts(e actors.MCPInputRequested) []fyne.CanvasObject {
	parts := []fyne.CanvasObject{heading(e.Server + " asks:"), wrapped(e.Message)}
	if e.URL != "" {
		parts = append(parts, wrapped("It asks you to open "+e.URL))
	}
	form := widget.NewForm()
	for _, f := range e.Fields {
		label := f.Label()
		if f.Required {
			label += " *"
		}
		var w fyne.CanvasObject
		switch f.Kind {
		case actors.MCPFieldBoolean:
			check := widget.NewCheck("", nil)
			check.Checked = f.Default == "true"
			card.values[f.Name] = func() string { return strconv.FormatBool(check.Checked) }
			w = check
		case actors.MCPFieldEnum:
			sel := widget.NewSelect(f.Labels, nil)
			if i := slices.Index(f.Options, f.Default); i >= 0 {
				sel.Selected = f.Labels[i]
			}
			card.values[f.Name] = func() string { return sel.Selected }
			w = sel
		case actors.MCPFieldChoices:
			w = card.choices(f)
		default:
			entry := widget.NewEntry()
			entry.SetText(f.Default)
			entry.SetPlaceHolder(entryHint(f.Kind))
			card.values[f.Name] = func() string { return entry.Text }
			w = entry
		}
		item := widget.NewFormItem(label, w)
		item.HintText = f.Description
		form.AppendItem(item)
	}
	if len(e.Fields) > 0 {
		parts = append(parts, form)
	}
	submit := button.NewWithIcon("Submit", theme.ConfirmIcon(), func() { card.answerInput(e, actors.MCPAccept) })
	submit.Importance = widget.HighImportance
	if e.FieldsError != "" {
		parts = append(parts, wrapped("This form cannot be shown here: "+e.FieldsError+". Decline or cancel it."))
		submit.Disable()
	}
	decline := button.New("Decline", func() { card.answerInput(e, actors.MCPDecline) })
	cancel := button.NewWithIcon("Cancel", theme.CancelIcon(), func() { card.answerInput(e, actors.MCPCancel) })
	card.buttons = []*button.Button{submit, decline, cancel}
	return parts
}

// entryHint is an entry's placeholder: what a number field takes (a text field needs none; the
// schema's words for it are under the field).
func entryHint(k actors.MCPFieldKind) string {
	switch k {
	case actors.MCPFieldNumber:
		return "a number"
	case actors.MCPFieldInteger:
		return "a whole number"
	}
	return ""
}

// toolParts is the confirmation of a destructive tool, with its arguments.
func (card *mcpCard) toolParts(e actors.MCPToolConfirmation) []fyne.CanvasObject {
	args := widget.NewLabelWithStyle(transcript.OneLine(e.Arguments, 400), fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	args.Wrapping = fyne.TextWrapBreak
	once := button.NewWithIcon("Allow once", theme.ConfirmIcon(), func() { card.decide(e, actors.MCPToolAllowOnce) })
	once.Importance = widget.HighImportance
	always := button.New("Always allow this tool", func() { card.decide(e, actors.MCPToolAlwaysAllow) })
	deny := button.NewWithIcon("Deny", theme.CancelIcon(), func() { card.decide(e, actors.MCPToolDeny) })
	card.buttons = []*button.Button{once, always, deny}
	return []fyne.CanvasObject{
		heading(fmt.Sprintf("%s wants to run %s (may change or delete data)", e.Server, e.Tool)),
		args,
	}
}

func (card *mcpCard) answerInput(e actors.MCPInputRequested, action string) {
	entries := map[string]string{}
	if action == actors.MCPAccept {
		for name, read := range card.values {
			entries[name] = read()
		}
	}
	card.send(func(a mcpAnswerer) error { return a.AnswerMCPInput(e.ConvID, e.ID, action, entries) })
}

func (card *mcpCard) decide(e actors.MCPToolConfirmation, d actors.MCPToolDecision) {
	card.send(func(a mcpAnswerer) error { return a.DecideMCPTool(e.ConvID, e.ID, d) })
}

// send answers off the UI goroutine; the card goes with the MCPRequestClosed that follows,
// and stays with the error (a required field left empty, say) when the answer is refused.
func (card *mcpCard) send(answer func(mcpAnswerer) error) {
	a, ok := card.c.m.b.(mcpAnswerer)
	if !ok {
		return
	}
	for _, b := range card.buttons {
		b.Disable()
	}
	go func() {
		err := answer(a)
		card.c.m.do(func() {
			if err == nil {
				return
			}
			card.errText.SetText(err.Error())
			card.errText.Show()
			for _, b := range card.buttons {
				b.Enable()
			}
			if e, ok := card.ev.(actors.MCPInputRequested); ok && e.FieldsError != "" {
				card.buttons[0].Disable()
			}
		})
	}()
}
