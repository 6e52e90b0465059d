package ui

import (
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/phoenix-desktop/phoenix/domain"
)

// press runs the shortcuts table's row for a key ("Alt+A"), as the canvas does when it is
// pressed; it fails the test when no row has that key.
func (h *harness) press(key string) {
	h.t.Helper()
	for _, s := range h.m.shortcuts() {
		if keyLabel(s.shortcut) == key {
			s.run()
			return
		}
	}
	h.t.Fatalf("no shortcut is %s", key)
}

// focused reports whether the composer has the keys.
func (h *harness) composerFocused() bool {
	return h.m.win.Canvas().Focused() == h.m.composer.entry
}

// TestShortcutSheetListsTheTable (issue 36): Ctrl+/ opens the Keyboard shortcuts sheet, which
// lists every named row of the shortcuts table with its keys, then the widgets' keys; closing
// it gives the composer the keys back.
func TestShortcutSheetListsTheTable(t *testing.T) {
	h, _ := newOpenConversation(t, nil)
	h.m.win.Canvas().Unfocus()
	h.press("Ctrl+/")
	top := h.m.win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("Ctrl+/ opened nothing")
	}
	shown := textUnder(top)
	named := 0
	for _, s := range h.m.shortcuts() {
		if s.name == "" {
			continue
		}
		named++
		if !strings.Contains(shown, keyLabel(s.shortcut)+"\n"+s.name+"\n") {
			t.Errorf("the sheet lacks %s: %s", keyLabel(s.shortcut), s.name)
		}
	}
	for _, k := range widgetKeys {
		if !strings.Contains(shown, k[0]+"\n"+k[1]+"\n") {
			t.Errorf("the sheet lacks %s", k[0])
		}
	}
	if named < 10 {
		t.Fatalf("only %d named shortcuts", named)
	}
	h.m.win.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if h.m.win.Canvas().Overlays().Top() != nil || !h.composerFocused() {
		t.Fatalf("after Esc the sheet is open (%v) or the composer lacks the focus (%v)", h.m.win.Canvas().Overlays().Top() != nil, h.composerFocused())
	}
}

// TestMenuCarriesTheKeyboardOnlyShortcuts: the shortcuts that must work while the composer has
// the focus are in the main menu, which the desktop driver asks before the focused widget.
func TestMenuCarriesTheKeyboardOnlyShortcuts(t *testing.T) {
	h, _ := newOpenConversation(t, nil)
	inMenu := map[string]bool{}
	for _, menu := range h.m.menu().Items {
		for _, it := range menu.Items {
			if it.Shortcut != nil {
				inMenu[keyLabel(it.Shortcut)] = true
			}
		}
	}
	for _, k := range []string{"Ctrl+N", "Ctrl+F", "Alt+A", "Alt+D", "Ctrl+Shift+N", "Ctrl+Alt+Z", "Ctrl+/"} {
		if !inMenu[k] {
			t.Errorf("%s is not in the menu, so it does nothing while the composer has the focus", k)
		}
	}
}

// TestApprovalByKeyboard_REQ_BED_015 (issue 36): Alt+A answers the approval card as its
// "Allow edits in this project" does, and the composer gets the keys back.
func TestApprovalByKeyboard_REQ_BED_015(t *testing.T) {
	h, _ := upgradeScene(t)
	h.m.win.Canvas().Unfocus()
	h.press("Alt+A")
	h.waitFor("Project mode", func() bool { return h.m.header.mode.text == "Project" })
	if !h.composerFocused() {
		t.Error("after the answer the composer lacks the focus")
	}
	// Nothing is pending now: the key says so and changes nothing.
	h.press("Alt+D")
	h.settle()
	if !strings.Contains(h.m.notice.label.Text, "Nothing is waiting for your approval") || h.m.header.mode.text != "Project" {
		t.Fatalf("Alt+D with nothing pending: notice %q, mode %q", h.m.notice.label.Text, h.m.header.mode.text)
	}
}

// TestDenyByKeyboard_REQ_BED_015: Alt+D answers as Deny does.
func TestDenyByKeyboard_REQ_BED_015(t *testing.T) {
	h, _ := upgradeScene(t)
	h.press("Alt+D")
	h.waitFor("the request denied", func() bool { return h.status() != "Waiting for your approval" })
	h.settle()
	if h.m.header.mode.text != "Restricted" {
		t.Fatalf("after Deny the mode is %q", h.m.header.mode.text)
	}
}

