package ui

import "testing"

// Issue 28 item 1: started from a terminal, New conversation offers the directory the app
// was started in, before the last one used; started from the desktop, the last one used.
func TestNewConversationOffersTheTerminalsDirectory(t *testing.T) {
	start, last := t.TempDir(), t.TempDir()
	h := newHarness(t, func(_ *fakeBackend, d *Deps) { d.StartDir = start })
	h.app.Preferences().SetString(prefLastCwd, last)
	h.m.showNewConversation()
	if got := h.m.newForm.cwd.Text; got != start {
		t.Fatalf("started from a terminal in %s, the dialog offers %q", start, got)
	}

	h = newHarness(t, nil)
	h.app.Preferences().SetString(prefLastCwd, last)
	h.m.showNewConversation()
	if got := h.m.newForm.cwd.Text; got != last {
		t.Fatalf("started from the desktop, the dialog offers %q; want the last used %q", got, last)
	}
}
