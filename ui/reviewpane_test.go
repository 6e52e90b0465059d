package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/phoenix-desktop/phoenix/checkpoint"
	"github.com/phoenix-desktop/phoenix/domain"
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
	if !w.view.SelectLine("f.txt", 3, false) {
		t.Fatal("line 3 is not in the view")
	}
	w.view.RevertAtCursor()
	h.waitFor("hunk 1 reverted", func() bool {
		b, _ := os.ReadFile(path)
		return string(b) == numberedFile(map[int]string{25: "twenty-five by the agent"})
	})
	h.waitFor("the view shown again", func() bool {
		ch := w.view.Changes()
		return len(ch.Files) == 1 && len(ch.Files[0].Hunks) == 1
	})

	if !w.view.SelectLine("f.txt", 25, false) {
		t.Fatal("line 25 is not in the view")
	}
	w.view.Comment("make this a named constant")
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
	for _, want := range []string{"f.txt, line 25:", "> twenty-five by the agent", "make this a named constant", "echo: noted"} {
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

func lastUserSeq(h *harness) uint64 {
	var seq uint64
	for _, r := range h.rows() {
		if r.kind == rowUser && r.msg.Kind == domain.KindUser {
			seq = r.msg.Seq
		}
	}
	return seq
}
