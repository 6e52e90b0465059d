package ui

import (
	"math"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/ui/markdown"
)

// The texts of selectConversation's rows as their views show them: 0 the person, 1 the
// agent (Markdown), 2 a tool row, 3 the person, 4 the agent.
const (
	selText0 = "Alpha one two three four five."
	selText1 = "Bravo four five.\n\nsix\nseven"
	selText3 = "Charlie eight nine ten."
	selText4 = "Delta ten eleven."
)

func selectConversation(t *testing.T) *harness {
	t.Helper()
	var id string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		id = f.add(domain.NewConversationParams{Title: "Select", Cwd: "/s", Model: "gpt-4o"},
			domain.Message{Kind: domain.KindUser, Text: selText0},
			domain.Message{Kind: domain.KindAssistant, Text: "Bravo **four** five.\n\n- six\n- seven", ToolCalls: []domain.ToolCall{bashCall("c1", "ls")}},
			domain.Message{Kind: domain.KindToolResult, ToolResult: &domain.ToolResult{CallID: "c1", Name: "bash", Outcome: domain.OutcomeSuccess, Content: "a.go\nb.go"}},
			domain.Message{Kind: domain.KindUser, Text: selText3},
			domain.Message{Kind: domain.KindAssistant, Text: selText4},
		).ID
	})
	h.open(id)
	kinds := []rowKind{rowUser, rowAssistant, rowTool, rowUser, rowAssistant}
	for i, r := range h.rows() {
		if i >= len(kinds) || r.kind != kinds[i] {
			t.Fatalf("row %d is of kind %d; the test expects the kinds %v", i, r.kind, kinds)
		}
	}
	return h
}

// textView is the text view of row id on screen.
func textView(t *testing.T, h *harness, id int) *markdown.View {
	t.Helper()
	v := h.m.cv.sel.shown(id)
	if v == nil || v.selectable() == nil {
		t.Fatalf("row %d is not on screen with a text", id)
	}
	return v.selectable()
}

// press is a primary-button press at local point at of v.
func press(v *markdown.View, at fyne.Position, mod fyne.KeyModifier) {
	v.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: at, AbsolutePosition: absPos(v).Add(at)},
		Button: desktop.MouseButtonPrimary, Modifier: mod})
	v.MouseUp(&desktop.MouseEvent{Button: desktop.MouseButtonPrimary})
}

// drag presses in v at local point at, moves the pointer through the absolute points to,
// then releases, as the desktop driver reports it: every Dragged goes to v, with positions
// relative to where v was when the drag began.
func drag(h *harness, v *markdown.View, at fyne.Position, to ...fyne.Position) {
	origin := absPos(v)
	prev := origin.Add(at)
	v.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: at, AbsolutePosition: prev}, Button: desktop.MouseButtonPrimary})
	for _, p := range to {
		v.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: p.Subtract(origin), AbsolutePosition: p},
			Dragged: fyne.NewDelta(p.X-prev.X, p.Y-prev.Y)})
		prev = p
		h.q.drain()
	}
	v.DragEnd()
	v.MouseUp(&desktop.MouseEvent{Button: desktop.MouseButtonPrimary})
	h.q.drain()
}

// selectedIn is the range row id's view highlights, in order, or -1, -1.
func selectedIn(t *testing.T, h *harness, id int) (int, int) {
	t.Helper()
	a, b, ok := textView(t, h, id).Selection()
	if !ok {
		return -1, -1
	}
	return min(a, b), max(a, b)
}

// copyFrom presses Ctrl+C in v and returns the clipboard.
func copyFrom(h *harness, v *markdown.View) string {
	h.app.Clipboard().SetContent("(nothing copied)")
	v.TypedShortcut(&fyne.ShortcutCopy{})
	return h.app.Clipboard().Content()
}

