package ui

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/providers"
)

func TestSearchAllConversationsOpensAtTheMessage(t *testing.T) {
	var short, long, old string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		short = f.add(domain.NewConversationParams{Title: "Short", Cwd: "/s", Model: "gpt-4o"},
			domain.Message{Kind: domain.KindUser, Text: "nothing here"}).ID
		long = f.add(domain.NewConversationParams{Title: "Long", Cwd: "/l", Model: "gpt-4o"}, longHistory(2000)...).ID
		old = f.add(domain.NewConversationParams{Title: "Old", Cwd: "/o", Model: "gpt-4o"},
			domain.Message{Kind: domain.KindUser, Text: "Question 1: archived"}).ID
		f.convs[old].conv.Archived = true
	})
	h.open(short)

	// Ctrl+Shift+F is bound, and focuses the field.
	found := false
	for _, s := range h.m.shortcuts() {
		if cs, ok := s.shortcut.(*desktop.CustomShortcut); ok && cs.KeyName == fyne.KeyF && cs.Modifier&fyne.KeyModifierShift != 0 {
			found = true
			s.run()
		}
	}
	if !found || h.m.win.Canvas().Focused() != fyne.Focusable(h.m.search.entry) {
		t.Fatal("Ctrl+Shift+F does not focus the search field")
	}
	test.Type(h.m.search.entry, "Question 100:")
	h.waitFor("search hits", func() bool { return h.m.search.panel.Visible() && len(h.m.search.hits) > 0 })
	if h.m.sideList.Visible() {
		t.Error("the conversation list is still shown under the hits")
	}
	hit := h.m.search.hits[0]
	if hit.ConvID != long || len(h.m.search.hits) != 1 {
		t.Fatalf("hits = %+v", h.m.search.hits)
	}
	if q := h.f.searches[len(h.f.searches)-1]; q.IncludeArchived {
		t.Error("archived conversations searched without Show archived")
	}
	// The hit shows its conversation's title and the matching line.
	var texts []string
	walk(h.m.search.list, func(o fyne.CanvasObject) {
		if l, ok := o.(*widget.Label); ok && l.Visible() {
			texts = append(texts, l.Text)
		}
	})
	if !slices.Contains(texts, "Long") || !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, "Question 100:") }) {
		t.Fatalf("hit row shows %q", texts)
	}

	// A click opens the conversation at that message, not at its end.
	h.m.search.list.Select(0)
	h.waitFor("the hit's conversation", func() bool { return h.m.current != nil && h.m.current.id == long && h.m.current.loaded })
	h.settle()
	target := h.m.current.model.at(h.m.current.model.rowOf(hit.Seq))
	if target.msg == nil || !strings.Contains(target.msg.Text, "Question 100:") {
		t.Fatalf("rowOf(%d) is %+v", hit.Seq, target)
	}
	shown := false
	for _, v := range h.visibleRowViews() {
		shown = shown || v.bound == target
	}
	if !shown {
		t.Fatal("the hit's message is not on screen")
	}

	// Show archived searches archived conversations too.
	h.m.search.entry.SetText("Question")
	h.waitFor("hits", func() bool { return len(h.m.search.hits) > 0 })
	if slices.ContainsFunc(h.m.search.hits, func(x SearchHit) bool { return x.ConvID == old }) {
		t.Fatal("an archived conversation was found without Show archived")
	}
	gen := h.m.search.gen
	h.m.showArchived = true
	h.m.scheduleSearch()
	h.waitFor("hits with archived", func() bool {
		return h.m.search.gen > gen && slices.ContainsFunc(h.m.search.hits, func(x SearchHit) bool { return x.ConvID == old && x.Archived })
	})

	// Clearing the field brings the conversations back.
	h.m.search.entry.SetText("")
	if h.m.search.panel.Visible() || !h.m.sideList.Visible() {
		t.Fatal("clearing the search does not show the conversations again")
	}
}