// TestModeBadgeDialogDescribesItsMode (issue 36): the badge's dialog of a Project conversation
// does not also describe Restricted mode, and closing it gives the composer the keys back.
func TestModeBadgeDialogDescribesItsMode(t *testing.T) {
	const restricted = "Commands can read your project, not your keys; they cannot change anything outside their own temp dir; no network."
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		f.sandbox.Summary = restricted
		f.add(domain.NewConversationParams{Title: "x", Cwd: "/x", Model: "gpt-4o", Mode: domain.ModeProject})
	})
	h.open(h.m.sidebar.convs[0].id)
	details := h.m.header.sandboxDetails()
	if strings.Contains(details, restricted) || !strings.Contains(details, "Project mode") {
		t.Fatalf("the details of a Project conversation:\n%s", details)
	}
	test.Tap(h.m.header.mode)
	h.m.win.Canvas().Unfocus()
	h.m.win.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if !h.composerFocused() {
		t.Fatal("after Esc closed the badge's dialog the composer lacks the focus: the next words typed are lost")
	}
}

// TestSidebarFollowsTheOpenConversation (issues 36, 41): a conversation opened another way
// than by the sidebar (a fork, "Continue in new conversation") is the one it highlights.
func TestSidebarFollowsTheOpenConversation(t *testing.T) {
	var a domain.Conversation
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		f.add(domain.NewConversationParams{Title: "Old", Cwd: "/x", Model: "gpt-4o"})
		f.now = f.now.Add(1)
		a = f.add(domain.NewConversationParams{Title: "Forked", Cwd: "/x", Model: "gpt-4o"})
	})
	old := h.m.sidebar.convs[1].id
	h.open(old)
	h.m.openCreated(a, "")
	h.settle()
	i := -1
	for j, cs := range h.m.sidebar.convs {
		if cs.id == a.ID {
			i = j
		}
	}
	if got := selectedRow(h); got != i {
		t.Fatalf("the sidebar highlights row %d, want %d (the conversation opened)", got, i)
	}
}

// selectedRow is the sidebar's highlighted row, -1 for none.
func selectedRow(h *harness) int {
	sel := -1
	// widget.List keeps its selection private; selecting the row again is a no-op that
	// tells: OnSelected runs only for a new selection.
	for i := range h.m.sidebar.convs {
		fired := false
		prev := h.m.sidebar.list.OnSelected
		h.m.sidebar.list.OnSelected = func(int) { fired = true }
		h.m.sidebar.list.Select(i)
		h.m.sidebar.list.OnSelected = prev
		if !fired {
			sel = i
		} else {
			h.m.sidebar.selectCurrent(false)
		}
	}
	return sel
}

// TestSidebarKeepsItsScrollOnArchive (issue 41): archiving a row near the top leaves the
// list where the person scrolled it, instead of jumping to the open conversation.
func TestSidebarKeepsItsScrollOnArchive(t *testing.T) {
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		for i := range 60 {
			f.now = f.now.Add(1)
			f.add(domain.NewConversationParams{Title: fmt.Sprintf("conversation %d", i), Cwd: "/x", Model: "gpt-4o"})
		}
	})
	h.open(h.m.sidebar.convs[len(h.m.sidebar.convs)-1].id) // the oldest, at the bottom
	h.settle()
	h.m.sidebar.list.ScrollToTop()
	h.m.sidebar.list.ScrollToOffset(40)
	before := h.m.sidebar.list.GetScrollOffset()
	h.m.setArchived(h.m.sidebar.convs[1], true)
	h.waitFor("the row archived", func() bool { return len(h.m.sidebar.convs) == 59 })
	h.settle()
	if got := h.m.sidebar.list.GetScrollOffset(); got != before {
		t.Fatalf("the sidebar moved from %v to %v after archiving a row", before, got)
	}
}

