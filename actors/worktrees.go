package actors

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/worktree"
)

// A conversation's own git worktree (issue 34): made when the conversation is (Create with
// NewConversation.Worktree), kept on the conversation's record, and merged, kept or removed
// from the window or the command line while the conversation is at rest. Whether its folder
// and branch are still there is read from git each time (WorktreeStatus), never stored.

// The worktree package's results and errors, as the window (which reaches git only through
// the actors) names them.
type (
	MergeResult   = worktree.MergeResult
	ConflictError = worktree.ConflictError
	UnmergedError = worktree.UnmergedError
)

// ErrUnmerged says a removal would lose work (worktree.ErrUnmerged).
var ErrUnmerged = worktree.ErrUnmerged

// ErrNothingKept says there is no removed worktree to bring back (worktree.ErrNothingKept).
var ErrNothingKept = worktree.ErrNothingKept

// InRepository says whether dir lies in a git repository (a .git in it or a folder above),
// without running git: the New conversation dialog asks it as the folder is typed.
func InRepository(dir string) bool {
	if dir == "" || !filepath.IsAbs(dir) {
		return false
	}
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

// ErrNoWorktree says the conversation was not made in a worktree of its own.
var ErrNoWorktree = errors.New("the conversation has no worktree of its own")

// makeWorktree makes the worktree a new conversation works in and returns it with the
// conversation's folder in it.
func (r *Runtime) makeWorktree(ctx context.Context, p NewConversation) (*domain.Worktree, string, error) {
	name := p.Title
	if name == "" {
		name = p.WorktreeName
	}
	w, cwd, err := worktree.Create(ctx, p.Cwd, name)
	if err != nil {
		return nil, "", fmt.Errorf("create conversation in a worktree: %w", err)
	}
	return &domain.Worktree{Path: w.Path, Branch: w.Branch, Base: w.Base, Repo: w.Repo}, cwd, nil
}

// dropWorktree removes a worktree made for a conversation that could not be stored: it holds
// nothing yet.
func (r *Runtime) dropWorktree(w *domain.Worktree) {
	if w == nil {
		return
	}
	if err := worktree.Remove(context.Background(), infoOf(w), true, ""); err != nil {
		r.log.Error("remove the worktree of a conversation that was not made", "path", w.Path, "error", err)
	}
}

func infoOf(w *domain.Worktree) worktree.Info {
	return worktree.Info{Path: w.Path, Branch: w.Branch, Base: w.Base, Repo: w.Repo}
}

// WorktreeStatus is a conversation's worktree as git sees it now.
type WorktreeStatus struct {
	domain.Worktree
	worktree.Status
}

// WorktreeStatus reads the worktree of conversation id; ErrNoWorktree when it has none.
func (r *Runtime) WorktreeStatus(ctx context.Context, id string) (WorktreeStatus, error) {
	c, err := r.worktreeConv(ctx, id, false)
	if err != nil {
		return WorktreeStatus{}, err
	}
	st, err := worktree.Look(ctx, infoOf(c.Worktree))
	if err != nil {
		return WorktreeStatus{}, fmt.Errorf("read the worktree of %s: %w", id, err)
	}
	return WorktreeStatus{Worktree: *c.Worktree, Status: st}, nil
}

// worktreeConv reads conversation id, which must have a worktree and, when atRest, must not
// be working: a merge, keep or remove of the folder a command is running in would race it.
func (r *Runtime) worktreeConv(ctx context.Context, id string, atRest bool) (domain.Conversation, error) {
	if err := ctx.Err(); err != nil {
		return domain.Conversation{}, err
	}
	c, _, err := r.cfg.Store.Load(id)
	if err != nil {
		return domain.Conversation{}, fmt.Errorf("open conversation %s: %w", id, err)
	}
	if c.Worktree == nil {
		return domain.Conversation{}, fmt.Errorf("conversation %s: %w (it works in %s)", id, ErrNoWorktree, c.Cwd)
	}
	if atRest && domain.Busy(c.State) {
		return domain.Conversation{}, fmt.Errorf("conversation %s is working: %w; stop it or wait for its turn to end", id, domain.ErrAgentBusy)
	}
	return c, nil
}

// workMessage is the message of the commit that takes a worktree's changes not yet
// committed, at a merge or a keep.
func workMessage(c domain.Conversation) string {
	title := c.Title
	if title == "" {
		title = c.ID
	}
	return fmt.Sprintf("Work of the Phoenix conversation %q\n\nConversation %s.", title, c.ID)
}

// MergeWorktree merges conversation id's worktree branch into its base (worktree.Merge): a
// conflict changes nothing and is a *worktree.ConflictError naming the files.
func (r *Runtime) MergeWorktree(ctx context.Context, id string) (worktree.MergeResult, error) {
	c, err := r.worktreeConv(ctx, id, true)
	if err != nil {
		return worktree.MergeResult{}, err
	}
	res, err := worktree.Merge(ctx, infoOf(c.Worktree), workMessage(c))
	if err != nil {
		return res, err
	}
	r.publish(Notice{ConvID: id, Level: NoticeInfo, Text: MergeText(*c.Worktree, res)})
	return res, nil
}

// MergeText says what a merge did, for the transcript and the command line.
func MergeText(w domain.Worktree, res worktree.MergeResult) string {
	switch {
	case res.UpToDate:
		return fmt.Sprintf("%s already holds everything of %s: nothing to merge.", w.Base, w.Branch)
	case res.FastForward:
		return fmt.Sprintf("Merged %s into %s (fast-forward to %.8s).", w.Branch, w.Base, res.Commit)
	}
	return fmt.Sprintf("Merged %s into %s (merge commit %.8s).", w.Branch, w.Base, res.Commit)
}

// KeepWorktree commits what conversation id's worktree has not committed and removes the
// folder; the branch stays.
func (r *Runtime) KeepWorktree(ctx context.Context, id string) error {
	c, err := r.worktreeConv(ctx, id, true)
	if err != nil {
		return err
	}
	if err := worktree.Keep(ctx, infoOf(c.Worktree), workMessage(c)); err != nil {
		return err
	}
	r.publish(Notice{ConvID: id, Level: NoticeInfo, Text: fmt.Sprintf("The worktree %s is removed; the branch %s keeps its work.", c.Worktree.Path, c.Worktree.Branch)})
	return nil
}

// RemoveWorktree removes conversation id's worktree and its branch; without confirmed it
// refuses with a *worktree.UnmergedError when work would be lost. What it removes is kept
// under worktree.KeptPrefix+id (the branch's commit, and the folder's changes not committed)
// until RestoreWorktree brings it back or the conversation is deleted.
func (r *Runtime) RemoveWorktree(ctx context.Context, id string, confirmed bool) error {
	c, err := r.worktreeConv(ctx, id, true)
	if err != nil {
		return err
	}
	if err := worktree.Remove(ctx, infoOf(c.Worktree), confirmed, id); err != nil {
		return err
	}
	r.publish(Notice{ConvID: id, Level: NoticeInfo, Text: RemovedText(*c.Worktree)})
	return nil
}

// RemovedText says a worktree was removed and how to take it back, for the transcript and
// the command line.
func RemovedText(w domain.Worktree) string {
	return fmt.Sprintf("The worktree %s and the branch %s are removed (Undo, or phoenix-desktop worktree ID --restore, brings them back).", w.Path, w.Branch)
}

// RestoreWorktree undoes RemoveWorktree of conversation id: its branch and its folder come
// back at their places with the changes that were not committed, and the conversation works
// there again; worktree.ErrNothingKept when nothing was removed or it is back already.
func (r *Runtime) RestoreWorktree(ctx context.Context, id string) error {
	c, err := r.worktreeConv(ctx, id, true)
	if err != nil {
		return err
	}
	if err := worktree.Restore(ctx, infoOf(c.Worktree), id); err != nil {
		return err
	}
	r.publish(Notice{ConvID: id, Level: NoticeInfo, Text: fmt.Sprintf("The worktree %s on the branch %s is back.", c.Worktree.Path, c.Worktree.Branch)})
	return nil
}

// forgetRemovedWorktree drops what RemoveWorktree kept of a deleted conversation's worktree.
func (r *Runtime) forgetRemovedWorktree(c domain.Conversation) {
	if c.Worktree == nil {
		return
	}
	if _, err := os.Stat(c.Worktree.Repo); err != nil {
		return // the repository is gone, and what it kept with it
	}
	if err := worktree.Forget(context.Background(), infoOf(c.Worktree), c.ID); err != nil {
		r.log.Warn("could not remove what was kept of a deleted conversation's worktree", "conversation", c.ID, "error", err)
	}
}
