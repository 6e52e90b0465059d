package ui

import (
	"context"
	"errors"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/ui/button"
	"github.com/phoenix-desktop/phoenix/ui/filepick"
)

// saveDraft keeps the composer's text with the open conversation before switching away.
func (m *MainWindow) saveDraft() {
	if m.current != nil {
		m.current.draft.text = m.composer.entry.Text
	}
}

// loadDraft shows the open conversation's draft in the composer.
func (m *MainWindow) loadDraft() {
	text := ""
	if m.current != nil {
		text = m.current.draft.text
	}
	m.composer.entry.SetText(text)
	m.composer.entry.CursorRow = strings.Count(text, "\n")
	m.refreshStrip()
}

// refreshStrip shows the draft's attachments as thumbnails with a remove button each.
func (m *MainWindow) refreshStrip() {
	m.composer.strip.Objects = m.composer.strip.Objects[:0]
	if m.current != nil {
		for _, a := range m.current.draft.atts {
			m.composer.strip.Objects = append(m.composer.strip.Objects, m.attachmentChip(a))
		}
		if c := m.rv.commentChip(m.current); c != nil {
			m.composer.strip.Objects = append(m.composer.strip.Objects, c)
		}
	}
	m.composer.strip.Hidden = len(m.composer.strip.Objects) == 0
	m.composer.strip.Refresh()
	m.relayout()
	m.drafts.changed(m.composer.entry.Text) // the attachments are kept with the draft
}

func (m *MainWindow) attachmentChip(a *attachment) fyne.CanvasObject {
	cs := m.current
	remove := button.NewWithIcon("", theme.CancelIcon(), func() {
		for i, x := range cs.draft.atts {
			if x == a {
				cs.draft.atts = append(cs.draft.atts[:i:i], cs.draft.atts[i+1:]...)
				break
			}
		}
		m.refreshStrip()
	})
	remove.Importance = widget.LowImportance
	name := widget.NewLabel(a.name)
	name.SizeName = theme.SizeNameCaptionText
	name.Alignment = fyne.TextAlignCenter
	name.Truncation = fyne.TextTruncateEllipsis
	return container.New(&chipLayout{side: chipThumb}, thumbImage(a.thumb, chipThumb), remove, name)
}

// chipThumb is the side of an attachment's thumbnail in the composer's strip.
const chipThumb = 64

// chipLayout places an attachment chip: objs[0] the thumbnail in a square of side, objs[1]
// the remove button beside its top right corner (never over the image), objs[2] the file
// name centred under the thumbnail, cut with an ellipsis to the thumbnail's width.
type chipLayout struct{ side float32 }

func (l *chipLayout) Layout(objs []fyne.CanvasObject, _ fyne.Size) {
	img, remove, name := objs[0], objs[1], objs[2]
	is := img.MinSize()
	img.Resize(is)
	img.Move(fyne.NewPos((l.side-is.Width)/2, (l.side-is.Height)/2))
	rs := remove.MinSize()
	remove.Resize(rs)
	remove.Move(fyne.NewPos(l.side, 0))
	// A label pads its text by the inner padding on each side; the text itself spans the
	// thumbnail.
	ip := theme.InnerPadding()
	nh := name.MinSize().Height
	name.Resize(fyne.NewSize(l.side+2*ip, nh))
	name.Move(fyne.NewPos(-ip, l.side+pad()/2-ip/2))
}

func (l *chipLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	ip := theme.InnerPadding()
	return fyne.NewSize(l.side+objs[1].MinSize().Width, l.side+pad()/2+objs[2].MinSize().Height-ip)
}

// send sends the draft: text and images (REQ-BED-002, REQ-BED-013). The composer is cleared at
// once; if the runtime rejects the message, the draft comes back with the reason.
func (m *MainWindow) send() {
	cs := m.current
	if cs == nil || m.sending {
		return
	}
	text := strings.TrimRight(m.composer.entry.Text, " \t\r\n")
	atts := cs.draft.atts
	// A /command is sent as its prompt (slashmenu.go); the draft keeps what was typed.
	msg, remote := text, func(context.Context) (string, error) { return text, nil }
	// turn is what a custom command asks of the turn it starts (its model, the title).
	var turn *actors.TurnOptions
	if it, args, ok := m.slash.lookup(cs.id, text); ok && it.local != nil {
		msg = it.local(args)
		turn = &actors.TurnOptions{Command: it.name, Model: it.model, Title: text}
	} else if ok && it.remote != nil {
		if args == "" && it.needsForm() {
			m.showPromptForm(cs, it) // promptform.go
			return
		}
		remote = func(ctx context.Context) (string, error) { return it.remote(ctx, args) }
	}
	switch {
	case m.isExhausted():
		m.showInline(sendErrorText(domain.ErrContextExhausted))
		return
	case strings.TrimSpace(text) == "" && len(atts) == 0 && !m.rv.hasComments(cs):
		m.showInline("Type a message or attach an image first.")
		return
	case cs.busy() && m.proj.enabled():
		m.proj.enqueue(cs, withComments(m.rv.take(cs), msg), atts, turn)
		return
	case cs.busy():
		m.showInline("The agent is busy: wait for it to finish, or press Stop (Esc).")
		return
	}
	images := make([]Attachment, len(atts))
	for i, a := range atts {
		images[i] = Attachment{Name: a.name, Data: a.data}
	}
	m.clearInline()
	m.composer.entry.SetText("")
	cs.draft = draft{}
	// The comments on the changes go first in the message (reviewpane.go).
	comments := m.rv.take(cs)
	if cs.mainView != nil {
		cs.mainView.pinned = true
	}
	m.refreshStrip()
	m.sending = true
	m.composer.refresh()
	go func() {
		ctx, cancel := context.WithTimeout(m.ctx, callTimeout)
		defer cancel()
		var err error
		if msg == text {
			msg, err = remote(ctx) // an MCP prompt is fetched from its server
		}
		if err == nil {
			msg, images, err = m.attachResources(ctx, cs.id, msg, images) // "@SERVER:URI" (atresources.go)
		}
		msg = withComments(comments, msg)
		if cmd, ok := m.b.(CommandSender); ok && err == nil && turn != nil {
			err = cmd.SendCommand(ctx, cs.id, msg, images, *turn)
		} else if err == nil {
			err = m.b.Send(ctx, cs.id, msg, images)
		}
		m.do(func() {
			m.sending = false
			if err != nil {
				m.rv.putBack(cs, comments)
				// The person's words are never lost: they return to the draft.
				if cs.draft.text == "" && len(cs.draft.atts) == 0 {
					cs.draft = draft{text: text, atts: atts}
					if m.current == cs {
						m.loadDraft()
					}
				}
				if m.current == cs {
					m.showInline(sendErrorText(err))
				}
			}
			m.composer.refresh()
		})
	}()
}

