package ui

import (
	"testing"

	"fyne.io/fyne/v2"

	"github.com/phoenix-desktop/phoenix/domain"
)

// TestLongConversationOpensAtItsEndWithNoGuessedFrame (issue 41 item 4): a 10,000-message
// conversation opens at its end; while it loads, the status bar does not say "Loading…" (only
// once a load is slow) and "Wrap up now" is not offered; the rows of the first frame are drawn
// at their own heights (none at the list's estimate, which overlaps the next row for a frame).
func TestLongConversationOpensAtItsEndWithNoGuessedFrame(t *testing.T) {
	var short, long string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		short = f.add(domain.NewConversationParams{Title: "Short", Cwd: "/s", Model: "gpt-4o"},
			domain.Message{Kind: domain.KindUser, Text: "hello"}).ID
		long = f.add(domain.NewConversationParams{Title: "Long", Cwd: "/l", Model: "gpt-4o"}, longHistory(10_000)...).ID
		c := f.convs[long]
		c.conv.ContextWindow = 100_000
		c.conv.Usage = domain.Usage{InputTokens: 90_000}
	})
	h.m.win.Resize(fyne.NewSize(1100, 800))
	h.open(short)
	h.settle()

	h.f.mu.Lock() // the snapshot waits
	h.m.open(long)
	h.m.header.refresh()
	if got := h.m.status.label.Text; got != "" {
		t.Errorf("while loading, the status bar says %q at once", got)
	}
	if h.m.header.wrapBtn.Visible() {
		t.Error("\"Wrap up now\" is offered while the conversation loads")
	}
	h.waitFor("Loading… once the load is slow", func() bool { return h.m.status.label.Text == "Loading…" })
	h.f.mu.Unlock()
	h.waitFor("loaded", func() bool { return h.m.current.loaded })
	h.settle()

	cv := h.m.cv
	if cv.drawnAtGuess != 0 {
		t.Errorf("%d rows were drawn at a guessed height on opening", cv.drawnAtGuess)
	}
	if !cv.atBottom(1) {
		t.Errorf("opened at offset %v of %v, not at the end", cv.list.GetScrollOffset(), cv.contentHeight())
	}
	last := h.lastRow()
	shown := false
	for _, v := range h.visibleRowViews() {
		shown = shown || v.bound == last
	}
	if !shown {
		t.Error("the last row is not on screen")
	}
	if got := h.m.status.label.Text; got == "Loading…" {
		t.Error("still Loading… after the load")
	}
	if !h.m.header.wrapBtn.Visible() {
		t.Error("\"Wrap up now\" is not offered at 90% once loaded")
	}
}