func TestSelectionSpansMessagesDownward(t *testing.T) {
	h := selectConversation(t)
	v0, v3 := textView(t, h, 0), textView(t, h, 3)
	from := fyne.NewPos(60, 5)
	a := v0.OffsetAt(from)
	to := absPos(v3).Add(fyne.NewPos(70, 5))
	b := v3.OffsetAt(to.Subtract(absPos(v3)))
	if a <= 0 || a >= len(selText0) || b <= 0 || b >= len(selText3) {
		t.Fatalf("the press (offset %d) and release (offset %d) must fall inside the texts", a, b)
	}
	// Through the middle of the first message, then into the reply and the tool row.
	drag(h, v0, from, absPos(v0).Add(fyne.NewPos(80, 6)), absPos(textView(t, h, 1)).Add(fyne.NewPos(10, 10)), to)

	want := map[int][2]int{0: {a, len(selText0)}, 1: {0, len(selText1)}, 3: {0, b}, 4: {-1, -1}}
	for id, w := range want {
		if x, y := selectedIn(t, h, id); x != w[0] || y != w[1] {
			t.Errorf("row %d highlights [%d, %d), want [%d, %d)", id, x, y, w[0], w[1])
		}
	}
	wantText := selText0[a:] + "\n\n" + selText1 + "\n\n" + selText3[:b]
	if got := copyFrom(h, v0); got != wantText {
		t.Errorf("Ctrl+C copied %q, want %q (the tool row passed over)", got, wantText)
	}
	// The context menu's Copy in any message copies the same.
	textView(t, h, 4).TappedSecondary(&fyne.PointEvent{Position: fyne.NewPos(5, 5), AbsolutePosition: absPos(textView(t, h, 4)).Add(fyne.NewPos(5, 5))})
	menu, ok := h.m.win.Canvas().Focused().(*widget.PopUpMenu)
	if !ok || len(menu.Items) == 0 {
		t.Fatal("no context menu")
	}
	h.app.Clipboard().SetContent("")
	test.Tap(menu.Items[0].(fyne.Tappable))
	if got := h.app.Clipboard().Content(); got != wantText {
		t.Errorf("the menu's Copy copied %q, want %q", got, wantText)
	}
}

func TestSelectionSpansMessagesUpward(t *testing.T) {
	h := selectConversation(t)
	v4, v1 := textView(t, h, 4), textView(t, h, 1)
	from := fyne.NewPos(50, 5)
	a := v4.OffsetAt(from)
	to := absPos(v1).Add(fyne.NewPos(30, 5))
	b := v1.OffsetAt(to.Subtract(absPos(v1)))
	drag(h, v4, from, to)
	for id, w := range map[int][2]int{0: {-1, -1}, 1: {b, len(selText1)}, 3: {0, len(selText3)}, 4: {0, a}} {
		if x, y := selectedIn(t, h, id); x != w[0] || y != w[1] {
			t.Errorf("row %d highlights [%d, %d), want [%d, %d)", id, x, y, w[0], w[1])
		}
	}
	if got, want := copyFrom(h, v4), selText1[b:]+"\n\n"+selText3+"\n\n"+selText4[:a]; got != want {
		t.Errorf("copied %q, want %q (in reading order)", got, want)
	}
}

// TestSelectionInOneMessageIsUnchanged: a drag inside one message is the message's own
// selection; a drag that leaves it for another message and comes back is too.
func TestSelectionInOneMessageIsUnchanged(t *testing.T) {
	h := selectConversation(t)
	v1 := textView(t, h, 1)
	from, to := fyne.NewPos(10, 5), fyne.NewPos(90, 5)
	a, b := v1.OffsetAt(from), v1.OffsetAt(to)
	drag(h, v1, from, absPos(v1).Add(to))
	if h.m.cv.sel.active {
		t.Error("a drag inside one message started a selection across messages")
	}
	if x, y := selectedIn(t, h, 1); x != a || y != b {
		t.Errorf("the reply highlights [%d, %d), want [%d, %d)", x, y, a, b)
	}
	if got := copyFrom(h, v1); got != selText1[a:b] {
		t.Errorf("copied %q, want %q", got, selText1[a:b])
	}
	// Out into the next message and back.
	drag(h, v1, from, absPos(textView(t, h, 3)).Add(fyne.NewPos(20, 5)), absPos(v1).Add(to))
	if h.m.cv.sel.active {
		t.Error("the selection stayed across messages after the pointer came back")
	}
	for _, id := range []int{0, 3, 4} {
		if x, _ := selectedIn(t, h, id); x >= 0 {
			t.Errorf("row %d is still highlighted", id)
		}
	}
	if got := copyFrom(h, v1); got != selText1[a:b] {
		t.Errorf("copied %q, want %q", got, selText1[a:b])
	}
	// Double-click still selects a word.
	v1.DoubleTapped(&fyne.PointEvent{Position: fyne.NewPos(5, 5)})
	if got := copyFrom(h, v1); got != "Bravo" {
		t.Errorf("double-click copied %q", got)
	}
}

