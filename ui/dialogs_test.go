package ui

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
)

func TestNewConversationDialog_REQ_BED_014(t *testing.T) {
	h := newHarness(t, nil)
	dir := t.TempDir()
	h.app.Preferences().SetString(prefLastCwd, dir)
	h.m.showNewConversation()
	f := h.m.newForm
	if f.cwd.Text != dir {
		t.Errorf("default directory %q, want the last used %q", f.cwd.Text, dir)
	}
	if f.mode.Selected != modeRestrictedLabel {
		t.Errorf("default mode %q", f.mode.Selected)
	}
	if f.model.Text != domain.DemoModel || !strings.Contains(f.hint.Text, "Demo (offline)") {
		t.Errorf("model %q, hint %q", f.model.Text, f.hint.Text)
	}
	if err := validDir(dir + "/missing"); err == nil {
		t.Error("a missing directory is accepted")
	}
	if h.m.win.Canvas().Focused() != fyne.Focusable(f.cwd) {
		t.Error("the directory field does not have the focus")
	}
	f.title.SetText("Tidy up")
	// Enter in a field creates the conversation.
	f.title.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.waitFor("the new conversation to open", func() bool { return h.m.current != nil })
	got := h.f.created[0]
	if got.Cwd != dir || got.Unrestricted || got.Model != domain.DemoModel || got.Title != "Tidy up" {
		t.Errorf("created %+v", got)
	}
	if h.m.header.mode.text != "Restricted" {
		t.Errorf("badge %q", h.m.header.mode.text)
	}
	if h.m.win.Canvas().Focused() != fyne.Focusable(h.m.composer.entry) {
		t.Error("the composer does not have the focus")
	}
}

func TestSettingsDialog(t *testing.T) {
	var applied []Settings
	h := newHarness(t, func(_ *fakeBackend, d *Deps) {
		d.ListModels = func(_ context.Context, s Settings) ([]string, error) {
			if s.APIKey != "sk-secret-key-1234" {
				return nil, errors.New("401 unauthorized")
			}
			return []string{"gpt-4o", "gpt-4o-mini"}, nil
		}
		d.Apply = func(s Settings) error { applied = append(applied, s); return nil }
		d.EnvOverrides = func() map[string]string { return map[string]string{FieldBaseURL: "PHOENIX_BASE_URL"} }
	})
	f := h.openSettings()
	if !f.baseURL.Disabled() {
		t.Error("the base URL is editable though the environment sets it")
	}
	f.preset.SetSelected("OpenAI")
	if f.baseURL.Text != "" {
		t.Errorf("a preset overwrote the environment's base URL: %q", f.baseURL.Text)
	}
	test.Type(f.apiKey, "sk-wrong")
	test.Tap(f.test)
	h.waitFor("the failure", func() bool { return strings.HasPrefix(f.result.Text, "Connection failed: 401") })
	f.apiKey.SetText("sk-secret-key-1234")
	test.Tap(f.test)
	h.waitFor("the models", func() bool { return strings.HasPrefix(f.result.Text, "Connected") })
	if !slices.Contains(h.m.modelOptions(), "gpt-4o-mini") {
		t.Error("listed models are not offered")
	}
	f.model.SetText("gpt-4o-mini")
	f.dlg.Submit()
	h.waitFor("the settings applied", func() bool { return len(applied) == 1 })
	// The preset is applied by its name, the one the client's configuration knows.
	if len(applied) != 1 || applied[0].APIKey != "sk-secret-key-1234" || applied[0].Model != "gpt-4o-mini" || applied[0].Preset != "openai" {
		t.Fatalf("applied %+v", applied)
	}
	if LoadSettings(h.app.Preferences()).APIKey != "sk-secret-key-1234" {
		t.Error("the key was not saved")
	}
	// Opened again, the key is never shown back in full.
	f2 := h.openSettings()
	if f2.apiKey.Text != "" || !strings.Contains(f2.apiKey.PlaceHolder, "****1234") || strings.Contains(f2.apiKey.PlaceHolder, "secret") {
		t.Errorf("key field %q / %q", f2.apiKey.Text, f2.apiKey.PlaceHolder)
	}
	// Left empty, the saved key stays.
	if f2.current().APIKey != "sk-secret-key-1234" {
		t.Error("an empty key field drops the saved key")
	}
}

// TestExportIsTheSharedDocument: Ctrl+E saves exactly the bytes of
// transcript's golden export for the same conversation, which the command line's export test
// compares with too: the window and `phoenix-desktop export` write one document.
func TestExportIsTheSharedDocument(t *testing.T) {
	raw, err := os.ReadFile("../transcript/testdata/conversation.json")
	if err != nil {
		t.Fatal(err)
	}
	var sample struct {
		Conversation domain.Conversation `json:"conversation"`
		Messages     []domain.Message    `json:"messages"`
		Images       map[string][]byte   `json:"images"`
	}
	if err := json.Unmarshal(raw, &sample); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		maps.Copy(f.blobs, sample.Images)
		f.convs[sample.Conversation.ID] = &fakeConv{conv: sample.Conversation, msgs: sample.Messages}
		f.order = append(f.order, sample.Conversation.ID)
	})
	h.open(sample.Conversation.ID)
	got, ok := h.m.exportDocument()
	if !ok {
		t.Fatal("the open conversation cannot be exported")
	}
	want, err := os.ReadFile("../transcript/testdata/export.golden.md")
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("Ctrl+E writes a different document than transcript's golden export:\n%s", got)
	}
}

