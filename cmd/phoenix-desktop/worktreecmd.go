package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/transcript"
	"github.com/phoenix-desktop/phoenix/worktree"
)

// exitConflict ends a merge that conflicts: nothing was merged, and the files are named.
const exitConflict = 4

// runMerge merges conversation ID's worktree branch into the branch it came from (issue 34):
// a fast-forward or a merge commit; a conflict changes nothing, names the files and exits
// with exitConflict.
func runMerge(env *cmdEnv, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var common commonFlags
	var jsonOut bool
	common.register(fs, false)
	fs.BoolVar(&jsonOut, "json", false, "print what the merge did as JSON")
	pos, err := parseIDArgs(fs, args, 1)
	if err != nil {
		return err
	}
	a, err := openForConversation(env, common, stderr, "merge", pos[0])
	if err != nil {
		return err
	}
	defer a.Close()
	ctx := context.Background()
	st, err := a.runtime.WorktreeStatus(ctx, pos[0])
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	res, err := a.runtime.MergeWorktree(ctx, pos[0])
	var conflict *worktree.ConflictError
	if errors.As(err, &conflict) {
		if jsonOut {
			_ = json.NewEncoder(stdout).Encode(map[string]any{"conflict": true, "files": conflict.Files})
		}
		return &exitError{code: exitConflict, err: fmt.Errorf("merge: %w", err)}
	}
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	if jsonOut {
		return json.NewEncoder(stdout).Encode(map[string]any{
			"branch": st.Branch, "base": st.Base, "up_to_date": res.UpToDate,
			"fast_forward": res.FastForward, "committed": res.Committed, "commit": res.Commit})
	}
	if res.Committed {
		fmt.Fprintf(stdout, "Committed the worktree's changes on %s first.\n", st.Branch)
	}
	fmt.Fprintln(stdout, actors.MergeText(st.Worktree, res))
	return nil
}

// runWorktree shows conversation ID's worktree, or with --keep removes its folder keeping the
// branch, or with --remove removes both (refused when work would be lost, unless --confirm),
// or with --restore brings back what --remove (or the window's Remove) removed.
func runWorktree(env *cmdEnv, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("worktree", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var common commonFlags
	var jsonOut, keep, remove, confirm, restore bool
	common.register(fs, false)
	fs.BoolVar(&jsonOut, "json", false, "print the worktree as JSON")
	fs.BoolVar(&keep, "keep", false, "commit what is not committed, remove the folder and keep the branch")
	fs.BoolVar(&remove, "remove", false, "remove the folder and the branch")
	fs.BoolVar(&confirm, "confirm", false, "with --remove: remove even work that is merged nowhere")
	fs.BoolVar(&restore, "restore", false, "undo the removal: bring back the branch and the folder with its changes")
	pos, err := parseIDArgs(fs, args, 1)
	if err != nil {
		return err
	}
	if n := btoi(keep) + btoi(remove) + btoi(restore); n > 1 {
		return errors.New("worktree: choose one of --keep, --remove and --restore")
	}
	a, err := openForConversation(env, common, stderr, "worktree", pos[0])
	if err != nil {
		return err
	}
	defer a.Close()
	ctx := context.Background()
	id := pos[0]
	switch {
	case keep:
		if err := a.runtime.KeepWorktree(ctx, id); err != nil {
			return fmt.Errorf("worktree --keep: %w", err)
		}
	case remove:
		err := a.runtime.RemoveWorktree(ctx, id, confirm)
		if errors.Is(err, worktree.ErrUnmerged) {
			return fmt.Errorf("worktree --remove: %w (add --confirm)", err)
		}
		if err != nil {
			return fmt.Errorf("worktree --remove: %w", err)
		}
	case restore:
		if err := a.runtime.RestoreWorktree(ctx, id); err != nil {
			return fmt.Errorf("worktree --restore: %w", err)
		}
	}
	st, err := a.runtime.WorktreeStatus(ctx, id)
	if err != nil {
		return fmt.Errorf("worktree: %w", err)
	}
	if jsonOut {
		return json.NewEncoder(stdout).Encode(map[string]any{
			"path": st.Path, "branch": st.Branch, "base": st.Base, "repo": st.Repo,
			"present": st.Present, "dirty": st.Dirty, "ahead": st.Ahead, "unmerged": st.Unmerged,
			"branch_gone": st.BranchGone})
	}
	fmt.Fprintln(stdout, worktreeLine(st))
	return nil
}

// worktreeLine says where a worktree stands, in one line.
func worktreeLine(st actors.WorktreeStatus) string {
	switch {
	case st.BranchGone && !st.Present:
		return fmt.Sprintf("The worktree %s and its branch %s are removed. Bring them back with: phoenix-desktop worktree ID --restore", st.Path, st.Branch)
	case !st.Present:
		return fmt.Sprintf("The branch %s is kept (%s not in %s); its worktree folder is removed.", st.Branch, transcript.Count(st.Ahead, "commit", "commits"), st.Base)
	}
	dirty := ""
	if st.Dirty {
		dirty = ", with changes not committed"
	}
	return fmt.Sprintf("%s on %s: %s not in %s%s. Merge with: phoenix-desktop merge ID", st.Path, st.Branch, transcript.Count(st.Ahead, "commit", "commits"), st.Base, dirty)
}

// worktreeName is what names a headless conversation's worktree branch, which has no title
// yet when it is made: the prompt's first words.
func worktreeName(prompt string) string {
	words := strings.Fields(prompt)
	if len(words) > 6 {
		words = words[:6]
	}
	return strings.Join(words, " ")
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
