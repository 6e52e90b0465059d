package ui

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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
	if !found || h.m.win.Canvas().Focused() != fyne.Focusable(h.m.sidebar.search.entry) {
		t.Fatal("Ctrl+Shift+F does not focus the search field")
	}
	test.Type(h.m.sidebar.search.entry, "Question 100:")
	h.waitFor("search hits", func() bool { return h.m.sidebar.search.panel.Visible() && len(h.m.sidebar.search.hits) > 0 })
	if h.m.sidebar.list.Visible() {
		t.Error("the conversation list is still shown under the hits")
	}
	hit := h.m.sidebar.search.hits[0]
	if hit.ConvID != long || len(h.m.sidebar.search.hits) != 1 {
		t.Fatalf("hits = %+v", h.m.sidebar.search.hits)
	}
	if q := h.f.searches[len(h.f.searches)-1]; q.IncludeArchived {
		t.Error("archived conversations searched without Show archived")
	}
	// The hit shows its conversation's title and the matching line.
	var texts []string
	walk(h.m.sidebar.search.list, func(o fyne.CanvasObject) {
		if l, ok := o.(*widget.Label); ok && l.Visible() {
			texts = append(texts, l.Text)
		}
		if l, ok := o.(*widget.RichText); ok && l.Visible() {
			texts = append(texts, l.String())
		}
	})
	if !slices.Contains(texts, "Long") || !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, "Question 100:") }) {
		t.Fatalf("hit row shows %q", texts)
	}

	// A click opens the conversation at that message, not at its end.
	h.m.sidebar.search.list.Select(0)
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
	h.m.sidebar.search.entry.SetText("Question")
	h.waitFor("hits", func() bool { return len(h.m.sidebar.search.hits) > 0 })
	if slices.ContainsFunc(h.m.sidebar.search.hits, func(x SearchHit) bool { return x.ConvID == old }) {
		t.Fatal("an archived conversation was found without Show archived")
	}
	gen := h.m.sidebar.search.gen
	h.m.sidebar.showArchived = true
	h.m.scheduleSearch()
	h.waitFor("hits with archived", func() bool {
		return h.m.sidebar.search.gen > gen && slices.ContainsFunc(h.m.sidebar.search.hits, func(x SearchHit) bool { return x.ConvID == old && x.Archived })
	})

	// Clearing the field brings the conversations back.
	h.m.sidebar.search.entry.SetText("")
	if h.m.sidebar.search.panel.Visible() || !h.m.sidebar.list.Visible() {
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
	if len(h.f.deleted) != 0 || len(h.m.sidebar.convs) != 2 {
		t.Fatalf("dismissed, yet deleted %v", h.f.deleted)
	}

	// Confirming deletes it, and the window forgets it.
	h.m.askDelete(h.m.current)
	h.m.deleteDlg.Confirm()
	h.waitFor("the conversation to go", func() bool { return len(h.m.sidebar.convs) == 1 })
	if h.m.sidebar.convs[0].id != keep || h.m.current != nil || h.m.convs[gone] != nil {
		t.Fatalf("after delete: side %v, current %v", h.m.sidebar.convs[0].id, h.m.current)
	}
	if h.f.deleted[0] != gone {
		t.Fatalf("deleted %v", h.f.deleted)
	}
	if h.m.chatHolder.Objects[0] != h.m.empty {
		t.Error("the deleted conversation's view is still shown")
	}
}

// memoryKeys is a KeyStore in memory: the window's side of keeping the key elsewhere (the
// real Secret Service is tested in package secrets, against gnome-keyring-daemon). It can
// fail its reads and hold them, which a real daemon cannot be made to do reliably.
type memoryKeys struct {
	mu      sync.Mutex
	key     string
	secure  bool
	readErr error         // APIKey fails with it (a locked collection, a D-Bus error)
	hold    chan struct{} // APIKey waits until it is closed (a prompt nobody answers)
	limit   time.Duration // Timeout; zero is an hour, longer than any test waits
	sets    int           // calls of SetAPIKey
}