// sendPrompt sends a message the window words for the person (Continue after a cut-off reply)
// without touching their draft. A rejection is shown like any other.
func (m *MainWindow) sendPrompt(cs *convState, text string) {
	m.sendForPerson(cs, func(ctx context.Context) error { return m.b.Send(ctx, cs.id, text, nil) })
}

// sendForPerson runs a send the window makes for the person from a button in the chat
// (Continue, Retry): refused while the agent works, the view pinned to follow the answer, the
// draft untouched, a rejection shown like any other.
func (m *MainWindow) sendForPerson(cs *convState, send func(ctx context.Context) error) {
	if cs.busy() {
		m.showInline("The agent is busy: wait for it to finish, or press Stop (Esc).")
		return
	}
	if cs.mainView != nil {
		cs.mainView.pinned = true
	}
	go func() {
		ctx, cancel := context.WithTimeout(m.ctx, callTimeout)
		defer cancel()
		if err := send(ctx); err != nil {
			m.do(func() {
				if m.current == cs {
					m.showInline(sendErrorText(err))
				}
			})
		}
	}()
}

// onDropped attaches dropped files to the open conversation's draft. It is the window's
// drop handler (Window.SetOnDropped), a named method so tests can call it.
func (m *MainWindow) onDropped(_ fyne.Position, uris []fyne.URI) {
	m.attachURIs(uris)
}

// attachURIs reads files off the UI goroutine and adds the images among them to the draft of
// the conversation that was open when they arrived; the others get an inline message.
func (m *MainWindow) attachURIs(uris []fyne.URI) {
	cs := m.current
	if cs == nil {
		m.showInline("Open or create a conversation first, then drop the images again.")
		return
	}
	if m.isExhausted() {
		m.showInline(sendErrorText(domain.ErrContextExhausted))
		return
	}
	loads := make([]func() (*attachment, error), len(uris))
	for i, u := range uris {
		loads[i] = func() (*attachment, error) { return readAttachment(u) }
	}
	go m.addAttachments(cs, loads)
}

// addAttachments runs each load (I/O and decoding: it runs off the UI goroutine) and adds
// the images to cs's draft, once each; what could not be attached is said inline, and the
// draft's text is never touched. Drops, the Attach dialog and pastes (paste.go) all end here.
func (m *MainWindow) addAttachments(cs *convState, loads []func() (*attachment, error)) {
	var (
		added []*attachment
		probs []string
	)
	for _, load := range loads {
		a, err := load()
		if err != nil {
			var ae *attachError
			if errors.As(err, &ae) {
				probs = append(probs, ae.Error())
			} else {
				probs = append(probs, err.Error())
			}
			continue
		}
		added = append(added, a)
	}
	m.do(func() {
		// The same image dropped again (or twice at once) is attached once.
		var dups []string
		for _, a := range added {
			if cs.draft.find(a.data) != nil {
				dups = append(dups, a.name+" is attached already.")
				continue
			}
			cs.draft.atts = append(cs.draft.atts, a)
		}
		if m.current == cs {
			m.refreshStrip()
			var msg []string
			if len(probs) > 0 {
				msg = append(msg, strings.Join(probs, " ")+" Not attached.")
			}
			msg = append(msg, dups...)
			if len(msg) > 0 {
				m.showInline(strings.Join(msg, " "))
			} else {
				m.clearInline()
			}
		}
	})
}

// showAttachDialog is "Attach image…".
func (m *MainWindow) showAttachDialog() {
	if m.current == nil || m.isExhausted() {
		m.attachURIs(nil) // says why nothing can be attached
		return
	}
	// Start where the conversation works (screenshots and diagrams usually live there),
	// unless an earlier Attach chose from another folder; a remote project's folder is on
	// another machine, so there the home folder is the start.
	start := ""
	if m.current.conv.Host == "" {
		start = m.current.conv.Cwd
	}
	p := filepick.New(filepick.Options{
		Mode: filepick.File, Title: "Attach an image", Confirm: "Attach",
		Start: start, StartLabel: "Project folder",
		Show:  isImageName,
		Prefs: m.app.Preferences(), Remember: prefAttachDir, Do: m.do,
		OnChosen: func(path string) { m.attachURIs([]fyne.URI{storage.NewFileURI(path)}) },
	}, m.win)
	m.showModal(p)
}