// TestRealForkByKeyboard (issue 36): Ctrl+Shift+N forks from the newest message, opens the
// fork, and the sidebar highlights the fork, not the conversation forked from.
func TestRealForkByKeyboard(t *testing.T) {
	h, r := newRealHarness(t)
	src := h.newConversation(r.Cwd, false)
	h.typeAndSend("echo: the answer")
	h.waitFor("the answer", func() bool {
		r := h.lastRow()
		return r != nil && r.kind == rowAssistant && r.msg.Text == "the answer"
	})
	h.waitRest("the answer")
	h.press("Ctrl+Shift+N")
	h.waitFor("the fork to open", func() bool {
		return h.m.current != nil && h.m.current.id != src.id && h.m.current.loaded
	})
	if h.m.current.conv.ForkedFrom != src.id {
		t.Fatalf("the open conversation is not the fork: %+v", h.m.current.conv)
	}
	if last := h.lastRow(); last == nil || last.msg.Text != "the answer" {
		t.Fatalf("the fork ends with %+v", last)
	}
	h.settle()
	want := -1
	for i, cs := range h.m.sidebar.convs {
		if cs == h.m.current {
			want = i
		}
	}
	if got := selectedRow(h); got != want || want < 0 {
		t.Fatalf("the sidebar highlights row %d, want the fork's %d", got, want)
	}
}

// TestRealSlashWithNoCommandsSaysWhereTheyComeFrom (issue 36): "/" in a project with no
// commands shows where commands come from instead of nothing.
func TestRealSlashWithNoCommandsSaysWhereTheyComeFrom(t *testing.T) {
	h, r := newRealHarness(t)
	h.newConversation(r.Cwd, false)
	h.m.win.Canvas().Focus(h.m.composer.entry)
	test.Type(h.m.composer.entry, "/")
	h.waitFor("the hint", func() bool {
		return h.m.slash.box.Visible() && strings.Contains(textUnder(h.m.slash.box), ".phoenix/commands")
	})
	if h.m.slash.visible() {
		t.Fatal("the hint offers something to choose")
	}
	test.Type(h.m.composer.entry, "x")
	h.settle()
	if h.m.slash.box.Visible() {
		t.Fatal("the hint stays after typing on")
	}
}

// TestTabReachesTheCardAndTheWindow (issue 36): from the composer, Tab reaches the sidebar's
// search, the header's mode switch, the approval card's three answers and comes back to the
// composer.
func TestTabReachesTheCardAndTheWindow(t *testing.T) {
	h, _ := upgradeScene(t)
	p := h.approvalPart()
	c := h.m.win.Canvas()
	c.Focus(h.m.composer.entry)
	seen := map[fyne.Focusable]bool{}
	back := false
	for range 200 {
		c.FocusNext()
		f := c.Focused()
		if f == h.m.composer.entry {
			back = true
			break
		}
		seen[f] = true
	}
	for name, want := range map[string]fyne.Focusable{
		"the sidebar's search": h.m.sidebar.search.entry,
		"Allow edits":          p.project,
		"Allow everything":     p.full,
		"Deny":                 p.deny,
	} {
		if !seen[want] {
			t.Errorf("Tab never reaches %s", name)
		}
	}
	if !back {
		t.Error("Tab does not come back to the composer")
	}
}

// TestAltAInProjectModeOffersWhatTheCardOffers: in a Project conversation the card has no
// "Allow edits in this project"; Alt+A says so and answers nothing.
func TestAltAInProjectModeOffersWhatTheCardOffers(t *testing.T) {
	var id string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		id = f.add(domain.NewConversationParams{Title: "Work", Cwd: "/home/ada/src/parser", Model: "gpt-4o", Mode: domain.ModeProject}).ID
	})
	h.open(id)
	h.typeAndSend("please fix it")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	h.f.respond(t, id, "", []domain.ToolCall{upgradeCall("u1", "I need the network.")}, domain.Usage{InputTokens: 500})
	h.waitFor("the approval card", func() bool { r := h.lastRow(); return r != nil && r.kind == rowApproval })
	h.settle()
	if strings.Contains(h.approvalPart().explain.String(), "Alt+A") {
		t.Errorf("the card offers Alt+A in Project mode: %q", h.approvalPart().explain.String())
	}
	h.press("Alt+A")
	h.settle()
	if h.status() != "Waiting for your approval" || !strings.Contains(h.m.notice.label.Text, "allowed already") {
		t.Fatalf("Alt+A in Project mode: status %q, notice %q", h.status(), h.m.notice.label.Text)
	}
}
