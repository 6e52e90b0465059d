package ui

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm"
	"github.com/phoenix-desktop/phoenix/llm/fakellm"
	"github.com/phoenix-desktop/phoenix/providers"
)

// firstRun opens the window as a first run: no provider configured, keys in memory, the
// probe a real llm client sent to the fake server instead of the preset's address.
func firstRun(t *testing.T, edit func(*Deps)) (*harness, *fakellm.Server, *memoryKeys, *[]Settings) {
	t.Helper()
	srv, err := fakellm.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	keys := &memoryKeys{secure: true}
	var applied []Settings
	h := newHarness(t, func(_ *fakeBackend, d *Deps) {
		d.FirstRun = true
		d.Keys = keys
		d.StartDir = t.TempDir()
		d.Apply = func(s Settings) error { applied = append(applied, s); return nil }
		d.Probe = func(ctx context.Context, s Settings) (string, error) {
			c, err := llm.New(llm.Config{BaseURL: srv.URL(), APIKey: s.APIKey, Model: s.Model, IdleTimeout: 10 * time.Second}, nil)
			if err != nil {
				return "", err
			}
			got, err := c.Probe(ctx)
			return got.String(), err
		}
		if edit != nil {
			edit(d)
		}
	})
	return h, srv, keys, &applied
}

// TestFirstRunWelcomeCard (issue 28 item 1): with no provider the window opens on the welcome
// card, which offers the presets of the providers table, tests a key with a real request
// (the fake server) and says plainly what came back, and saves the key where Settings does.
func TestFirstRunWelcomeCard(t *testing.T) {
	h, srv, keys, applied := firstRun(t, nil)
	w := h.m.welcome
	if w == nil || h.m.chatHolder.Objects[0] != w.obj {
		t.Fatal("a first run does not open on the welcome card")
	}
	var labels []string
	for _, p := range providers.All() {
		labels = append(labels, p.Label)
	}
	if !slices.Equal(w.preset.Options, labels) || w.preset.Selected != providers.Label(providers.Default) {
		t.Fatalf("the card offers %q (%q chosen); want the providers table %q", w.preset.Options, w.preset.Selected, labels)
	}
	if !w.save.Disabled() || !w.test.Disabled() {
		t.Fatal("Save and Test are enabled before a key is typed for a provider that needs one")
	}

	// A key the provider refuses: the provider's words, in red.
	test.Type(w.key, "sk-wrong-key-0000000000")
	srv.Enqueue(fakellm.Failure(401, "Incorrect API key provided"))
	test.Tap(w.test)
	h.waitFor("the test's answer", func() bool { return !w.busy })
	if got := w.result.Text; !strings.HasPrefix(got, "Connection failed:") || !strings.Contains(got, "Incorrect API key") {
		t.Fatalf("a refused key says %q", got)
	}

	// A good key: one small chat request with that key and the preset's model.
	w.key.SetText("sk-good-key-1234567890")
	srv.Enqueue(fakellm.Text("OK", 1))
	test.Tap(w.test)
	h.waitFor("the test's answer", func() bool { return !w.busy })
	want := "Connected: " + providers.All()[0].DefaultModel + " answered “OK”."
	if got := w.result.Text; !strings.HasPrefix(got, want) {
		t.Fatalf("a good key says %q; want %q", got, want)
	}
	last := srv.Requests()[len(srv.Requests())-1]
	if last.Chat == nil || last.Header.Get("Authorization") != "Bearer sk-good-key-1234567890" || last.Chat.OutputLimit() == 0 {
		t.Fatalf("the test sent %+v with %q", last.Chat, last.Header.Get("Authorization"))
	}

	// Save and start: the key goes to the key store, never the preferences file; the
	// provider is saved and applied; the card gives way to the empty state.
	test.Tap(w.save)
	h.waitFor("the settings applied", func() bool { return len(*applied) == 1 })
	if key, sets := keys.stored(); key != "sk-good-key-1234567890" || sets != 1 {
		t.Fatalf("the key store holds %q after %d writes", key, sets)
	}
	if LegacyAPIKey(h.app.Preferences()) != "" {
		t.Fatal("the key was written to the preferences file")
	}
	saved := LoadSettings(h.app.Preferences())
	if p := providers.All()[0]; saved.Preset != p.Name || saved.BaseURL != p.BaseURL || (*applied)[0].APIKey != "sk-good-key-1234567890" {
		t.Fatalf("saved %+v, applied %+v", saved, (*applied)[0])
	}
	if h.m.welcome != nil || h.m.chatHolder.Objects[0] != h.m.empty {
		t.Fatal("the welcome card stayed after the key was saved")
	}
}

// TestFirstRunLocalServerNeedsNoKey: a local preset is saved without a key.
func TestFirstRunLocalServerNeedsNoKey(t *testing.T) {
	h, _, keys, applied := firstRun(t, nil)
	w := h.m.welcome
	w.preset.SetSelected(providers.Label(providers.Ollama))
	if w.save.Disabled() {
		t.Fatal("a local server cannot be saved without a key")
	}
	test.Tap(w.save)
	h.waitFor("the settings applied", func() bool { return len(*applied) == 1 })
	if (*applied)[0].Preset != providers.Ollama {
		t.Fatalf("applied %+v", (*applied)[0])
	}
	if _, sets := keys.stored(); sets != 0 {
		t.Fatal("saving without a key wrote the key store")
	}
}

// TestFirstRunDemoExamples: each example starts a conversation with the demo model in the
// folder the app was started in and sends the example; the header and the status bar show
// the "Demo (offline)" chip while the demo answers, and not for another model.
func TestFirstRunDemoExamples(t *testing.T) {
	h, _, _, _ := firstRun(t, nil)
	w := h.m.welcome
	if len(w.examples) != 3 {
		t.Fatalf("%d examples; want three", len(w.examples))
	}
	if h.m.demo.header.Visible() || h.m.demo.status.Visible() {
		t.Fatal("the demo chips show with no conversation open")
	}
	test.Tap(w.examples[0])
	h.waitFor("the demo conversation", func() bool { return h.m.current != nil && h.m.current.loaded })
	h.settle()
	h.f.mu.Lock()
	created, sent := slices.Clone(h.f.created), slices.Clone(h.f.sent)
	h.f.mu.Unlock()
	if len(created) != 1 || created[0].Model != domain.DemoModel || created[0].Cwd != h.deps.StartDir {
		t.Fatalf("created %+v; want the demo model in the start folder", created)
	}
	if len(sent) != 1 || sent[0].text != demoPrompts[0].Text {
		t.Fatalf("sent %+v; want the example", sent)
	}
	for name, chip := range map[string]*badge{"header": h.m.demo.header, "status bar": h.m.demo.status} {
		if !chip.Visible() || chip.text != domain.DemoModelLabel {
			t.Errorf("the %s's chip: visible %v, %q", name, chip.Visible(), chip.text)
		}
	}

	other, err := h.f.Create(t.Context(), NewConversation{Title: "real", Cwd: t.TempDir(), Model: "gpt-4.1"})
	if err != nil {
		t.Fatal(err)
	}
	h.open(other.ID)
	if h.m.demo.header.Visible() || h.m.demo.status.Visible() {
		t.Error("the demo chips show for another model")
	}
}

// TestNoWelcomeOnceConfigured: with a provider the window opens on the empty state.
func TestNoWelcomeOnceConfigured(t *testing.T) {
	h := newHarness(t, nil)
	if h.m.welcome != nil || h.m.chatHolder.Objects[0] != h.m.empty {
		t.Fatal("a configured app opens on the welcome card")
	}
}
