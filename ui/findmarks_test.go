package ui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/ui/markdown"
)

// viewMarks counts the highlights row view v shows: in its Markdown and plain text views, and
// in the plain text lines of notices and tool rows; strong is whether any is the current one.
func viewMarks(v *rowView) (n int, strong bool) {
	walk(v.root, func(o fyne.CanvasObject) {
		switch t := o.(type) {
		case *markdown.View:
			if t.Visible() {
				k, s := t.Marked()
				n += k
				strong = strong || s
			}
		case *widget.RichText:
			for _, s := range t.Segments {
				if ts, ok := s.(*widget.TextSegment); ok && ts.Style.TextStyle.Bold && ts.Style.ColorName == "primary" {
					n++
					strong = strong || ts.Style.TextStyle.Underline
				}
			}
		}
	})
	return n, strong
}

// inMiddle reports whether row id is on screen with its middle (or, for a tall row, its first
// highlight) in the middle third of the chat.
func inMiddle(h *harness, id int) (bool, string) {
	cv := h.m.cv
	v := cv.sel.shown(id)
	if v == nil {
		return false, "the row is not on screen"
	}
	d := fyne.CurrentApp().Driver()
	view := cv.list.Size().Height
	top := d.AbsolutePositionForObject(v).Y - d.AbsolutePositionForObject(cv.list).Y
	y := top + v.Size().Height/2
	if v.Size().Height > view {
		my, ok := cv.markY(id)
		if !ok {
			return false, "a tall row with no highlight"
		}
		y = top + my
	}
	return y >= view/3 && y <= 2*view/3, fmt.Sprintf("its middle at %.0f of a view %.0f high", y, view)
}

func fetchCall(id, url string) domain.ToolCall {
	b, _ := json.Marshal(map[string]string{"url": url})
	return domain.ToolCall{ID: id, Name: "fetch_url", Arguments: string(b)}
}

// proxyConversation has the word "proxy" in every kind of row, between long stretches of
// turns without it.
func proxyConversation(f *fakeBackend) string {
	var msgs []domain.Message
	filler := func() { msgs = append(msgs, longHistory(24)...) }
	filler()
	msgs = append(msgs, domain.Message{Kind: domain.KindUser, Text: "Why does the proxy refuse the request?"})
	filler()
	msgs = append(msgs, domain.Message{Kind: domain.KindSystem, Text: "Mode changed to Restricted: the proxy lets only the allowed hosts through."})
	filler()
	msgs = append(msgs,
		domain.Message{Kind: domain.KindAssistant, Text: "Reading the page.", Reasoning: &domain.Reasoning{Text: "The proxy may strip the header."},
			ToolCalls: []domain.ToolCall{fetchCall("f1", "https://example.com/proxy.html"), bashCall("b1", "cat /etc/hosts")}},
		domain.Message{Kind: domain.KindToolResult, ToolResult: &domain.ToolResult{CallID: "f1", Name: "fetch_url", Outcome: domain.OutcomeSuccess, Content: "The page.", Display: &domain.ToolDisplay{Summary: "200 OK"}}},
		domain.Message{Kind: domain.KindToolResult, ToolResult: &domain.ToolResult{CallID: "b1", Name: "bash", Outcome: domain.OutcomeSuccess,
			Content: "127.0.0.1 localhost\n10.0.0.1 gateway\n10.0.0.2 proxy\n", Display: &domain.ToolDisplay{Summary: "3 lines"}}},
	)
	filler()
	msgs = append(msgs, domain.Message{Kind: domain.KindError, Text: "the proxy closed the connection", ErrorKind: domain.ErrorNetwork})
	filler()
	msgs = append(msgs, domain.Message{Kind: domain.KindAssistant, Text: "The **proxy** is fixed."})
	filler()
	return f.add(domain.NewConversationParams{Title: "Proxy", Cwd: "/p", Model: "gpt-4o"}, msgs...).ID
}

// TestFindShowsEveryMatchItCounts (issue 36 item 3): Find counts a row only where it can show
// the match, and at each step the row of the match is in the middle of the chat with the match
// highlighted as the current one — the person's message, a notice, a tool's argument, a tool's
// output (unfolded), the reasoning (unfolded), an error and a reply. The tool names, never
// drawn as the person's words, are not counted.
func TestFindShowsEveryMatchItCounts(t *testing.T) {
	var id string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) { id = proxyConversation(f) })
	h.open(id)
	h.m.win.Resize(fyne.NewSize(1000, 700))
	h.settle()
	h.m.find.show()
	test.Type(h.m.find.entry, "proxy")
	h.settle()
	kinds := map[rowKind]bool{}
	n := len(h.m.find.hits)
	if n != 7 {
		t.Errorf("Find counts %d rows, want 7 (message, notice, reasoning, fetch argument, bash output, error, reply): %q", n, h.m.find.count.Text)
	}
	for step := range n {
		h.m.find.step(1)
		h.settle()
		id := h.m.find.hits[h.m.find.pos]
		r := h.m.current.model.at(id)
		kinds[r.kind] = true
		ok, where := inMiddle(h, id)
		if !ok {
			t.Errorf("step %d (%s, row %d): not in the middle of the view: %s", step+1, h.m.find.count.Text, id, where)
			continue
		}
		if k, strong := viewMarks(h.m.cv.sel.shown(id)); k == 0 || !strong {
			t.Errorf("step %d (%s, a row of kind %d): %d highlights, current %v; want the match highlighted as current", step+1, h.m.find.count.Text, r.kind, k, strong)
		}
	}
	for _, k := range []rowKind{rowUser, rowSystem, rowThinking, rowTool, rowError, rowAssistant} {
		if !kinds[k] {
			t.Errorf("no match in a row of kind %d", k)
		}
	}
	h.m.find.entry.SetText("fetch_url")
	if h.m.find.count.Text != "No matches" {
		t.Errorf("the tool's internal name, never shown as words, counts: %q", h.m.find.count.Text)
	}
}