func TestShiftClickExtendsAcrossMessages(t *testing.T) {
	h := selectConversation(t)
	v0, v3, v4 := textView(t, h, 0), textView(t, h, 3), textView(t, h, 4)
	from, to := fyne.NewPos(40, 5), fyne.NewPos(80, 5)
	a := v0.OffsetAt(from)
	drag(h, v0, from, absPos(v0).Add(to)) // a selection inside the first message
	at := fyne.NewPos(60, 5)
	c := v3.OffsetAt(at)
	press(v3, at, fyne.KeyModifierShift)
	if got, want := copyFrom(h, v0), selText0[a:]+"\n\n"+selText1+"\n\n"+selText3[:c]; got != want {
		t.Errorf("after Shift+click copied %q, want %q", got, want)
	}
	// Again, further down: the selection grows from the same anchor.
	press(v4, fyne.NewPos(1000, 5), fyne.KeyModifierShift)
	if got, want := copyFrom(h, v0), selText0[a:]+"\n\n"+selText1+"\n\n"+selText3+"\n\n"+selText4; got != want {
		t.Errorf("after a second Shift+click copied %q, want %q", got, want)
	}
	if x, y := selectedIn(t, h, 4); x != 0 || y != len(selText4) {
		t.Errorf("the last reply highlights [%d, %d)", x, y)
	}
}

func TestClickElsewhereClearsTheSelection(t *testing.T) {
	h := selectConversation(t)
	v0, v3 := textView(t, h, 0), textView(t, h, 3)
	span := func() {
		drag(h, v0, fyne.NewPos(40, 5), absPos(v3).Add(fyne.NewPos(40, 5)))
		if !h.m.cv.sel.active {
			t.Fatal("no selection across messages")
		}
	}
	cleared := func(how string) {
		t.Helper()
		if h.m.cv.sel.active {
			t.Errorf("%s: the selection is still there", how)
		}
		for _, id := range []int{0, 1, 3, 4} {
			if x, _ := selectedIn(t, h, id); x >= 0 {
				t.Errorf("%s: row %d is still highlighted", how, id)
			}
		}
		if got := copyFrom(h, v0); got != "(nothing copied)" {
			t.Errorf("%s: Ctrl+C still copied %q", how, got)
		}
	}
	span()
	press(textView(t, h, 4), fyne.NewPos(10, 5), 0)
	cleared("a click in another message")
	span()
	h.m.win.Canvas().Focus(h.m.composer.entry)
	cleared("a click in the composer")
	span()
	h.m.win.Canvas().Focus(h.m.cv.list) // as a click on a row beside its text does
	cleared("a click on a row beside its text")
}

// TestSelectionOutlivesScrolling: the rows of a selection scroll out of view (their widgets
// go to other rows) and back; the selection is drawn again and copies the same.
func TestSelectionOutlivesScrolling(t *testing.T) {
	var id string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		id = f.add(domain.NewConversationParams{Title: "Long", Cwd: "/long", Model: "gpt-4o"}, longHistory(400)...).ID
	})
	h.open(id)
	cv := h.m.cv
	// From the first message on screen to the last.
	first, last := -1, -1
	for _, v := range h.visibleRowViews() {
		if id := cv.sel.ofView[v]; v.selectable() != nil {
			if first < 0 || id < first {
				first = id
			}
			last = max(last, id)
		}
	}
	if last-first < 3 {
		t.Fatalf("messages %d to %d on screen; the test wants more rows between", first, last)
	}
	vf, vl := textView(t, h, first), textView(t, h, last)
	from := fyne.NewPos(50, 5)
	drag(h, vf, from, absPos(vl).Add(fyne.NewPos(50, 5)))
	want := copyFrom(h, vf)
	head, _ := selectableText(h.rows()[first])
	if !strings.HasPrefix(want, head[vf.OffsetAt(from):]+"\n\n") || strings.Count(want, "\n\n") < 2 {
		t.Fatalf("the selection copies %q", want)
	}
	before := map[int][2]int{}
	for i := first; i <= last; i++ {
		if v := cv.sel.shown(i); v != nil && v.selectable() != nil {
			x, y := selectedIn(t, h, i)
			before[i] = [2]int{x, y}
		}
	}

	cv.list.ScrollToTop()
	h.settle()
	for _, v := range h.visibleRowViews() {
		if v.bound == h.rows()[first] {
			t.Fatal("the selection's first row is still on screen at the top")
		}
		if t2 := v.selectable(); t2 != nil {
			if _, _, ok := t2.Selection(); ok {
				t.Errorf("row %d, far from the selection, is highlighted", cv.sel.ofView[v])
			}
		}
	}
	if got := copyFrom(h, vf); got != want {
		t.Errorf("scrolled away, Ctrl+C copied %q, want %q", got, want)
	}
	cv.list.ScrollToBottom()
	h.settle()
	for i, w := range before {
		if x, y := selectedIn(t, h, i); x != w[0] || y != w[1] {
			t.Errorf("back on screen, row %d highlights [%d, %d), want [%d, %d)", i, x, y, w[0], w[1])
		}
	}
	if got := copyFrom(h, vf); got != want {
		t.Errorf("back on screen, Ctrl+C copied %q, want %q", got, want)
	}
}

