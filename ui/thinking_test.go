package ui

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/transcript"
	"github.com/phoenix-desktop/phoenix/ui/button"
)

// thinkingView returns the part that draws the first visible Thinking block.
func (h *harness) thinkingView() *thinkingPart {
	h.t.Helper()
	for _, v := range h.visibleRowViews() {
		if v.bound.kind == rowThinking {
			return v.parts[rowThinking].(*thinkingPart)
		}
	}
	h.t.Fatal("no visible row shows a Thinking block")
	return nil
}

// think plays a thinking model: it streams thought word by word as reasoning of the
// current request, waits until the live block shows all of it, and returns the request.
func (h *harness) think(id, thought string) domain.ExecID {
	h.t.Helper()
	exec := h.f.exec(id)
	for _, w := range strings.SplitAfter(thought, " ") {
		h.f.publish(actors.TextDelta{ConvID: id, Exec: exec, Text: w, Reasoning: true})
	}
	h.waitFor("the live Thinking block", func() bool {
		r := h.lastRow()
		return r != nil && r.kind == rowThinking && r.text == thought
	})
	h.settle()
	return exec
}

func kindsOf(rows []*row) []rowKind {
	var out []rowKind
	for _, r := range rows {
		out = append(out, r.kind)
	}
	return out
}

// A thinking model's reasoning shows live in an open Thinking block above the answer, with
// its size in the status bar; the block closes when the answer starts, a click opens it
// again, and the committed reply keeps a closed block of its own that opens on a click.
func TestThinkingBlockLiveAndCollapsed(t *testing.T) {
	h, id := newOpenConversation(t, nil)
	h.typeAndSend("hi")
	h.waitFor("Thinking… in the status bar", func() bool { return h.status() == "Thinking…" })
	thought := "The person greets me.\n\nI should greet them back, briefly."
	exec := h.think(id, thought)
	want := transcript.Thinking(domain.EstimateTokens(thought, 0))
	if h.status() != want {
		t.Errorf("status %q while the model thinks, want %q", h.status(), want)
	}
	p := h.thinkingView()
	if p.body.Hidden || !strings.HasPrefix(p.toggle.Text, "Thinking…") {
		t.Fatalf("live block: body hidden %v, header %q; want it open, saying Thinking…", p.body.Hidden, p.toggle.Text)
	}
	if got := p.done.Text() + "\n\n" + strings.TrimSuffix(p.tail.Text(), " ▍"); got != thought {
		t.Errorf("the block shows %q, want %q", got, thought)
	}

	// The answer starts: the block closes and sits above the streamed text.
	h.f.publish(actors.TextDelta{ConvID: id, Exec: exec, Text: "Hello"})
	h.waitFor("the streamed answer", func() bool { r := h.lastRow(); return r != nil && r.kind == rowStreaming })
	h.settle()
	if got := kindsOf(h.rows()); !slices.Equal(got, []rowKind{rowUser, rowThinking, rowStreaming}) {
		t.Fatalf("rows %v, want the user message, the reasoning, then the answer", got)
	}
	p = h.thinkingView()
	if !p.body.Hidden || h.rows()[1].expanded {
		t.Fatal("the Thinking block stays open after the answer started")
	}
	if h.status() != "Thinking…" {
		t.Errorf("status %q once the answer streams, want Thinking…", h.status())
	}
	test.Tap(p.toggle)
	h.settle()
	if p = h.thinkingView(); p.body.Hidden {
		t.Fatal("a click does not open the closed block")
	}
	// More answer text leaves the block as the person set it.
	h.f.publish(actors.TextDelta{ConvID: id, Exec: exec, Text: " there"})
	h.waitFor("more answer", func() bool { r := h.lastRow(); return r != nil && r.text == "Hello there" })
	if !h.rows()[1].expanded {
		t.Fatal("further text closed the block the person opened")
	}

	// The reply is committed with its reasoning: a closed block above the answer.
	if _, err := h.f.apply(id, domain.LLMResponse{Exec: exec, Text: "Hello there.", Reasoning: &domain.Reasoning{Text: thought},
		Usage: domain.Usage{InputTokens: 900, OutputTokens: 1240, ReasoningTokens: 1200}}); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the committed reply", func() bool { r := h.lastRow(); return r != nil && r.kind == rowAssistant })
	h.settle()
	if got := kindsOf(h.rows()); !slices.Equal(got, []rowKind{rowUser, rowThinking, rowAssistant}) {
		t.Fatalf("rows %v after the commit, want user, reasoning, answer", got)
	}
	p = h.thinkingView()
	if !p.body.Hidden || p.toggle.Text != "Thought (1.2k tokens)" {
		t.Fatalf("committed block: body hidden %v, header %q; want closed, Thought (1.2k tokens)", p.body.Hidden, p.toggle.Text)
	}
	test.Tap(p.toggle)
	h.settle()
	if p = h.thinkingView(); p.body.Hidden || !strings.Contains(p.done.Text()+p.tail.Text(), "greet them back") {
		t.Fatal("a click does not open the committed block on its reasoning")
	}
	if h.status() != "Ready" {
		t.Errorf("status %q after the reply, want Ready", h.status())
	}
	if got := h.m.header.meterLabel.Text; !strings.Contains(got, "2.1k / 128k tokens") {
		t.Errorf("meter says %q; want the reasoning counted (2140 tokens)", got)
	}
}