func TestWindowSizeRemembered(t *testing.T) {
	h := newHarness(t, nil)
	h.m.win.Resize(fyne.NewSize(900, 600))
	h.m.saveWindow()
	if got := h.app.Preferences().String(prefGeometry); got != "900 600" {
		t.Fatalf("saved %q (the test driver has no window position)", got)
	}
	m2 := NewMainWindow(h.app, h.f, &fakeSub{ch: make(chan actors.Event)}, h.deps)
	defer m2.win.Close()
	if s := m2.win.Canvas().Size(); s != fyne.NewSize(900, 600) {
		t.Errorf("restored size %v", s)
	}
	for _, c := range []struct {
		in string
		ok bool
		g  geometry
	}{
		{"1000 650 130 70", true, geometry{W: 1000, H: 650, X: 130, Y: 70, HasPos: true}},
		{"1000.5 650", true, geometry{W: 1000.5, H: 650}},
		{"", false, geometry{}},
		{"0 650", false, geometry{H: 650}},
	} {
		g, ok := parseGeometry(c.in)
		if ok != c.ok || (ok && g != c.g) {
			t.Errorf("parseGeometry(%q) = %+v, %v", c.in, g, ok)
		}
	}
}

// TestEscapeClosesDialogs: Escape in any text field of the New conversation and Settings
// dialogs cancels them, and so does Escape with no field focused; it does not reach the
// agent's Stop while a dialog is open.
func TestEscapeClosesDialogs(t *testing.T) {
	h := newHarness(t, nil)
	esc := &fyne.KeyEvent{Name: fyne.KeyEscape}
	open := func() bool { return h.m.win.Canvas().Overlays().Top() != nil }

	h.m.showNewConversation()
	if !open() {
		t.Fatal("the New conversation dialog did not open")
	}
	h.m.newForm.cwd.TypedKey(esc)
	if open() || len(h.m.modals) != 0 {
		t.Fatal("Escape in the directory field left the New conversation dialog open")
	}
	h.m.showNewConversation()
	h.m.newForm.model.TypedKey(esc)
	if open() {
		t.Fatal("Escape in the model field left the dialog open")
	}
	n := len(h.f.convs)
	h.m.showNewConversation()
	h.m.win.Canvas().Unfocus()
	h.m.win.Canvas().OnTypedKey()(esc)
	if open() {
		t.Fatal("Escape with no field focused left the dialog open")
	}
	if len(h.f.convs) != n {
		t.Error("cancelling with Escape created a conversation")
	}

	h.m.showSettings()
	if !open() {
		t.Fatal("the Settings dialog did not open")
	}
	h.m.settings.apiKey.TypedKey(esc)
	if open() {
		t.Fatal("Escape in the API key field left Settings open")
	}
	h.m.showSettings()
	h.m.settings.baseURL.TypedKey(esc)
	if open() {
		t.Fatal("Escape in the base URL field left Settings open")
	}
	// Other keys still edit the field.
	h.m.showSettings()
	test.Type(h.m.settings.baseURL, "x")
	if !strings.HasSuffix(h.m.settings.baseURL.Text, "x") || !open() {
		t.Errorf("typing in the base URL gave %q", h.m.settings.baseURL.Text)
	}
}

// TestEscapeClosesTheModelAndDeleteDialogs: the model switch and the delete confirmation
// close on Escape too, from their field or with nothing focused, and cancel.
func TestEscapeClosesTheModelAndDeleteDialogs(t *testing.T) {
	h, _ := newOpenConversation(t, nil)
	esc := &fyne.KeyEvent{Name: fyne.KeyEscape}
	open := func() bool { return h.m.win.Canvas().Overlays().Top() != nil }
	model := h.m.current.conv.Model

	h.m.proj.showModelDialog()
	if !open() {
		t.Fatal("the model dialog did not open")
	}
	h.m.proj.modelEntry.SetText("another-model")
	h.m.proj.modelEntry.TypedKey(esc)
	if open() || len(h.m.modals) != 0 {
		t.Fatal("Escape in the model field left the dialog open")
	}
	if h.m.current.conv.Model != model {
		t.Errorf("Escape switched the model to %q", h.m.current.conv.Model)
	}

	n := len(h.f.convs)
	h.m.askDelete(h.m.current)
	if !open() {
		t.Fatal("the delete confirmation did not open")
	}
	h.m.win.Canvas().Unfocus()
	h.m.win.Canvas().OnTypedKey()(esc)
	if open() {
		t.Fatal("Escape left the delete confirmation open")
	}
	if len(h.f.convs) != n {
		t.Error("cancelling with Escape deleted the conversation")
	}
}

// TestExportSaysWhereItSaved (issue 41 item 7): after the file dialog, the export says the
// file it wrote (it saved with no word), and a cancelled dialog says nothing.
func TestExportSaysWhereItSaved(t *testing.T) {
	h, _ := newOpenConversation(t, nil)
	path := filepath.Join(t.TempDir(), "talk.md")
	w, err := storage.Writer(storage.NewFileURI(path))
	if err != nil {
		t.Fatal(err)
	}
	md, _ := h.m.exportDocument()
	h.m.writeExport(w, nil, md)
	if got := h.m.notice.label.Text; !strings.Contains(got, path) {
		t.Errorf("after the export the window says %q, not where it saved (%s)", got, path)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != md {
		t.Errorf("the file holds %d bytes (%v), want the export", len(b), err)
	}
	h.m.clearInline()
	h.m.writeExport(nil, nil, md)
	if got := h.m.notice.label.Text; got != "" {
		t.Errorf("a cancelled export says %q", got)
	}
}
