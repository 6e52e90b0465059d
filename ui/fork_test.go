package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/ui/button"
)

// Issue 27: "Fork from here" in a reply's menu opens a new conversation with the history up
// to that reply, and the one forked from keeps its own.
func TestRealForkFromHere(t *testing.T) {
	h, r := newRealHarness(t)
	src := h.newConversation(r.Cwd, false)
	turn := func(text string) {
		t.Helper()
		h.typeAndSend("echo: " + text)
		h.waitFor(text, func() bool {
			r := h.lastRow()
			return r != nil && r.kind == rowAssistant && r.msg.Text == text
		})
		h.waitRest(text)
	}
	turn("the first answer")
	turn("the second answer")
	h.settle()
	var menuBtn *button.Button
	for _, v := range h.visibleRowViews() {
		if v.bound.kind != rowAssistant || v.bound.msg.Text != "the first answer" {
			continue
		}
		walk(v, func(o fyne.CanvasObject) {
			if b, ok := o.(*button.Button); ok && b.Icon == theme.MoreVerticalIcon() && b.Visible() {
				menuBtn = b
			}
		})
	}
	if menuBtn == nil {
		t.Fatal("the first reply has no message menu")
	}
	test.Tap(menuBtn)
	var pm *widget.Menu
	if top := h.m.win.Canvas().Overlays().Top(); top != nil {
		walk(top, func(o fyne.CanvasObject) {
			switch m := o.(type) {
			case *widget.Menu:
				pm = m
			case *widget.PopUpMenu:
				pm = m.Menu
			}
		})
	}
	if pm == nil || len(pm.Items) != 1 {
		t.Fatal("the message menu did not open with one item")
	}
	pm.ActivateNext()
	pm.TriggerLast()
	h.waitFor("the fork to open", func() bool {
		return h.m.current != nil && h.m.current.id != src.id && h.m.current.loaded
	})
	if h.m.current.conv.ForkedFrom != src.id {
		t.Fatalf("the open conversation is not the fork: %+v", h.m.current.conv)
	}
	last := h.lastRow()
	if last == nil || last.msg.Text != "the first answer" {
		t.Fatalf("the fork ends with %+v; want the first answer", last)
	}
	turn("only in the fork")
	h.m.open(src.id)
	h.waitFor("the source to open", func() bool { return h.m.current.id == src.id && h.m.current.loaded })
	if last := h.lastRow(); last == nil || last.msg.Text != "the second answer" {
		t.Fatalf("the source ends with %+v; want its own second answer", last)
	}
}
