package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/actors/rig"
	"github.com/phoenix-desktop/phoenix/checkpoint"
	"github.com/phoenix-desktop/phoenix/domain"
)

// worktreeFiles is the size of the repository the worktree rows branch.
const worktreeFiles = 10_000

const (
	worktreeRowName      = "chat --worktree ready ÷ git worktree add alone, 10,000-file repository"
	worktreePlainRowName = "git worktree add alone, 10,000-file repository"
	worktreeReadyRowName = "chat --worktree: conversation in its worktree ready, 10,000-file repository"
)

// worktreeRows times what `chat --worktree` does before its first request — the runtime's
// Create with a worktree: git finds the repository, its branch and a free name, `git
// worktree add` checks the files out beside it, and the conversation is stored with its
// instructions read — against `git worktree add` of the same repository alone, alternating,
// in the same run (issue 34, target 1.2×). Only git's checkout should count.
func worktreeRows(ctx context.Context, o Options) ([]Row, error) {
	e, err := rig.Start(rig.Options{})
	if err != nil {
		return nil, err
	}
	defer e.Close()
	root, err := os.MkdirTemp("", "phoenix-bench-worktree-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(root)
	repo := filepath.Join(root, "repo")
	files := worktreeFiles
	if o.Quick {
		files = 1000
	}
	if _, err := checkpoint.WriteSampleTree(repo, files); err != nil {
		return nil, fmt.Errorf("write the sample tree: %w", err)
	}
	git := func(dir string, args ...string) error {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "user.name=bench", "-c", "user.email=bench@localhost"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "tree"}} {
		if err := git(repo, args...); err != nil {
			return nil, err
		}
	}
	n := samplesOf(o, 7, 2)
	var plain, ready []float64
	for i := -1; i < n; i++ { // the first pass warms the page cache
		path, branch := filepath.Join(root, fmt.Sprintf("plain-%d", i+1)), fmt.Sprintf("bench/plain-%d", i+1)
		timePlain := func() (float64, error) {
			start := time.Now()
			err := git(repo, "worktree", "add", "-q", "-b", branch, path, "HEAD")
			return ms(time.Since(start)), err
		}
		var conv domain.Conversation
		timeReady := func() (float64, error) {
			start := time.Now()
			c, err := e.Runtime.Create(ctx, actors.NewConversation{Cwd: repo, Worktree: true, WorktreeName: fmt.Sprintf("bench %d", i+1)})
			conv = c
			return ms(time.Since(start)), err
		}
		// Taken in turn first and second, so that neither gains from the other's reads.
		var p, r float64
		var errP, errR error
		if i%2 == 0 {
			p, errP = timePlain()
			r, errR = timeReady()
		} else {
			r, errR = timeReady()
			p, errP = timePlain()
		}
		if errP != nil {
			return nil, errP
		}
		if errR != nil {
			return nil, errR
		}
		if i >= 0 {
			plain, ready = append(plain, p), append(ready, r)
		}
		// Not timed: both go, so every sample checks out into a new folder.
		if err := e.Runtime.RemoveWorktree(ctx, conv.ID, true); err != nil {
			return nil, err
		}
		if err := git(repo, "worktree", "remove", "--force", path); err != nil {
			return nil, err
		}
		if err := git(repo, "branch", "-D", branch); err != nil {
			return nil, err
		}
	}
	p := summarise(worktreePlainRowName, "ms", 0, plain)
	p.Note = "the baseline: git worktree add -b of the whole tree, run alone"
	r := summarise(worktreeReadyRowName, "ms", 0, ready)
	r.Note = "actors.Runtime.Create with Worktree, as chat --worktree calls it: the git runs around the checkout, the store and the instructions"
	ratio := Row{Name: worktreeRowName, Unit: "×", Samples: len(ready), Target: 1.2}
	if p.Median > 0 {
		ratio.Median = r.Median / p.Median
		ratio.P90, ratio.P99 = ratio.Median, ratio.Median
	}
	ratio.Met = ratio.Median > 0 && ratio.Median <= ratio.Target
	ratio.Note = fmt.Sprintf("medians %.1f ms ÷ %.1f ms, %d files", r.Median, p.Median, files)
	return []Row{ratio, p, r}, nil
}