func (k *memoryKeys) APIKey() (string, error) {
	k.mu.Lock()
	hold := k.hold
	k.mu.Unlock()
	if hold != nil {
		<-hold
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.readErr != nil {
		return "", k.readErr
	}
	return k.key, nil
}

func (k *memoryKeys) SetAPIKey(key string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.key = key
	k.sets++
	return nil
}

func (k *memoryKeys) stored() (string, int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.key, k.sets
}

func (k *memoryKeys) Where() string {
	if k.secure {
		return "in the desktop's keyring (Secret Service)"
	}
	return "in /home/ada/.config/phoenix-desktop/secrets.json, a file only you can read"
}
func (k *memoryKeys) Secure() bool { return k.secure }
func (k *memoryKeys) Timeout() time.Duration {
	if k.limit == 0 {
		return time.Hour
	}
	return k.limit
}

// openSettings opens Settings and waits until it knows the saved key's state.
func (h *harness) openSettings() *settingsForm {
	h.t.Helper()
	h.m.showSettings()
	f := h.m.settings
	h.waitFor("the saved key's state", func() bool { return f.keyKnown })
	return f
}

// errorShown is the text of the error dialog on top of the window, if one is.
func (h *harness) errorShown() string {
	var texts []string
	if top := h.m.win.Canvas().Overlays().Top(); top != nil {
		walk(top, func(o fyne.CanvasObject) {
			if l, ok := o.(*widget.Label); ok {
				texts = append(texts, l.Text)
			}
		})
	}
	return strings.Join(texts, " ")
}

func TestSettingsKeepTheKeyInTheKeyStore(t *testing.T) {
	for _, secure := range []bool{true, false} {
		keys := &memoryKeys{key: "sk-stored-in-keyring-9876", secure: secure}
		var applied []Settings
		h := newHarness(t, func(_ *fakeBackend, d *Deps) {
			d.Keys = keys
			d.Apply = func(s Settings) error { applied = append(applied, s); return nil }
		})
		f := h.openSettings()
		if !strings.Contains(f.apiKey.PlaceHolder, providers.MaskKey(keys.key)) {
			t.Fatalf("the stored key is not offered: %q", f.apiKey.PlaceHolder)
		}
		hint := f.hints["API key"].Text
		if !strings.Contains(hint, keys.Where()) || secure == strings.Contains(hint, "No desktop keyring") {
			t.Fatalf("secure=%v: hint %q", secure, hint)
		}
		// Saved with the field left empty, the stored key is not even rewritten.
		f.model.SetText("gpt-4o")
		f.dlg.Submit()
		h.waitFor("the settings applied", func() bool { return len(applied) == 1 })
		if key, sets := keys.stored(); key != "sk-stored-in-keyring-9876" || sets != 0 || applied[0].APIKey != key {
			t.Fatalf("an empty field: stored %q after %d writes, applied %+v", key, sets, applied)
		}
		f = h.openSettings()
		f.apiKey.SetText("sk-new-key-for-testing-5555")
		f.dlg.Submit()
		h.waitFor("the settings applied", func() bool { return len(applied) == 2 })
		if key, _ := keys.stored(); key != "sk-new-key-for-testing-5555" || applied[1].APIKey != key {
			t.Fatalf("stored %q, applied %+v", key, applied)
		}
		if LegacyAPIKey(h.app.Preferences()) != "" {
			t.Fatal("the key was written to the preferences file")
		}
	}
}

// A key that could not be read (a locked collection, a dismissed unlock prompt, a D-Bus
// error) survives a Save of any other change; the dialog says why and what to do; only the
// explicit Forget deletes it.
func TestSettingsSaveKeepsAKeyItCouldNotRead(t *testing.T) {
	const key = "sk-only-copy-in-the-keyring-7777"
	keys := &memoryKeys{key: key, secure: true, readErr: errors.New("the collection \"login\" is locked")}
	var applied []Settings
	h := newHarness(t, func(_ *fakeBackend, d *Deps) {
		d.Keys = keys
		d.Apply = func(s Settings) error { applied = append(applied, s); return nil }
	})
	f := h.openSettings()
	if msg := f.keyState.Text; !f.keyState.Visible() || !strings.Contains(msg, "could not be read") ||
		!strings.Contains(msg, "is locked") || !strings.Contains(msg, "Unlock the keyring") {
		t.Fatalf("the dialog does not say the key could not be read and what to do: %q", msg)
	}
	if !f.forget.Visible() {
		t.Fatal("Forget is not offered for a key that may be saved")
	}
	f.model.SetText("gpt-4o-mini")
	f.dlg.Submit()
	h.waitFor("the saved settings", func() bool { return h.app.Preferences().String(prefModel) == "gpt-4o-mini" })
	h.waitFor("the explanation", func() bool { return strings.Contains(h.errorShown(), "the saved key was kept") })
	if got, sets := keys.stored(); got != key || sets != 0 {
		t.Fatalf("Save with an unreadable key: stored %q after %d writes", got, sets)
	}
	if len(applied) != 0 {
		t.Fatalf("applied without the key: %+v", applied)
	}

	// Forget, asked for explicitly, deletes it.
	f = h.openSettings()
	f.forget.SetChecked(true)
	f.dlg.Submit()
	h.waitFor("the key forgotten", func() bool { got, _ := keys.stored(); return got == "" })
}

// A migration that failed leaves the key in the preferences file: the app keeps using it from
// there (cmd/phoenix-desktop wires PreferencesKeys), Settings says why, and a Save keeps it.
func TestSettingsAfterAFailedMigrationKeepTheLegacyKey(t *testing.T) {
	const key = "sk-legacy-only-copy-3131"
	var applied []Settings
	h := newHarness(t, func(_ *fakeBackend, d *Deps) {
		d.Apply = func(s Settings) error { applied = append(applied, s); return nil }
	})
	prefs := h.app.Preferences()
	SaveSettings(prefs, Settings{BaseURL: "https://api.openai.com/v1", APIKey: key, Model: "gpt-4o"})
	h.m.deps.Keys = PreferencesKeys(prefs, "moving it to the desktop's keyring failed (the collection is locked)")
	f := h.openSettings()
	hint := f.hints["API key"].Text
	if !strings.Contains(hint, "preferences file, because moving it") || strings.Contains(hint, "No desktop keyring") {
		t.Fatalf("Settings does not say where the key is and why: %q", hint)
	}
	if !strings.Contains(f.apiKey.PlaceHolder, providers.MaskKey(key)) {
		t.Fatalf("the legacy key is not offered: %q", f.apiKey.PlaceHolder)
	}
	f.model.SetText("gpt-4o-mini")
	f.dlg.Submit()
	h.waitFor("the settings applied", func() bool { return len(applied) == 1 })
	if LegacyAPIKey(prefs) != key || applied[0].APIKey != key {
		t.Fatalf("after Save: legacy %q, applied %+v", LegacyAPIKey(prefs), applied)
	}
}

// A keyring that does not answer (its unlock prompt is waiting, the bus hangs) does not
// freeze the window: Settings opens at once saying it is reading the key, the other fields
// work, Save waits for the key's state, and the answer fills the dialog when it comes.
func TestSettingsReadTheKeyOffTheUIGoroutine(t *testing.T) {
	const key = "sk-behind-a-prompt-2468"
	keys := &memoryKeys{key: key, secure: true, hold: make(chan struct{})}
	var applied []Settings
	h := newHarness(t, func(_ *fakeBackend, d *Deps) {
		d.Keys = keys
		d.Apply = func(s Settings) error { applied = append(applied, s); return nil }
	})
	// If showSettings waited for the read on this (the UI) goroutine, only this watchdog
	// would release it, and the test fails saying so.
	var watchdogReleased atomic.Bool
	watchdog := time.AfterFunc(10*time.Second, func() { watchdogReleased.Store(true); close(keys.hold) })
	h.m.showSettings()
	if watchdogReleased.Load() || !watchdog.Stop() {
		t.Fatal("opening Settings waited for the keyring on the UI goroutine")
	}
	f := h.m.settings
	if f.keyKnown || f.keyState.Text != "Reading the key…" || !f.keyState.Visible() {
		t.Fatalf("while reading: known %v, %q", f.keyKnown, f.keyState.Text)
	}
	test.Type(f.baseURL, "https://example.com/v1")
	if f.baseURL.Text != "https://example.com/v1" {
		t.Fatalf("typing while the key is read gave %q", f.baseURL.Text)
	}
	f.dlg.Submit()
	h.settle()
	if len(applied) != 0 || len(h.m.modals) == 0 || h.m.modals[len(h.m.modals)-1] != f.dlg {
		t.Fatal("Save was possible before the key's state was known")
	}
	close(keys.hold)
	h.waitFor("the key's state", func() bool { return f.keyKnown })
	if !strings.Contains(f.apiKey.PlaceHolder, providers.MaskKey(key)) || f.keyState.Visible() {
		t.Fatalf("after the read: %q, %q", f.apiKey.PlaceHolder, f.keyState.Text)
	}
	f.dlg.Submit()
	h.waitFor("the settings applied", func() bool { return len(applied) == 1 })
	if got, sets := keys.stored(); got != key || sets != 0 || applied[0].APIKey != key || applied[0].BaseURL != "https://example.com/v1" {
		t.Fatalf("stored %q after %d writes, applied %+v", got, sets, applied)
	}
}

// A read that never answers gives up after the store's limit and is treated like a failed
// read: the dialog says so, and Save keeps the stored key.
func TestSettingsGiveUpOnAKeyringThatDoesNotAnswer(t *testing.T) {
	const key = "sk-behind-a-hung-bus-1357"
	keys := &memoryKeys{key: key, secure: true, hold: make(chan struct{}), limit: time.Millisecond}
	t.Cleanup(func() { close(keys.hold) })
	h := newHarness(t, func(_ *fakeBackend, d *Deps) { d.Keys = keys })
	f := h.openSettings()
	if !strings.Contains(f.keyState.Text, "did not answer within") || !strings.Contains(f.keyState.Text, "Unlock the keyring") {
		t.Fatalf("the dialog says %q", f.keyState.Text)
	}
	f.dlg.Submit()
	h.waitFor("the explanation", func() bool { return strings.Contains(h.errorShown(), "the saved key was kept") })
	if got, sets := keys.stored(); got != key || sets != 0 {
		t.Fatalf("stored %q after %d writes", got, sets)
	}
}