// A conversation opened from the store shows each reply's reasoning closed above it (a
// reasoning the provider sent encrypted only says so, with its size), and
// find-in-conversation reaches into the reasoning.
func TestThinkingBlockFromHistory(t *testing.T) {
	h, _ := newOpenConversation(t, func(f *fakeBackend, d *Deps) {
		f.add(domain.NewConversationParams{Title: "Old", Cwd: "/tmp", Model: "gpt-4o"},
			domain.Message{Seq: 1, Kind: domain.KindUser, Text: "why?"},
			domain.Message{Seq: 2, Kind: domain.KindAssistant, Text: "Because.", Reasoning: &domain.Reasoning{Text: "Consider the cause carefully."}},
			domain.Message{Seq: 3, Kind: domain.KindUser, Text: "and?"},
			domain.Message{Seq: 4, Kind: domain.KindAssistant, Text: "That is all.", Usage: &domain.Usage{OutputTokens: 700, ReasoningTokens: 512},
				Reasoning: &domain.Reasoning{Details: []byte(`[{"type":"reasoning.encrypted","data":"x","index":0}]`)}})
	})
	var id string
	for _, cs := range h.m.sidebar.convs {
		if cs.conv.Title == "Old" {
			id = cs.id
		}
	}
	h.open(id)
	if got := kindsOf(h.rows()); !slices.Equal(got, []rowKind{rowUser, rowThinking, rowAssistant, rowUser, rowThinking, rowAssistant}) {
		t.Fatalf("rows %v; want a closed block above each reply with reasoning", got)
	}
	if h.rows()[1].expanded || h.rows()[4].expanded {
		t.Error("a stored reasoning opens expanded")
	}
	if got := thinkingHeader(h.rows()[4]); got != "Thought (512 tokens, hidden by the provider)" {
		t.Errorf("the encrypted-only block is headed %q", got)
	}
	if got := h.rows()[4].text; !strings.Contains(got, "keeps this model's reasoning hidden") {
		t.Errorf("the encrypted-only block says %q", got)
	}
	if hits := h.m.current.model.find("cause carefully"); !slices.Equal(hits, []int{1}) {
		t.Errorf("find in the reasoning = %v, want row 1", hits)
	}
}

// Reasoning is Markdown (summaries start with a bold title), rendered by the chat's own
// renderer: identifiers stay whole, every piece is drawn in the quiet style (caption size,
// placeholder colour), and it can be selected and copied like a reply.
func TestThinkingBlockIsQuietSelectableMarkdown(t *testing.T) {
	h, id := newOpenConversation(t, nil)
	h.typeAndSend("fix it")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	thought := "**Planning the fix**\n\n- read `parse.go` and foo_bar.go\n- run the tests"
	h.think(id, thought)
	p := h.thinkingView()
	want := "Planning the fix\n\nread parse.go and foo_bar.go\nrun the tests ▍"
	if got := p.done.Text() + "\n\n" + p.tail.Text(); got != want {
		t.Fatalf("the block shows %q, want %q", got, want)
	}
	var texts []*canvas.Text
	collectTexts(p.obj, &texts)
	var words []string
	for _, tx := range texts {
		if tx.Text == "" || tx.Text == p.toggle.Text || !tx.Visible() {
			continue
		}
		words = append(words, tx.Text)
		if tx.TextSize != theme.Size(theme.SizeNameCaptionText) || tx.Color != theme.Color(theme.ColorNamePlaceHolder) {
			t.Errorf("%q drawn at size %v in %v, want the caption size in the placeholder colour", tx.Text, tx.TextSize, tx.Color)
		}
	}
	if !slices.ContainsFunc(words, func(w string) bool { return strings.Contains(w, "foo_bar.go") }) {
		t.Errorf("drawn %q; want foo_bar.go whole", words)
	}
	p.tail.SelectAll()
	if got := p.tail.SelectedText(); got != "read parse.go and foo_bar.go\nrun the tests ▍" {
		t.Errorf("selecting all of the reasoning gives %q", got)
	}
}

// collectTexts gathers the texts drawn under o, through containers and widgets' renderers.
func collectTexts(o fyne.CanvasObject, out *[]*canvas.Text) {
	switch x := o.(type) {
	case *canvas.Text:
		*out = append(*out, x)
	case *fyne.Container:
		for _, c := range x.Objects {
			collectTexts(c, out)
		}
	case fyne.Widget:
		if _, isButton := x.(*button.Button); isButton {
			return
		}
		for _, c := range test.WidgetRenderer(x).Objects() {
			collectTexts(c, out)
		}
	}
}