// TestDragBeyondTheTopScrollsTheList: a drag that leaves the list at its top edge scrolls it,
// and keeps scrolling while the pointer stays there; the selection grows up with it.
func TestDragBeyondTheTopScrollsTheList(t *testing.T) {
	var id string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		id = f.add(domain.NewConversationParams{Title: "Long", Cwd: "/long", Model: "gpt-4o"}, longHistory(400)...).ID
	})
	h.open(id)
	cv := h.m.cv
	views := h.visibleRowViews()
	var v *markdown.View
	var start int
	for _, rv := range views {
		if rv.selectable() != nil {
			v, start = rv.selectable(), cv.sel.ofView[rv]
			break
		}
	}
	if v == nil {
		t.Fatal("no message on screen")
	}
	top := absPos(cv.list)
	offset := cv.list.GetScrollOffset()
	above := fyne.NewPos(top.X+100, top.Y-30)
	origin := absPos(v)
	from := v.OffsetAt(fyne.NewPos(20, 5))
	v.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(20, 5), AbsolutePosition: origin.Add(fyne.NewPos(20, 5))}, Button: desktop.MouseButtonPrimary})
	pressed := origin.Add(fyne.NewPos(20, 5))
	v.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: above.Subtract(origin), AbsolutePosition: above}, Dragged: fyne.NewDelta(above.X-pressed.X, above.Y-pressed.Y)})
	scrolled := cv.list.GetScrollOffset()
	if scrolled >= offset {
		t.Fatalf("the list did not scroll up (offset %v, was %v)", scrolled, offset)
	}
	// No more drag events: the pointer rests above the list, which goes on scrolling.
	h.waitFor("the list to keep scrolling", func() bool { return cv.list.GetScrollOffset() < scrolled-2*autoScrollMax })
	// At the top the steps stop on their own; the next drag event would start them again.
	cv.list.ScrollToTop()
	h.waitFor("the steps to stop at the top", func() bool { return cv.sel.tick == nil })
	v.DragEnd()
	h.q.drain()
	if cv.sel.tick != nil {
		t.Error("the list still scrolls on its own after the drag ended")
	}
	s, e := cv.sel.ordered()
	atTop, _ := cv.sel.rowAt(top, cv.sel.listEdges())
	if !cv.sel.active || e.row != start || s.row != atTop || s.row >= start {
		t.Errorf("the selection runs from row %d to row %d; it should run from row %d, at the top now, to row %d", s.row, e.row, atTop, start)
	}
	text, _ := selectableText(h.rows()[start])
	if got := copyFrom(h, v); !strings.HasSuffix(got, "\n\n"+text[:from]) {
		t.Errorf("copied %q; it should end with the start of row %d, %q", got, start, text[:from])
	}
}

// TestSelectableTextIsWhatRowsShow: the text a row contributes to a selection across rows
// (selectableText) is exactly what its view shows, and the rows that take part are the ones
// whose part has a text view.
func TestSelectableTextIsWhatRowsShow(t *testing.T) {
	var id string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) { id = richConversation(t, f) })
	h.open(id)
	seen := map[rowKind]bool{}
	h.m.cv.list.ScrollToTop()
	h.settle()
	views := h.visibleRowViews()
	h.m.cv.list.ScrollToBottom()
	h.settle()
	for _, v := range append(views, h.visibleRowViews()...) {
		text, ok := selectableText(v.bound)
		tv := v.selectable()
		if ok != (tv != nil) {
			t.Errorf("row kind %d: selectableText says %v, its part has a text view: %v", v.bound.kind, ok, tv != nil)
			continue
		}
		if tv != nil && tv.Text() != text {
			t.Errorf("row kind %d shows %q, a selection would copy %q", v.bound.kind, tv.Text(), text)
		}
		seen[v.bound.kind] = ok
	}
	if !seen[rowUser] || !seen[rowAssistant] {
		t.Errorf("the person's message or a reply was not checked (%v)", seen)
	}
}

