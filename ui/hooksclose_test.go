package ui

import (
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
)

// The Hooks dialog's Close asks before it discards edited text; unedited, it closes at once
// (issue 41).
func TestHooksCloseAsksBeforeDiscardingEdits(t *testing.T) {
	f := newFakeBackend()
	h := &harness{t: t, f: f, q: newQueue()}
	h.deps = Deps{Do: h.q.push, Now: func() time.Time { return testNow }}
	h.start(&hooksFake{fakeBackend: f, text: `{"hooks": {}}`}, f.sub)
	t.Cleanup(func() { f.mu.Lock(); f.closed = true; f.mu.Unlock() })

	open := func() *hooksPanel {
		h.m.showHooksSettings()
		p := h.m.hooksPanel
		h.waitFor("the hooks text", func() bool { return p.text.Text == `{"hooks": {}}` })
		return p
	}
	shown := func(p *hooksPanel) bool { return len(h.m.modals) > 0 && h.m.modals[0] == p.dlg }

	// Unedited: Close closes.
	p := open()
	findButton(h.m.win.Canvas().Overlays().Top(), "Close").OnTapped()
	if shown(p) || p.discardDlg != nil {
		t.Fatal("Close of an unedited dialog did not close it at once")
	}

	// Edited: Close asks; "Keep editing" keeps the text, "Discard" closes.
	p = open()
	test.Type(p.text, "x")
	edited := p.text.Text
	p.close()
	if p.discardDlg == nil || !shown(p) {
		t.Fatal("Close discarded the edits without asking")
	}
	p.discardDlg.Dismiss()
	if !shown(p) || p.text.Text != edited {
		t.Fatalf("Keep editing: dialog shown %v, text %q", shown(p), p.text.Text)
	}
	p.text.onEscape()
	if p.discardDlg == nil {
		t.Fatal("Esc discarded the edits without asking")
	}
	p.discardDlg.Confirm()
	if shown(p) {
		t.Fatal("Discard did not close the dialog")
	}
}
