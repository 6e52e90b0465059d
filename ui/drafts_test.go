package ui

import (
	"bytes"
	"context"
	"image/color"
	"maps"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

func (f *fakeBackend) Draft(_ context.Context, id string) (Draft, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.drafts[id], nil
}

func (f *fakeBackend) SaveDraft(_ context.Context, id string, d Draft) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.drafts == nil {
		f.drafts = map[string]Draft{}
	}
	if d.Empty() {
		delete(f.drafts, id)
	} else {
		f.drafts[id] = d
	}
	return nil
}

// storedDraft is the text of the stored draft of id.
func (f *fakeBackend) storedDraft(id string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.drafts[id]
	return d.Text, ok
}

// What the person types is kept in the store as they type, comes back when the window opens
// again (a restart, a crash), and is removed once sent (issue 41).
func TestUnsentDraftIsKeptAcrossRestarts(t *testing.T) {
	h, id := newOpenConversation(t, nil)
	h.m.win.Canvas().Focus(h.m.composer.entry)
	test.Type(h.m.composer.entry, "half a thought")
	h.waitFor("the draft in the store", func() bool { d, _ := h.f.storedDraft(id); return d == "half a thought" })

	// The next start: a new window on the same store.
	stored := map[string]Draft{id: {Text: "half a thought"}}
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

// An image attached to an unsent message is kept with its text, comes back in the composer
// after a restart, and goes from the store when it is taken out (issue 41: "drafts (text and
// attachments)").
func TestDraftAttachmentsAreKeptAcrossRestarts(t *testing.T) {
	h, id := newOpenConversation(t, nil)
	png := pngBytes(t, 40, 30, color.NRGBA{R: 0xd0, A: 0xff})
	h.m.addAttachments(h.m.current, []func() (*attachment, error){func() (*attachment, error) { return newAttachment("shot.png", png) }})
	h.waitFor("the image attached", func() bool { return len(h.m.current.draft.atts) == 1 })
	test.Type(h.m.composer.entry, "look at this")
	h.waitFor("the draft with its image in the store", func() bool {
		h.f.mu.Lock()
		defer h.f.mu.Unlock()
		d := h.f.drafts[id]
		return d.Text == "look at this" && len(d.Images) == 1 && d.Images[0].Name == "shot.png" && bytes.Equal(d.Images[0].Data, png)
	})

	h.f.mu.Lock()
	stored := maps.Clone(h.f.drafts)
	h.f.mu.Unlock()
	h2, _ := newOpenConversation(t, func(f *fakeBackend, _ *Deps) { f.drafts = stored })
	h2.waitFor("the draft and its image back", func() bool {
		return h2.m.composer.entry.Text == "look at this" && len(h2.m.current.draft.atts) == 1 && !h2.m.composer.strip.Hidden
	})
	if a := h2.m.current.draft.atts[0]; a.name != "shot.png" || a.thumb == nil {
		t.Errorf("the image came back as %q (thumbnail %v)", a.name, a.thumb != nil)
	}

	// Taken out, it goes from the store; the text stays.
	h2.m.current.draft.atts = nil
	h2.m.refreshStrip()
	h2.waitFor("the image gone from the stored draft", func() bool {
		h2.f.mu.Lock()
		defer h2.f.mu.Unlock()
		d := h2.f.drafts[id]
		return d.Text == "look at this" && len(d.Images) == 0
	})
}