func TestDeleteAsksNamingItThenForgetsIt(t *testing.T) {
	var keep, gone string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		keep = f.add(domain.NewConversationParams{Title: "Keep me", Cwd: "/k", Model: "gpt-4o"}).ID
		gone = f.add(domain.NewConversationParams{Title: "Throwaway experiment", Cwd: "/t", Model: "gpt-4o"},
			domain.Message{Kind: domain.KindUser, Text: "hi"}).ID
	})
	h.open(gone)

	// Dismissing deletes nothing.
	h.m.askDelete(h.m.current)
	if h.m.deleteDlg == nil {
		t.Fatal("no confirmation")
	}
	var texts []string
	walk(h.m.win.Canvas().Overlays().Top(), func(o fyne.CanvasObject) {
		if l, ok := o.(*widget.Label); ok {
			texts = append(texts, l.Text)
		}
	})
	msg := strings.Join(texts, " ")
	if !strings.Contains(msg, "Throwaway experiment") || !strings.Contains(msg, "cannot be undone") {
		t.Fatalf("the confirmation does not name it or say it is final: %q", msg)
	}
	h.m.deleteDlg.Dismiss()
	h.settle()
	if len(h.f.deleted) != 0 || len(h.m.side) != 2 {
		t.Fatalf("dismissed, yet deleted %v", h.f.deleted)
	}

	// Confirming deletes it, and the window forgets it.
	h.m.askDelete(h.m.current)
	h.m.deleteDlg.Confirm()
	h.waitFor("the conversation to go", func() bool { return len(h.m.side) == 1 })
	if h.m.side[0].id != keep || h.m.current != nil || h.m.convs[gone] != nil {
		t.Fatalf("after delete: side %v, current %v", h.m.side[0].id, h.m.current)
	}
	if h.f.deleted[0] != gone {
		t.Fatalf("deleted %v", h.f.deleted)
	}
	if h.m.chatHolder.Objects[0] != h.m.empty {
		t.Error("the deleted conversation's view is still shown")
	}
}

// memoryKeys is a KeyStore in memory: the window's side of keeping the key elsewhere (the
// real Secret Service is tested in package secrets, against gnome-keyring-daemon).
type memoryKeys struct {
	key    string
	secure bool
}

func (k *memoryKeys) APIKey() (string, error)    { return k.key, nil }
func (k *memoryKeys) SetAPIKey(key string) error { k.key = key; return nil }
func (k *memoryKeys) Where() string {
	if k.secure {
		return "in the desktop's keyring (Secret Service)"
	}
	return "in /home/ada/.config/phoenix-desktop/secrets.json, a file only you can read"
}
func (k *memoryKeys) Secure() bool { return k.secure }

func TestSettingsKeepTheKeyInTheKeyStore(t *testing.T) {
	for _, secure := range []bool{true, false} {
		keys := &memoryKeys{key: "sk-stored-in-keyring-9876", secure: secure}
		var applied []Settings
		h := newHarness(t, func(_ *fakeBackend, d *Deps) {
			d.Keys = keys
			d.Apply = func(s Settings) error { applied = append(applied, s); return nil }
		})
		h.m.showSettings()
		f := h.m.settings
		if !strings.Contains(f.apiKey.PlaceHolder, providers.MaskKey(keys.key)) {
			t.Fatalf("the stored key is not offered: %q", f.apiKey.PlaceHolder)
		}
		var hint string
		for _, it := range f.items {
			if it.Text == "API key" {
				hint = it.HintText
			}
		}
		if !strings.Contains(hint, keys.Where()) || secure == strings.Contains(hint, "No desktop keyring") {
			t.Fatalf("secure=%v: hint %q", secure, hint)
		}
		f.apiKey.SetText("sk-new-key-for-testing-5555")
		f.dlg.Submit()
		if keys.key != "sk-new-key-for-testing-5555" || len(applied) != 1 || applied[0].APIKey != keys.key {
			t.Fatalf("stored %q, applied %+v", keys.key, applied)
		}
		if LegacyAPIKey(h.app.Preferences()) != "" {
			t.Fatal("the key was written to the preferences file")
		}
	}
}
