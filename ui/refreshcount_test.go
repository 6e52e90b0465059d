package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
)

// Issue 39, the round in the window: every Refresh of a widget or container ends in the
// canvas's Refresh, which asks runtime.Stack which goroutine it runs on and marks the window
// for a repaint. A tool round's state changes must refresh what they change, not the whole
// window. These tests count the canvas refreshes of a round through a Fyne app whose driver
// hands out counting canvases.

// countingApp is the current Fyne app with a driver whose canvases count their refreshes.
type countingApp struct {
	fyne.App
	d *countingDriver
}

func (a countingApp) Driver() fyne.Driver { return a.d }

type countingDriver struct {
	fyne.Driver
	n int
}

func (d *countingDriver) CanvasForObject(o fyne.CanvasObject) fyne.Canvas {
	c := d.Driver.CanvasForObject(o)
	if c == nil {
		return nil
	}
	return countingCanvas{Canvas: c, d: d}
}

type countingCanvas struct {
	fyne.Canvas
	d *countingDriver
}

func (c countingCanvas) Refresh(o fyne.CanvasObject) {
	c.d.n++
	c.Canvas.Refresh(o)
}

// countRefreshes runs f with the counting app current and returns how many canvas refreshes
// it made.
func (h *harness) countRefreshes(f func()) int {
	h.t.Helper()
	d := &countingDriver{Driver: h.app.Driver()}
	fyne.SetCurrentApp(countingApp{App: h.app, d: d})
	defer fyne.SetCurrentApp(h.app)
	f()
	return d.n
}

// toolRound plays one bash round of the open conversation id as the runtime publishes it
// (the reply that calls the tool, the tool running, its result, the next request), each step
// applied as its own batch as the pump hands them over when rounds are a few ms apart.
func (h *harness) toolRound(id string, i int) {
	h.t.Helper()
	h.f.respond(h.t, id, "", []domain.ToolCall{bashCall(fmt.Sprintf("r%d", i), "true")}, domain.Usage{InputTokens: 1000 + 50*i, OutputTokens: 20})
	h.waitFor("the tool to run", func() bool {
		_, ok := h.m.current.conv.State.(domain.ToolExecuting)
		return ok
	})
	h.settle()
	h.f.completeTool(h.t, id, domain.ToolResult{Outcome: domain.OutcomeSuccess, Content: "", Display: &domain.ToolDisplay{Summary: "exit 0"}})
	h.waitFor("the next request", func() bool {
		_, ok := h.m.current.conv.State.(domain.LLMRequesting)
		return ok
	})
	h.settle()
}

// A tool round of the open conversation refreshes only what changed: the chat's new rows,
// the status line and the meter, not the sidebar's rows, the whole header, composer or right
// pane (the old code: 2 state changes each refreshing every part, several hundred canvas
// refreshes a round).
func TestToolRoundRefreshesOnlyWhatChanged_Issue39(t *testing.T) {
	h, id := newOpenConversation(t, func(f *fakeBackend, _ *Deps) {
		for i := range 6 {
			f.add(domain.NewConversationParams{Title: fmt.Sprintf("Other %d", i), Cwd: "/home/ada/src/other", Model: "gpt-4o"})
		}
	})
	h.typeAndSend("run true a few times")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	h.toolRound(id, 0) // the first round adds the tool row's kind and the meter
	h.toolRound(id, 1)
	var counts []int
	for i := 2; i < 10; i++ {
		counts = append(counts, h.countRefreshes(func() { h.toolRound(id, i) }))
		// The round's rows are drawn: the newest is on screen, as its row says.
		last := h.lastRow()
		if !slices.ContainsFunc(h.visibleRowViews(), func(v *rowView) bool { return v.bound == last && v.boundVer == last.ver }) {
			t.Fatalf("round %d: the newest row (%v) is not on screen as it is now", i+1, last.kind)
		}
	}
	// The median: one round refreshes the rows on screen at a new width (the chat's
	// scroll bar appears when the rows overflow the view). What is left is mostly the chat
	// list's: Fyne's List refreshes every row it shows when it is told a new row's height
	// (SetItemHeight). The old code made about 1,550 a round here, 300 with only the chat
	// list refreshed whole at every change.
	const most = 280
	if n := median(counts); n > most {
		t.Fatalf("a tool round made %v canvas refreshes (rounds 3 to 10), median %d; at most %d: a state change refreshes more than it changed", counts, n, most)
	}
	t.Logf("canvas refreshes per round: %v", counts)
}

// The parts refreshed only where they change still show what each state change says: the
// status line, the meter, the header's title and the sidebar's row of the conversation.
func TestPartsShowEachStateChangeOfARound_Issue39(t *testing.T) {
	h, id := newOpenConversation(t, func(f *fakeBackend, _ *Deps) {
		f.add(domain.NewConversationParams{Title: "Other", Cwd: "/home/ada/src/other", Model: "gpt-4o"})
	})
	h.typeAndSend("run true")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	row := func() *sideRow { return sideRowOf(h, id) }
	look := func() rowLook { return h.m.sidebar.lookOf(h.m.current) }
	thinking := look().sub
	h.f.respond(t, id, "", []domain.ToolCall{bashCall("r0", "true")}, domain.Usage{InputTokens: 12_000, OutputTokens: 20})
	h.waitFor("the tool to run", func() bool {
		_, ok := h.m.current.conv.State.(domain.ToolExecuting)
		return ok
	})
	h.settle()
	if r := row(); r == nil || r.sub.Text != look().sub || r.sub.Text == thinking {
		t.Fatalf("the sidebar's row does not say the tool runs: %q (want %q, not %q)", r.sub.Text, look().sub, thinking)
	}
	if !strings.Contains(h.status(), "true") && !strings.Contains(h.status(), "Running") {
		t.Fatalf("the status line does not say the command runs: %q", h.status())
	}
	if want := meterText(h.m.current.conv.Usage, h.m.current.conv.Window()); !strings.Contains(h.m.header.meterLabel.Text, want) {
		t.Fatalf("the meter says %q, want %q in it", h.m.header.meterLabel.Text, want)
	}
	h.f.completeTool(t, id, domain.ToolResult{Outcome: domain.OutcomeSuccess, Display: &domain.ToolDisplay{Summary: "exit 0"}})
	h.waitFor("the next request", func() bool { return h.status() == "Thinking…" })
	h.settle()
	if r := row(); r.sub.Text != thinking {
		t.Fatalf("the sidebar's row says %q after the tool, want %q", r.sub.Text, thinking)
	}
	renamed := h.f.conversation(id)
	renamed.Title = "Work, renamed"
	h.f.publish(actors.StateChanged{Conv: renamed})
	h.waitFor("the new title", func() bool { return h.m.header.title.Text == "Work, renamed" })
	h.settle()
	if r := row(); r.title.Text != "Work, renamed" {
		t.Fatalf("the sidebar's row is titled %q, want the new title", r.title.Text)
	}
	if got := h.m.win.Title(); got != AppTitle+" — Work, renamed" {
		t.Fatalf("the window is titled %q", got)
	}
}

func median(xs []int) int {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
