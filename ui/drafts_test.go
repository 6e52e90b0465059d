package ui

import (
	"context"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

func (f *fakeBackend) Draft(_ context.Context, id string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.drafts[id], nil
}

func (f *fakeBackend) SaveDraft(_ context.Context, id, text string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.drafts == nil {
		f.drafts = map[string]string{}
	}
	if text == "" {
		delete(f.drafts, id)
	} else {
		f.drafts[id] = text
	}
	return nil
}

func (f *fakeBackend) storedDraft(id string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.drafts[id]
	return d, ok
}

// What the person types is kept in the store as they type, comes back when the window opens
// again (a restart, a crash), and is removed once sent (issue 41).
func TestUnsentDraftIsKeptAcrossRestarts(t *testing.T) {
	h, id := newOpenConversation(t, nil)
	h.m.win.Canvas().Focus(h.m.composer.entry)
	test.Type(h.m.composer.entry, "half a thought")
	h.waitFor("the draft in the store", func() bool { d, _ := h.f.storedDraft(id); return d == "half a thought" })

	// The next start: a new window on the same store.
	stored := map[string]string{id: "half a thought"}
	h2, id2 := newOpenConversation(t, func(f *fakeBackend, _ *Deps) { f.drafts = stored })
	if id2 != id {
		t.Fatalf("the second start made %s, not %s", id2, id)
	}
	h2.waitFor("the draft back in the composer", func() bool { return h2.m.composer.entry.Text == "half a thought" })

	// Sending it removes it from the store.
	h2.m.composer.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h2.waitFor("the draft gone from the store", func() bool { _, ok := h2.f.storedDraft(id); return !ok })
}

// Closing the window writes what was typed just before, without waiting for the pause.
func TestUnsentDraftIsWrittenWhenTheWindowCloses(t *testing.T) {
	h, id := newOpenConversation(t, nil)
	h.m.win.Canvas().Focus(h.m.composer.entry)
	test.Type(h.m.composer.entry, "last words")
	h.m.win.Close()
	// The harness closes its window at the end; Fyne's test driver cannot close one twice.
	h.m.win = h.app.NewWindow("closed")
	if d, _ := h.f.storedDraft(id); d != "last words" {
		t.Fatalf("stored draft after closing = %q", d)
	}
}