func TestRangeInRows(t *testing.T) {
	s := &chatSelection{active: true, anchor: selPoint{row: 5, off: 3}, focus: selPoint{row: 2, off: 7}}
	for id, w := range map[int][3]int{1: {0, 0, 0}, 2: {7, math.MaxInt, 1}, 3: {0, math.MaxInt, 1}, 5: {0, 3, 1}, 6: {0, 0, 0}} {
		a, b, ok := s.rangeIn(id)
		if ok != (w[2] == 1) || (ok && (a != w[0] || b != w[1])) {
			t.Errorf("row %d: [%d, %d) %v, want %v", id, a, b, ok, w)
		}
	}
}

// BenchmarkDragStep10000 measures one drag step in a 10,000-message conversation: within the
// message where the drag began (the view's own selection, the baseline) and into another
// message (the coordinator finds the row under the pointer and draws the rows on screen).
func BenchmarkDragStep10000(b *testing.B) {
	var id string
	h := newHarness(b, func(f *fakeBackend, _ *Deps) {
		id = f.add(domain.NewConversationParams{Title: "Long", Cwd: "/long", Model: "gpt-4o"}, longHistory(10_000)...).ID
	})
	h.open(id)
	var views []*markdown.View
	for _, v := range h.visibleRowViews() {
		if t := v.selectable(); t != nil {
			views = append(views, t)
		}
	}
	if len(views) < 2 {
		b.Fatal("fewer than two messages on screen")
	}
	v, other := views[len(views)-2], views[len(views)-1]
	origin := absPos(v)
	step := func(to fyne.Position) {
		v.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: to.Subtract(origin), AbsolutePosition: to}, Dragged: fyne.NewDelta(1, 1)})
	}
	within, across := origin.Add(fyne.NewPos(40, 5)), absPos(other).Add(fyne.NewPos(40, 5))
	for _, c := range []struct {
		name string
		to   fyne.Position
	}{{"within", within}, {"across", across}} {
		b.Run(c.name, func(b *testing.B) {
			step(c.to)
			for i := 0; i < b.N; i++ {
				step(c.to.Add(fyne.NewPos(float32(i%2), 0)))
			}
			v.DragEnd()
		})
	}
}

// TestReleaseOutsideTheChatKeepsTheSelection: the desktop driver takes the focus away when
// the button is released over nothing focusable (above the chat, after it scrolled), before
// it ends the drag; the selection stays, and Ctrl+C in the view that has the focus again
// copies it.
func TestReleaseOutsideTheChatKeepsTheSelection(t *testing.T) {
	h := selectConversation(t)
	v0, v3 := textView(t, h, 0), textView(t, h, 3)
	origin := absPos(v0)
	at := fyne.NewPos(40, 5)
	a := v0.OffsetAt(at)
	to := absPos(v3).Add(fyne.NewPos(1000, 5))
	v0.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: at, AbsolutePosition: origin.Add(at)}, Button: desktop.MouseButtonPrimary})
	v0.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: to.Subtract(origin), AbsolutePosition: to}, Dragged: fyne.NewDelta(to.X-origin.X-at.X, to.Y-origin.Y-at.Y)})
	h.m.win.Canvas().Unfocus() // the release, over nothing focusable
	v0.DragEnd()
	h.q.drain()
	owner, ok := h.m.win.Canvas().Focused().(*markdown.View)
	if !ok {
		t.Fatal("no text view has the focus after the drag")
	}
	want := selText0[a:] + "\n\n" + selText1 + "\n\n" + selText3
	if got := copyFrom(h, owner); got != want {
		t.Errorf("copied %q, want %q", got, want)
	}
	if x, y := selectedIn(t, h, 0); x != a || y != len(selText0) {
		t.Errorf("the first message highlights [%d, %d), want [%d, %d)", x, y, a, len(selText0))
	}
}

// TestDroppedRowWidgetsAreForgotten: the list drops its pool of row widgets on a full
// refresh; the coordinator forgets widgets of rows far from the screen instead of keeping
// every one it was ever shown.
func TestDroppedRowWidgetsAreForgotten(t *testing.T) {
	h := selectConversation(t)
	s := h.m.cv.sel
	for i := 0; i < 5*maxOnScreen; i++ {
		s.bound(1000+i, newRowView(h.m.cv))
	}
	if n := len(s.ofView); n > 4*maxOnScreen {
		t.Errorf("%d row widgets remembered, want at most %d", n, 4*maxOnScreen)
	}
	for id := 0; id < 5; id++ {
		if s.shown(id) == nil {
			t.Errorf("row %d, on screen, was forgotten", id)
		}
	}
}
