package ui

import (
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/ui/button"
)

// statusBar is the bottom line of the window: a state dot, what the agent does (with a
// running clock while a tool runs or a retry waits) and Stop.
type statusBar struct {
	m       *MainWindow
	box     *fyne.Container
	dot     *canvas.Circle
	label   *widget.Label
	stopBtn *button.Button
	// ticking is read by the clock goroutine: the status bar shows a running clock.
	ticking atomic.Bool
}

func newStatusBar(m *MainWindow) *statusBar {
	s := &statusBar{m: m, label: widget.NewLabel("")}
	var dot fyne.CanvasObject
	s.dot, dot = newDot()
	s.label.Truncation = fyne.TextTruncateEllipsis
	s.stopBtn = button.NewWithIcon("Stop", theme.MediaStopIcon(), m.stopAgent)
	s.stopBtn.Importance = widget.DangerImportance
	s.box = container.NewBorder(nil, nil, dot, container.NewHBox(container.NewCenter(m.demo.status), s.stopBtn), s.label)
	return s
}

func (s *statusBar) refresh() {
	m := s.m
	cs := m.current
	if cs == nil || !cs.hasState {
		text := ""
		if cs != nil && cs.loading && cs.slowLoad {
			text = "Loading…"
		}
		setText(s.label, text)
		s.stopBtn.Hide()
		setFill(s.dot, theme.Color(theme.ColorNameDisabled))
		s.ticking.Store(false)
		return
	}
	setText(s.label, cs.status(m.now())+cs.progressNote())
	setFill(s.dot, theme.Color(stateColor(cs.conv.State.Kind())))
	if cs.busy() {
		s.stopBtn.Show()
	} else {
		s.stopBtn.Hide()
	}
	s.ticking.Store(needsClock(cs.conv.State) || m.anySubWindowTicking())
}

// needsClock reports whether the status text of s changes with time.
func needsClock(s domain.State) bool {
	switch st := s.(type) {
	case domain.ToolExecuting, domain.AwaitingSubAgents:
		return true
	case domain.LLMRequesting:
		return st.RetryPending
	case domain.AwaitingContinuation:
		return st.RetryPending
	}
	return false
}

// clock re-draws the status bar every second while it shows a running time.
func (s *statusBar) clock() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-s.m.ctx.Done():
			return
		case <-t.C:
			if s.ticking.Load() {
				s.m.do(s.tick)
			}
		}
	}
}

func (s *statusBar) tick() {
	if s.m.closed {
		return
	}
	s.refresh()
	for _, w := range s.m.subWins {
		w.refresh()
	}
}
