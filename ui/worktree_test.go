package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
)

// worktreeFake is the fake backend with a worktree part whose answers the test sets.
type worktreeFake struct {
	*fakeBackend
	wmu      sync.Mutex
	status   actors.WorktreeStatus
	mergeErr error
	removes  []bool // the confirmed flag of each RemoveWorktree
	merges   int
	restores int
}

func (w *worktreeFake) WorktreeStatus(context.Context, string) (actors.WorktreeStatus, error) {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	return w.status, nil
}

func (w *worktreeFake) MergeWorktree(context.Context, string) (actors.MergeResult, error) {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	w.merges++
	return actors.MergeResult{FastForward: true, Commit: "0123456789"}, w.mergeErr
}

func (w *worktreeFake) KeepWorktree(context.Context, string) error { return nil }

func (w *worktreeFake) RemoveWorktree(_ context.Context, _ string, confirmed bool) error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	w.removes = append(w.removes, confirmed)
	if !confirmed {
		return &actors.UnmergedError{Branch: w.status.Branch, Commits: 2}
	}
	return nil
}

func (w *worktreeFake) RestoreWorktree(context.Context, string) error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	w.restores++
	return nil
}

func (w *worktreeFake) restored() int {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	return w.restores
}

func (w *worktreeFake) removed() []bool {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	return append([]bool(nil), w.removes...)
}

// Issue 34: New conversation offers a worktree only for a folder in a git repository, and
// asks the runtime for one when it is ticked.
func TestNewConversationOffersAWorktree_Issue34(t *testing.T) {
	h := newHarness(t, nil)
	plain := t.TempDir()
	h.app.Preferences().SetString(prefLastCwd, plain)
	h.m.showNewConversation()
	f := h.m.newForm
	if !f.worktree.Disabled() {
		t.Error("the worktree is offered for a folder outside git")
	}
	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(repo, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	f.cwd.SetText(sub)
	if f.worktree.Disabled() {
		t.Fatal("the worktree is not offered for a folder in a repository")
	}
	f.worktree.SetChecked(true)
	f.title.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.waitFor("the new conversation to open", func() bool { return h.m.current != nil })
	if got := h.f.created[0]; !got.Worktree || got.Cwd != sub {
		t.Errorf("created %+v", got)
	}
}

// Issue 34: the header names the branch of a conversation in a worktree; its menu merges
// (a conflict shown with its files), Remove asks first when work would be lost, and the
// notice of the removal offers Undo, which brings the worktree back.
func TestWorktreeHeaderMenu_Issue34(t *testing.T) {
	f := newFakeBackend()
	wf := &worktreeFake{fakeBackend: f}
	h := &harness{t: t, f: f, q: newQueue()}
	h.deps = Deps{Do: h.q.push, Now: func() time.Time { return testNow }}
	w := &domain.Worktree{Path: "/src/app-worktrees/fix", Branch: "phoenix/fix", Base: "main", Repo: "/src/app"}
	c := f.add(domain.NewConversationParams{Title: "Fix", Cwd: w.Path, Model: domain.DemoModel, Worktree: w})
	plain := f.add(domain.NewConversationParams{Title: "Plain", Cwd: "/src/app", Model: domain.DemoModel})
	wf.status = actors.WorktreeStatus{Worktree: *w}
	wf.status.Present, wf.status.Ahead, wf.status.Unmerged = true, 2, 2
	h.start(wf, f.sub)
	t.Cleanup(func() { f.mu.Lock(); f.closed = true; f.mu.Unlock() })

	h.open(plain.ID)
	if h.m.header.worktreeBtn.Visible() {
		t.Error("a conversation without a worktree shows the worktree button")
	}
	h.open(c.ID)
	btn := h.m.header.worktreeBtn
	if !btn.Visible() || btn.Text != "phoenix/fix" {
		t.Fatalf("the worktree button: visible %v, %q", btn.Visible(), btn.Text)
	}
	if !strings.Contains(h.m.header.subtitle.Text, "worktree of") || !strings.Contains(h.m.header.subtitle.Text, "from main") {
		t.Errorf("subtitle %q", h.m.header.subtitle.Text)
	}
	menu := worktreeMenu(h.m, h.m.current, wf.status)
	var labels []string
	for _, it := range menu.Items {
		if !it.IsSeparator && it.Action != nil {
			labels = append(labels, it.Label)
		}
	}
	if strings.Join(labels, "|") != mergeLabel("main")+"|"+keepBranchLabel+"|"+removeWorktreeText {
		t.Errorf("menu %v", labels)
	}

	// Merge with a conflict: an error naming the files.
	wf.mergeErr = &actors.ConflictError{Branch: "phoenix/fix", Base: "main", Files: []string{"a.go", "b.go"}}
	before := len(h.m.modals)
	h.m.mergeWorktree(h.m.current)
	h.waitFor("the conflict", func() bool { return len(h.m.modals) > before })
	if len(h.m.modals) == 0 {
		t.Fatal("no dialog")
	}
	h.m.modals[len(h.m.modals)-1].Hide()

	// Remove: refused without confirmation, asked, then removed when confirmed.
	before = len(h.m.modals)
	h.m.removeWorktree(h.m.current, false)
	h.waitFor("the question", func() bool { return len(h.m.modals) > before })
	ask, ok := h.m.modals[len(h.m.modals)-1].(*confirmDialog)
	if !ok {
		t.Fatalf("the removal shows %T, want a confirmation", h.m.modals[len(h.m.modals)-1])
	}
	if got := wf.removed(); len(got) != 1 || got[0] {
		t.Fatalf("removals before the answer: %v", got)
	}
	ask.Confirm()
	h.waitFor("the confirmed removal", func() bool { return len(wf.removed()) == 2 })
	if got := wf.removed(); !got[1] {
		t.Errorf("removals: %v", got)
	}
	h.waitFor("the removal's notice", func() bool { return !h.m.notice.action.Hidden })
	if h.m.notice.action.Text != undoRemovalText || !strings.Contains(h.m.notice.label.Text, "removed") {
		t.Fatalf("the notice says %q and offers %q", h.m.notice.label.Text, h.m.notice.action.Text)
	}
	test.Tap(h.m.notice.action)
	h.waitFor("the restore", func() bool { return wf.restored() == 1 })
	h.waitFor("the restore's notice", func() bool { return strings.Contains(h.m.notice.label.Text, "is back") })
	if !h.m.notice.action.Hidden {
		t.Errorf("the notice of the restore still offers %q", h.m.notice.action.Text)
	}
}
