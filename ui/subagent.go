package ui

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/transcript"
)

// subAgentWindow is a read-only view of a sub-agent's conversation, opened from the
// spawn_agents card (REQ-BED-009: sub-agents are not in the sidebar).
type subAgentWindow struct {
	m      *MainWindow
	cs     *convState
	win    fyne.Window
	cv     *chatView
	status *widget.Label
	mode   *widget.Label
}

// openSubAgent opens, or brings forward, the window of sub-agent id.
func (m *MainWindow) openSubAgent(id, task string) {
	if w := m.subWins[id]; w != nil {
		w.win.RequestFocus()
		return
	}
	cs := m.conv(id)
	w := &subAgentWindow{m: m, cs: cs, status: widget.NewLabel(""), mode: widget.NewLabel("")}
	w.status.Truncation = fyne.TextTruncateEllipsis
	w.win = m.app.NewWindow("Sub-agent — " + transcript.OneLine(task, 60))
	w.cv = newChatView(m, cs, true)
	cs.views = append(cs.views, w.cv)
	taskText := newWrapText()
	setPlain(taskText, task, widget.RichTextStyleParagraph)
	note := widget.NewLabel("A read-only view of a sub-agent's conversation. Sub-agents work in Restricted mode where Landlock is available and report to the conversation that started them.")
	note.Wrapping = fyne.TextWrapWord
	note.Importance = widget.LowImportance
	top := container.NewVBox(widget.NewLabelWithStyle("Task", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), taskText, note)
	w.win.SetContent(container.NewPadded(container.NewBorder(top, container.NewBorder(nil, nil, nil, w.mode, w.status), nil, nil, container.NewStack(w.cv.list, w.cv.wheelCatcher))))
	w.win.Resize(fyne.NewSize(820, 640))
	w.win.SetOnClosed(func() {
		delete(m.subWins, id)
		if i := slices.Index(cs.views, w.cv); i >= 0 {
			cs.views = slices.Delete(cs.views, i, i+1)
		}
	})
	m.subWins[id] = w
	if !cs.loaded && !cs.loading {
		m.load(cs)
	} else {
		w.cv.changed()
	}
	w.refresh()
	w.win.Show()
}

func (w *subAgentWindow) refresh() {
	if !w.cs.hasState {
		w.status.SetText("Loading…")
		return
	}
	w.status.SetText(w.cs.status(w.m.now()))
	w.mode.SetText(w.cs.conv.Mode.Title())
}

func (m *MainWindow) anySubWindowTicking() bool {
	for _, w := range m.subWins {
		if w.cs.hasState && needsClock(w.cs.conv.State) {
			return true
		}
	}
	return false
}