// TestFindMarksPlainTextAcrossSegments: a match across two styled pieces of a notice's text
// ("Error: " and the message) is highlighted in both, and counted once.
func TestFindMarksPlainTextAcrossSegments(t *testing.T) {
	segs := []widget.RichTextSegment{
		&widget.TextSegment{Text: "Error: ", Style: widget.RichTextStyleStrong},
		&widget.TextSegment{Text: "the proxy failed", Style: widget.RichTextStyleInline},
	}
	out, n := markSegments(segs, []string{"error: the"}, true)
	if n != 1 {
		t.Fatalf("%d matches, want 1", n)
	}
	if got := segmentsText(out); got != "Error: the proxy failed" {
		t.Errorf("the text changed: %q", got)
	}
	var marked string
	for _, s := range out {
		if ts := s.(*widget.TextSegment); ts.Style.TextStyle.Underline {
			marked += ts.Text
		}
	}
	if marked != "Error: the" {
		t.Errorf("marked %q, want %q", marked, "Error: the")
	}
	if _, n := markSegments(segs, []string{"zebra"}, false); n != 0 {
		t.Errorf("%d matches of a word not there", n)
	}
}

// TestSearchHitOpensInTheMiddleHighlightedUntilAClick (issue 41 item 3): Ctrl+Shift+F,
// "number 123", a click on the hit: the 400-turn conversation opens with the hit's message in
// the middle of the chat and its words highlighted; a second click on the hit keeps it there;
// a click in the chat takes the highlight away.
func TestSearchHitOpensInTheMiddleHighlightedUntilAClick(t *testing.T) {
	var short, long string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		short = f.add(domain.NewConversationParams{Title: "Short", Cwd: "/s", Model: "gpt-4o"},
			domain.Message{Kind: domain.KindUser, Text: "nothing here"}).ID
		var msgs []domain.Message
		for i := range 400 {
			msgs = append(msgs, domain.Message{Kind: domain.KindUser, Text: fmt.Sprintf("Tell me about number %d.", i)},
				domain.Message{Kind: domain.KindAssistant, Text: fmt.Sprintf("Number %d is a number.\n\n- odd or even\n- prime or not", i)})
		}
		long = f.add(domain.NewConversationParams{Title: "Numbers", Cwd: "/n", Model: "gpt-4o"}, msgs...).ID
	})
	h.open(short)
	h.m.showGlobalSearch()
	test.Type(h.m.sidebar.search.entry, "about number 123.")
	h.waitFor("the hit", func() bool { return len(h.m.sidebar.search.hits) == 1 })
	for click := 1; click <= 2; click++ {
		h.m.sidebar.search.list.Select(0)
		h.waitFor("the hit's conversation", func() bool { return h.m.current != nil && h.m.current.id == long && h.m.current.loaded })
		h.settle()
		id := h.m.current.model.rowOf(h.m.sidebar.search.hits[0].Seq)
		if ok, where := inMiddle(h, id); !ok {
			t.Fatalf("click %d: the hit is not in the middle: %s", click, where)
		}
		v := h.m.cv.sel.shown(id)
		if n, _ := viewMarks(v); n < 3 {
			t.Fatalf("click %d: the hit's row shows %d highlights, want its words (about, number, 123) highlighted", click, n)
		}
		if k := len(h.visibleRowViews()); k < 3 {
			t.Fatalf("only %d rows on screen", k)
		}
		for _, o := range h.visibleRowViews() {
			if n, _ := viewMarks(o); n > 0 && o != v {
				t.Errorf("click %d: a row other than the hit is highlighted: %q", click, o.bound.key)
			}
		}
	}
	id := h.m.current.model.rowOf(h.m.sidebar.search.hits[0].Seq)
	h.m.cv.sel.Press(nil)
	h.settle()
	if n, _ := viewMarks(h.m.cv.sel.shown(id)); n != 0 {
		t.Errorf("after a click in the chat the hit still shows %d highlights", n)
	}
}

// TestSidebarSearchShowsEveryHitPaged (issue 41 item 3): 616 matching messages in one
// conversation show first as the best three, and "Show more" pages through all of them.
func TestSidebarSearchShowsEveryHitPaged(t *testing.T) {
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		var msgs []domain.Message
		for i := range 616 {
			msgs = append(msgs, domain.Message{Kind: domain.KindUser, Text: fmt.Sprintf("number %d", i)})
		}
		f.add(domain.NewConversationParams{Title: "Numbers", Cwd: "/n", Model: "gpt-4o"}, msgs...)
	})
	g := h.m.sidebar.search
	g.entry.SetText("number")
	h.waitFor("the hits", func() bool { return len(g.hits) > 0 })
	if len(g.hits) != 3 || !g.more.Visible() {
		t.Fatalf("%d hits, Show more shown %v: want the best 3 and a way to see more", len(g.hits), g.more.Visible())
	}
	for pages := 0; g.more.Visible(); pages++ {
		if pages > 20 {
			t.Fatal("Show more never ends")
		}
		n := len(g.hits)
		test.Tap(g.more)
		h.waitFor("the next page", func() bool { return len(g.hits) > n })
		if !strings.HasPrefix(g.info.Text, fmt.Sprintf("%d of 616", len(g.hits))) && len(g.hits) != 616 {
			t.Errorf("info %q with %d hits", g.info.Text, len(g.hits))
		}
	}
	if len(g.hits) != 616 {
		t.Fatalf("%d hits after paging to the end, want 616", len(g.hits))
	}
}
