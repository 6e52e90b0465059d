package ui

import (
	"errors"
	"strings"
	"testing"
)

// Issue 25 item 4: on a disk that is short the settings are not saved (neither the key nor
// the preferences), the dialog says so in the disk's words, and nothing is applied.
func TestSettingsNotSavedOnAFullDisk(t *testing.T) {
	keys := &memoryKeys{key: "sk-kept-as-it-was-1234", secure: false}
	var applied []Settings
	full := errors.New("The disk holding your conversations is full: free 5 MB; nothing was lost")
	h := newHarness(t, func(_ *fakeBackend, d *Deps) {
		d.Keys = keys
		d.Apply = func(s Settings) error { applied = append(applied, s); return nil }
		d.SettingsSpace = func() error { return full }
	})
	before := h.app.Preferences().String(prefModel)
	f := h.openSettings()
	f.model.SetText("gpt-4o-mini")
	f.apiKey.SetText("sk-new-key-not-saved-5678")
	f.dlg.Submit()
	h.waitFor("the refusal", func() bool { return strings.Contains(h.errorShown(), "settings were not saved") })
	if !strings.Contains(h.errorShown(), full.Error()) {
		t.Fatalf("the refusal does not say the disk is full: %q", h.errorShown())
	}
	if got, sets := keys.stored(); got != "sk-kept-as-it-was-1234" || sets != 0 {
		t.Fatalf("on a full disk the key became %q after %d writes", got, sets)
	}
	if got := h.app.Preferences().String(prefModel); got != before || len(applied) != 0 {
		t.Fatalf("on a full disk: model %q (was %q), applied %+v", got, before, applied)
	}
}
