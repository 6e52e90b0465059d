package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/actors/rig"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/sandbox"
)

const worktree3RowName = "three worktree conversations' turns at once ÷ one turn alone (Project mode, patch + git commit)"

// worktree3Rows is issue 34's third target as a row: three conversations in worktrees of one
// repository run a turn at the same time in Project mode, each patching a file and
// committing it with bash. Every sample checks what the target says — no file of one
// appears in another, the main working tree is untouched until a merge, and all three
// merge cleanly in turn — and the row fails when one of them does not hold. What it times,
// without a target, is the three turns at once against one such turn alone, taken just
// before in the same run (2.4× on the 2-core VM at rest, where the three share two cores
// with the fake server and git).
func worktree3Rows(ctx context.Context, o Options) ([]Row, error) {
	if ok, why := sandbox.ProjectAvailable(); !ok {
		return nil, fmt.Errorf("the walls of Project mode cannot be built here (%s), so the three worktrees cannot run in it", why)
	}
	e, err := rig.Start(rig.Options{})
	if err != nil {
		return nil, err
	}
	defer e.Close()
	repo := filepath.Join(e.Cwd, "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(repo, "a.txt"), []byte("a\n"), 0o644); err != nil {
		return nil, err
	}
	git := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "user.name=bench", "-c", "user.email=bench@localhost"}, args...)...)
		cmd.Dir = repo
		out, err := cmd.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(string(out)))
		}
		return strings.TrimSpace(string(out)), nil
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "first"}} {
		if _, err := git(args...); err != nil {
			return nil, err
		}
	}
	sub := e.Runtime.Subscribe()
	defer sub.Close()

	// turns creates n worktree conversations, sends each its turn at once, and returns them
	// when all have rested, with the time from the first send.
	turns := func(sample, n int) ([]domain.Conversation, float64, error) {
		var convs []domain.Conversation
		for i := range n {
			c, err := e.Runtime.Create(ctx, actors.NewConversation{Cwd: repo, Mode: domain.ModeProject, Worktree: true,
				WorktreeName: fmt.Sprintf("bench %d %d of %d", sample, i, n)})
			if err != nil {
				return nil, 0, err
			}
			convs = append(convs, c)
		}
		start := time.Now()
		for i, c := range convs {
			name := fmt.Sprintf("file-%d-%d-%d.txt", sample, n, i)
			msg := fmt.Sprintf("patch: %s <<< from %d\\n\nbash: git add -A && git -c user.name=a -c user.email=a@example.com commit -q -m agent-%d && echo committed-%d", name, i, i, i)
			if err := e.Runtime.Send(ctx, c.ID, msg, nil); err != nil {
				return nil, 0, err
			}
		}
		mine, rested := map[string]bool{}, map[string]bool{}
		for _, c := range convs {
			mine[c.ID] = true
		}
		limit := time.NewTimer(2 * time.Minute)
		defer limit.Stop()
		for len(rested) < n {
			select {
			case ev := <-sub.Events():
				if sc, ok := ev.(actors.StateChanged); ok && mine[sc.Conv.ID] && !domain.Busy(sc.Conv.State) && sc.Conv.NextSeq >= 4 {
					rested[sc.Conv.ID] = true
				}
			case <-limit.C:
				return nil, 0, fmt.Errorf("only %d of %d turns ended within two minutes", len(rested), n)
			}
		}
		return convs, ms(time.Since(start)), nil
	}

	var alone, three, ratio []float64
	for s := range samplesOf(o, 5, 2) {
		solo, t1, err := turns(s, 1)
		if err != nil {
			return nil, err
		}
		convs, t3, err := turns(s, 3)
		if err != nil {
			return nil, err
		}
		if err := checkIsolated(repo, s, convs); err != nil {
			return nil, err
		}
		for _, c := range append(convs, solo...) {
			if _, err := e.Runtime.MergeWorktree(ctx, c.ID); err != nil {
				return nil, fmt.Errorf("merge the worktree of %s: %w", c.Worktree.Branch, err)
			}
			if err := e.Runtime.RemoveWorktree(ctx, c.ID, false); err != nil {
				return nil, fmt.Errorf("remove the merged worktree of %s: %w", c.Worktree.Branch, err)
			}
		}
		for i := range 3 {
			b, err := os.ReadFile(filepath.Join(repo, fmt.Sprintf("file-%d-3-%d.txt", s, i)))
			if err != nil || string(b) != fmt.Sprintf("from %d\n", i) {
				return nil, fmt.Errorf("after the merges the main tree's file-%d-3-%d.txt is %q (%v)", s, i, b, err)
			}
		}
		if st, err := git("status", "--porcelain"); err != nil || st != "" {
			return nil, fmt.Errorf("the main working tree is not clean after the merges: %q %v", st, err)
		}
		alone, three, ratio = append(alone, t1), append(three, t3), append(ratio, t3/t1)
	}
	r := summarise(worktree3RowName, "×", 0, ratio)
	r.Note = "the target is the checks, not a time: the row fails, saying what went wrong, when one does not hold. Each sample: three new worktree conversations send a turn at once (patch a file, git add and commit it with bash, in Project mode) ÷ one such conversation alone just before; checked each time: no file of one in another, the main tree untouched before the merges, all merged cleanly in turn"
	a := summarise("one worktree conversation's turn alone (Project mode, patch + git commit)", "ms", 0, alone)
	a.Note = "send → at rest, the baseline of the row above"
	t := summarise("three worktree conversations' turns at once (Project mode, patch + git commit)", "ms", 0, three)
	t.Note = "first send → the last of the three at rest"
	return []Row{r, a, t}, nil
}

// checkIsolated checks the target's first two promises for sample s: each worktree holds
// its own file and none of the others', and the main working tree holds none of them.
func checkIsolated(repo string, s int, convs []domain.Conversation) error {
	var problems []string
	for i, c := range convs {
		for j := range convs {
			_, err := os.Stat(filepath.Join(c.Worktree.Path, fmt.Sprintf("file-%d-3-%d.txt", s, j)))
			if (err == nil) != (i == j) {
				problems = append(problems, fmt.Sprintf("worktree %d holds file-%d-3-%d.txt: %v", i, s, j, err == nil))
			}
		}
		if _, err := os.Stat(filepath.Join(repo, fmt.Sprintf("file-%d-3-%d.txt", s, i))); err == nil {
			problems = append(problems, fmt.Sprintf("the main working tree holds file-%d-3-%d.txt before any merge", s, i))
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}
