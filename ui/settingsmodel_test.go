package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// TestSettingsReplyLimitAndReasoningEffort (issue 28): Settings offers a reply limit for the
// default model and, only for a thinking model, a reasoning effort; both are kept per model,
// saved, handed to Apply (the runtime's next request) and shown again; a limit that is not a
// number keeps the dialog open with what was typed.
func TestSettingsReplyLimitAndReasoningEffort(t *testing.T) {
	var applied []Settings
	h := newHarness(t, func(_ *fakeBackend, d *Deps) {
		d.Apply = func(s Settings) error { applied = append(applied, s); return nil }
	})
	f := h.openSettings()
	c := f.choices
	f.model.SetText("gpt-4o")
	if !c.effortRow.Hidden {
		t.Fatal("a reasoning effort is offered for gpt-4o, which does not think")
	}
	test.Type(c.limit, "2048")
	f.model.SetText("o3")
	if c.effortRow.Hidden {
		t.Fatal("no reasoning effort is offered for o3")
	}
	if c.limit.Text != "" {
		t.Fatalf("o3's limit shows gpt-4o's %q", c.limit.Text)
	}
	c.effort.SetSelected("high")
	test.Type(c.limit, "12x")
	f.dlg.Submit()
	if h.m.win.Canvas().Overlays().Top() == nil || c.limit.Text != "12x" || len(applied) != 0 {
		t.Fatal("a limit that is not a number was submitted or lost")
	}
	if c.note.Importance != widget.DangerImportance || !strings.Contains(c.note.Text, "whole number of tokens") {
		t.Fatalf("the field says %q", c.note.Text)
	}
	c.limit.SetText("30000")
	f.dlg.Submit()
	h.waitFor("the settings applied", func() bool { return len(applied) == 1 })
	got := applied[0]
	if got.Model != "o3" || got.OutputLimits["o3"] != 30000 || got.OutputLimits["gpt-4o"] != 2048 ||
		got.ReasoningEfforts["o3"] != "high" || len(got.ReasoningEfforts) != 1 {
		t.Fatalf("applied %+v", got)
	}
	saved := LoadSettings(h.app.Preferences())
	if saved.OutputLimits["o3"] != 30000 || saved.OutputLimits["gpt-4o"] != 2048 || saved.ReasoningEfforts["o3"] != "high" {
		t.Fatalf("saved %+v", saved)
	}

	// Opened again, the dialog shows the saved choices; "Provider default" removes the effort.
	f = h.openSettings()
	if f.model.Text != "o3" || f.choices.limit.Text != "30000" || f.choices.effort.Selected != "high" {
		t.Fatalf("reopened: model %q, limit %q, effort %q", f.model.Text, f.choices.limit.Text, f.choices.effort.Selected)
	}
	f.choices.effort.SetSelected(defaultEffort)
	f.dlg.Submit()
	h.waitFor("the settings applied", func() bool { return len(applied) == 2 })
	if _, ok := applied[1].ReasoningEfforts["o3"]; ok || applied[1].OutputLimits["o3"] != 30000 {
		t.Fatalf("applied %+v", applied[1])
	}
}
