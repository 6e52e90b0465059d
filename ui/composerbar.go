package ui

import (
	"context"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/ui/button"
)

// composerBar is where the person writes: the field, Attach and Send, the strip of attached
// images above them, and the card that replaces writing when the context is exhausted. What
// sending does is in composer.go.
type composerBar struct {
	m         *MainWindow
	box       *fyne.Container
	entry     *composerEntry
	attachBtn *button.Button
	sendBtn   *button.Button
	// strip holds the draft's attachments (refreshStrip).
	strip *fyne.Container
	// exhaustedBox says the conversation is read-only and offers to continue in a new one
	// (REQ-BED-021).
	exhaustedBox  *fyne.Container
	exhaustedText *widget.RichText
	continueBtn   *button.Button
}

func newComposerBar(m *MainWindow) *composerBar {
	c := &composerBar{m: m}
	c.exhaustedText = newWrapText()
	setPlain(c.exhaustedText, "The agent's summary of the work is the last entry above. A new conversation starts on the same working directory with that summary in its draft, linked back to this one.", widget.RichTextStyleParagraph)
	c.continueBtn = button.NewWithIcon("Continue in new conversation", theme.MailForwardIcon(), m.continueInNew)
	c.continueBtn.Importance = widget.HighImportance
	exhaustedTitle := widget.NewLabelWithStyle("Context exhausted: this conversation is read-only now", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	exhaustedTitle.Importance = widget.DangerImportance
	c.exhaustedBox = container.NewVBox(exhaustedTitle, c.exhaustedText, container.NewHBox(c.continueBtn))
	c.exhaustedBox.Hide()

	c.strip = container.New(&flow{gap: pad()})
	c.strip.Hide()
	c.entry = newComposerEntry()
	c.entry.onSend = m.send
	c.entry.onStop = m.stopAgent
	c.entry.onPaste = newPaster(m, m.deps.Clipboard).paste
	c.attachBtn = button.NewWithIcon("", theme.FileImageIcon(), m.showAttachDialog)
	c.sendBtn = button.NewWithIcon("Send", theme.MailSendIcon(), m.send)
	c.sendBtn.Importance = widget.HighImportance
	c.box = container.NewBorder(nil, nil, container.NewVBox(c.attachBtn), container.NewVBox(c.sendBtn), c.entry)
	return c
}

// busyWords is what the composer says of a conversation that is not at rest: a card above
// the composer (an approval, an MCP server's request, a command's request for a host) waits
// for the person, not for the agent.
func (m *MainWindow) busyWords(cs *convState) string {
	if _, ok := cs.conv.State.(domain.AwaitingModeApproval); ok || m.cardWaits() {
		return "The agent waits for your answer to its request above."
	}
	return "The agent is working."
}

// cardWaits reports whether an MCP server's or a command's request waits on screen for the
// person, for the open conversation.
func (m *MainWindow) cardWaits() bool {
	return (m.mcpCards != nil && !m.mcpCards.box.Hidden && len(m.mcpCards.box.Objects) > 0) ||
		(m.hosts != nil && len(m.hosts.current()) > 0)
}

// refresh says in the placeholder what the field is for now, and enables what can be used.
func (c *composerBar) refresh() {
	m := c.m
	cs := m.current
	if m.isExhausted() {
		c.exhaustedBox.Show()
	} else {
		c.exhaustedBox.Hide()
	}
	switch {
	case cs == nil:
		c.setPlaceHolder("Create or open a conversation to start (Ctrl+N).")
		c.entry.Disable()
		c.sendBtn.Disable()
		c.attachBtn.Disable()
	case m.isExhausted():
		// REQ-BED-021: the composer says why it is disabled.
		c.setPlaceHolder(readOnlyText(cs.conv))
		c.entry.Disable()
		c.sendBtn.Disable()
		c.attachBtn.Disable()
	case cs.busy() && m.proj.enabled():
		c.setPlaceHolder(m.busyWords(cs) + " Send queues your next message for when it finishes; Stop (Esc) interrupts.")
		c.entry.Enable()
		c.sendBtn.Enable()
		c.attachBtn.Enable()
	case cs.busy():
		c.setPlaceHolder(m.busyWords(cs) + " Write your next message here; press Stop (Esc) to interrupt.")
		c.entry.Enable()
		c.sendBtn.Disable()
		c.attachBtn.Enable()
	default:
		c.setPlaceHolder("Message the agent. Enter sends, Shift+Enter adds a line; drop images anywhere to attach them.")
		c.entry.Enable()
		c.attachBtn.Enable()
		if m.sending {
			c.sendBtn.Disable()
		} else {
			c.sendBtn.Enable()
		}
	}
	// The box above the field was shown or hidden: relayout lays the bottom out again
	// when it was (refreshing the bottom would redraw every widget in it, issue 39).
	m.relayout()
}

// setPlaceHolder changes the field's placeholder when it says something else: the entry
// lays its placeholder out again at every call.
func (c *composerBar) setPlaceHolder(text string) {
	if c.entry.PlaceHolder != text {
		c.entry.SetPlaceHolder(text)
	}
}

func (m *MainWindow) exhaustedState() (domain.ContextExhausted, bool) {
	if m.current == nil {
		return domain.ContextExhausted{}, false
	}
	return m.current.exhausted()
}

func (m *MainWindow) isExhausted() bool {
	_, ok := m.exhaustedState()
	return ok
}

// continueInNew opens a new conversation linked to the exhausted one, with the summary in its
// draft (REQ-BED-021).
func (m *MainWindow) continueInNew() {
	cs := m.current
	if cs == nil {
		return
	}
	m.composer.continueBtn.Disable()
	go func() {
		ctx, cancel := context.WithTimeout(m.ctx, callTimeout)
		defer cancel()
		conv, summary, err := m.b.ContinueInNew(ctx, cs.id)
		m.do(func() {
			m.composer.continueBtn.Enable()
			if err != nil {
				m.showInline(fmt.Sprintf("Could not start the new conversation: %v.", err))
				return
			}
			m.openCreated(conv, summary)
		})
	}()
}
