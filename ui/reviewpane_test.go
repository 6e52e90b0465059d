package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/actors/rig"
	"github.com/phoenix-desktop/phoenix/checkpoint"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/review"
)

// numberedFile is thirty numbered lines, some replaced.
func numberedFile(change map[int]string) string {
	var b strings.Builder
	for i := 1; i <= 30; i++ {
		if c, ok := change[i]; ok {
			b.WriteString(c + "\n")
			continue
		}
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// TestChangesViewRevertCommentAndSend is issue 34's review on the real runtime: a turn
// patches a file in two places; the header's Changes opens the view of that turn with two
// hunks; reverting hunk 1 keeps hunk 2; a comment on a line goes with the next message —
// the request to the model carries the path, the line, the quoted line and the words, and
// the chat shows the message as sent.
func TestChangesViewRevertCommentAndSend(t *testing.T) {
	if err := checkpoint.Available(); err != nil {
		t.Skip(err)
	}
	h, env := newRealHarness(t)
	path := filepath.Join(env.Cwd, "f.txt")
	if err := os.WriteFile(path, []byte(numberedFile(nil)), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := h.newConversation(env.Cwd, true)
	h.typeAndSend("patch: f.txt ::: line 3\\n ==> three by the agent\\n ;; patch: f.txt ::: line 25\\n ==> twenty-five by the agent\\n")
	h.waitFor("the patches", func() bool {
		b, _ := os.ReadFile(path)
		return string(b) == numberedFile(map[int]string{3: "three by the agent", 25: "twenty-five by the agent"})
	})
	h.waitRest("rest after the patches")
	h.waitFor("the turn's Changes button", func() bool { return h.m.rv.turnChanged(cs.id, lastUserSeq(h)) })

	if h.m.header.changesBtn.Hidden {
		t.Fatal("the header offers no Changes")
	}
	test.Tap(h.m.header.changesBtn)
	w := h.m.rv.wins[cs.id]
	if w == nil {
		t.Fatal("no Changes window opened")
	}
	h.waitFor("the turn's changes", func() bool {
		ch := w.view.Changes()
		return len(ch.Files) == 1 && len(ch.Files[0].Hunks) == 2
	})
	// The keyboard, as a person reviewing uses it: Down selects the first line, R reverts
	// its hunk.
	c := w.win.Canvas()
	c.OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyDown})
	pressKey(c, fyne.KeyR, 'r')
	h.waitFor("hunk 1 reverted", func() bool {
		b, _ := os.ReadFile(path)
		return string(b) == numberedFile(map[int]string{25: "twenty-five by the agent"})
	})
	h.waitFor("the view shown again", func() bool {
		ch := w.view.Changes()
		return len(ch.Files) == 1 && len(ch.Files[0].Hunks) == 1
	})

	// Down to the agent's line 25 (lines 22, 23, 24, the removed 25, then it), C to write,
	// Enter to add: the C that opened the box is not in the words.
	for range 5 {
		c.OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyDown})
	}
	pressKey(c, fyne.KeyC, 'c')
	entry, ok := c.Focused().(*widget.Entry)
	if !ok {
		t.Fatalf("C put the keyboard in %T, not the comment box", c.Focused())
	}
	test.Type(entry, "make this a named constant")
	entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if !h.m.rv.hasComments(cs) {
		t.Fatal("the comment is not kept for the next message")
	}
	h.typeAndSend("echo: noted")
	lastUser := func() string {
		req := env.Server.LastChat()
		if req == nil {
			return ""
		}
		var last string
		for _, m := range req.Messages {
			if m.Role == "user" {
				last = m.Content.String()
			}
		}
		return last
	}
	h.waitFor("the message with the comment to reach the model", func() bool { return strings.Contains(lastUser(), "echo: noted") })
	h.waitRest("rest after the comment")
	if h.m.rv.hasComments(cs) {
		t.Fatal("the comments stayed after they were sent")
	}
	last := lastUser()
	for _, want := range []string{"\nf.txt, line 25:\n", "\n> twenty-five by the agent\n", "\nmake this a named constant\n", "echo: noted"} {
		if !strings.Contains(last, want) {
			t.Fatalf("the request's last user message lacks %q:\n%s", want, last)
		}
	}
	var shown string
	for _, r := range h.rows() {
		if r.kind == rowUser {
			shown = r.msg.Text
		}
	}
	if !strings.Contains(shown, "make this a named constant") || !strings.Contains(shown, "f.txt, line 25") {
		t.Fatalf("the chat shows the message as %q", shown)
	}
	w.win.Close()
}

// changesAfterATurn is the set-up of the Changes view tests that follow a conversation: a
// real harness on a folder holding the files named (each numberedFile), a conversation there
// with checkpoints, a turn whose patch changes line 3 of f.txt, and the Changes view of the
// conversation, open once it shows that change.
func changesAfterATurn(t *testing.T, files ...string) (*harness, *rig.Env, *convState, *reviewWindow) {
	t.Helper()
	if err := checkpoint.Available(); err != nil {
		t.Skip(err)
	}
	h, env := newRealHarness(t)
	for _, name := range files {
		if err := os.WriteFile(filepath.Join(env.Cwd, name), []byte(numberedFile(nil)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cs := h.newConversation(env.Cwd, true)
	h.typeAndSend("patch: f.txt ::: line 3\\n ==> three by the agent\\n")
	h.waitRest("rest after the first turn")
	h.waitFor("the turn's checkpoint", func() bool { return h.m.rv.turnChanged(cs.id, lastUserSeq(h)) })
	h.m.rv.open(cs, actors.ChangesScope{Kind: review.Conversation})
	w := h.m.rv.wins[cs.id]
	h.waitFor("the conversation's changes", func() bool { return len(w.view.Changes().Files) == 1 })
	return h, env, cs, w
}

func lastUserSeq(h *harness) uint64 {
	var seq uint64
	for _, r := range h.rows() {
		if r.kind == rowUser && r.msg.Kind == domain.KindUser {
			seq = r.msg.Seq
		}
	}
	return seq
}

// pressKey is a key as the desktop driver delivers it: the key event to the focused widget or
// the canvas, then its rune to whatever has the focus after it (so a key handler that moves
// the focus has the rune typed into its new focus, as in the real window).
func pressKey(c fyne.Canvas, key fyne.KeyName, r rune) {
	if f := c.Focused(); f != nil {
		f.TypedKey(&fyne.KeyEvent{Name: key})
	} else {
		c.OnTypedKey()(&fyne.KeyEvent{Name: key})
	}
	if f := c.Focused(); f != nil {
		f.TypedRune(r)
	} else {
		c.OnTypedRune()(r)
	}
}
