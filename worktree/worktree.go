package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/phoenix-desktop/phoenix/hostexec"
)

// Info is what a conversation keeps of its worktree.
type Info struct {
	// Path is the worktree's folder.
	Path string
	// Branch is the worktree's branch, phoenix/<short title>.
	Branch string
	// Base is the branch it started from and merges into.
	Base string
	// Repo is the working tree of the repository the worktree was made from.
	Repo string
}

// BranchPrefix starts the name of every branch a conversation's worktree is made on.
const BranchPrefix = "phoenix/"

// FolderSuffix names the folder beside a repository that holds its worktrees:
// ~/src/app gets ~/src/app-worktrees/<short title>.
const FolderSuffix = "-worktrees"

// ErrNotRepository says the folder is not in a git repository.
var ErrNotRepository = errors.New("the folder is not in a git repository")

// ErrUnmerged says a removal would lose work; see UnmergedError.
var ErrUnmerged = errors.New("the worktree has work that is not merged anywhere")

// UnmergedError says what Remove would lose: commits of the branch that no other branch, tag
// or remote branch holds, and changes not committed.
type UnmergedError struct {
	Branch  string
	Commits int
	Dirty   bool
}

func (e *UnmergedError) Error() string {
	var parts []string
	if e.Commits > 0 {
		parts = append(parts, fmt.Sprintf("commits on %s that are not merged anywhere: %d", e.Branch, e.Commits))
	}
	if e.Dirty {
		parts = append(parts, "changes that are not committed")
	}
	return "the worktree has " + strings.Join(parts, " and ") + ": merge it or keep the branch, or confirm the removal to lose them"
}

func (e *UnmergedError) Unwrap() error { return ErrUnmerged }

// ConflictError says a merge was not made because these files conflict; nothing was changed.
type ConflictError struct {
	Branch, Base string
	Files        []string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("merging %s into %s conflicts in %s; nothing was merged: resolve it in the worktree (merge %s there, or ask the agent to), then merge again",
		e.Branch, e.Base, strings.Join(e.Files, ", "), e.Base)
}

// git runs the git found on PATH (never one inside trees) with hooks and fsmonitor off and
// without the caller's GIT_* variables, in dir; it returns what git printed, and on failure
// an error holding git's own words.
type git struct{ path string }

func findGit(trees ...string) (git, error) {
	p, err := hostexec.LookPath("git", trees...)
	if errors.Is(err, exec.ErrNotFound) {
		return git{}, errors.New("git is not installed: install git to use worktrees")
	}
	if err != nil {
		return git{}, err
	}
	return git{path: p}, nil
}

// env is the environment of every git run: the app's, less anything that points git at
// another repository, plus the settings that keep the person's and the agent's programs from
// running (a relative core.hooksPath would lie in a working tree the agent writes).
func env() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "LC_ALL=") {
			out = append(out, kv)
		}
	}
	return append(out,
		"GIT_CONFIG_COUNT=2",
		"GIT_CONFIG_KEY_0=core.hooksPath", "GIT_CONFIG_VALUE_0="+os.DevNull,
		"GIT_CONFIG_KEY_1=core.fsmonitor", "GIT_CONFIG_VALUE_1=false",
		"GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
}

func (g git) run(ctx context.Context, dir string, args ...string) (string, error) {
	out, _, err := g.runCode(ctx, dir, args...)
	return out, err
}

// runIn is run with more environment and with stdin as git's input.
func (g git) runIn(ctx context.Context, dir string, more []string, stdin string, args ...string) (string, error) {
	out, _, err := g.runWith(ctx, dir, more, stdin, args...)
	return out, err
}

// runCode is run that also returns git's exit status (-1 when it did not run or was ended).
func (g git) runCode(ctx context.Context, dir string, args ...string) (string, int, error) {
	return g.runWith(ctx, dir, nil, "", args...)
}

func (g git) runWith(ctx context.Context, dir string, more []string, stdin string, args ...string) (string, int, error) {
	cmd := exec.CommandContext(ctx, g.path, args...)
	cmd.Dir = dir
	cmd.Env = append(env(), more...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		code := -1
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		}
		words := strings.TrimSpace(stderr.String())
		if words == "" {
			words = strings.TrimSpace(stdout.String())
		}
		if words == "" {
			words = err.Error()
		}
		return stdout.String(), code, fmt.Errorf("git %s: %s", args[0], words)
	}
	return stdout.String(), 0, nil
}

// Place is the folder a worktree named slug of the repository at repo is made in: beside the
// repository, in <repo>-worktrees, where a person who looks for it next to their project
// finds it, which the repository's own tools (a watcher, a search, a build) do not walk into
// and which no `git clean` of the repository removes.
func Place(repo, slug string) string {
	return filepath.Join(filepath.Dir(repo), filepath.Base(repo)+FolderSuffix, slug)
}

// Slug is the short form of a title used in branch and folder names: lower-case letters,
// digits and dashes, at most 40 characters; "conversation" for a title with none of them.
func Slug(title string) string {
	var b strings.Builder
	dash := false
runes:
	for _, r := range strings.ToLower(title) {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
		if b.Len() >= 40 {
			break runes
		}
	}
	s := strings.Trim(b.String(), "-")
	if s == "" {
		return "conversation"
	}
	return s
}

// Create makes a worktree for a conversation titled title started in dir: a new branch
// phoenix/<slug> (a number added until both the branch and the folder are new) from the
// current HEAD of dir's repository, checked out in Place. It returns the worktree and the
// conversation's folder in it (dir's place in the repository, so a conversation started in
// a sub-folder works in the same sub-folder of the worktree).
func Create(ctx context.Context, dir, title string) (Info, string, error) {
	g, err := findGit(dir)
	if err != nil {
		return Info{}, "", err
	}
	// One git run tells the repository and its branch: what the bench row holds against a
	// bare `git worktree add` is every git start around it.
	out, err := g.run(ctx, dir, "rev-parse", "--show-toplevel", "--symbolic-full-name", "HEAD")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	top := strings.TrimSpace(lines[0])
	if top == "" {
		return Info{}, "", fmt.Errorf("%s: %w", dir, ErrNotRepository)
	}
	if err != nil || len(lines) < 2 {
		return Info{}, "", fmt.Errorf("the repository %s has no commits yet: make a first commit, then start the conversation in a worktree", top)
	}
	base, onBranch := strings.CutPrefix(strings.TrimSpace(lines[1]), "refs/heads/")
	if !onBranch {
		return Info{}, "", fmt.Errorf("the repository %s is on no branch (a detached HEAD), so a worktree would have nothing to merge into: check out a branch first", top)
	}
	slug := Slug(title)
	var branch, path string
	for n := 1; ; n++ {
		if n > 1000 {
			return Info{}, "", fmt.Errorf("no free branch name for %s in %s: remove some of its phoenix/ branches", slug, top)
		}
		s := slug
		if n > 1 {
			s = slug + "-" + strconv.Itoa(n)
		}
		branch, path = BranchPrefix+s, Place(top, s)
		if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
			continue
		}
		if n == 1 {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return Info{}, "", fmt.Errorf("make the folder for worktrees beside the repository: %w; make %s writable", err, filepath.Dir(filepath.Dir(path)))
			}
		}
		// A branch of that name is refused by git itself, without a run to look first.
		_, err := g.run(ctx, top, "worktree", "add", "-q", "-b", branch, path, "HEAD")
		if err == nil {
			break
		}
		if strings.Contains(err.Error(), "already exists") {
			continue
		}
		return Info{}, "", fmt.Errorf("make a worktree of %s in %s: %w", top, path, err)
	}
	cwd := path
	if rel, err := filepath.Rel(top, dir); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		cwd = filepath.Join(path, rel)
		if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
			cwd = path // a folder git does not track (empty, or ignored) is not in the worktree
		}
	}
	return Info{Path: path, Branch: branch, Base: base, Repo: top}, cwd, nil
}

// Status is what a worktree holds that its base does not.
type Status struct {
	// Present says the worktree's folder is there.
	Present bool
	// Dirty says it has changes not committed.
	Dirty bool
	// Ahead counts the branch's commits its base does not have; Unmerged those no other
	// branch, tag or remote branch has.
	Ahead, Unmerged int
	// BranchGone says the branch no longer exists.
	BranchGone bool
}

// Look reads the worktree's Status.
func Look(ctx context.Context, w Info) (Status, error) {
	g, err := findGit(w.Repo, w.Path)
	if err != nil {
		return Status{}, err
	}
	var st Status
	if fi, err := os.Stat(w.Path); err == nil && fi.IsDir() {
		st.Present = true
		out, err := g.run(ctx, w.Path, "status", "--porcelain", "--untracked-files=normal")
		if err != nil {
			return Status{}, fmt.Errorf("read the worktree %s: %w", w.Path, err)
		}
		st.Dirty = strings.TrimSpace(out) != ""
	}
	if _, err := g.run(ctx, w.Repo, "show-ref", "--verify", "-q", "refs/heads/"+w.Branch); err != nil {
		st.BranchGone = true
		return st, nil
	}
	if st.Ahead, err = g.count(ctx, w.Repo, "refs/heads/"+w.Branch, "^refs/heads/"+w.Base); err != nil {
		return Status{}, err
	}
	st.Unmerged, err = g.count(ctx, w.Repo, "refs/heads/"+w.Branch, "--not", "--exclude="+w.Branch, "--branches", "--remotes", "--tags")
	return st, err
}

func (g git) count(ctx context.Context, dir string, args ...string) (int, error) {
	out, err := g.run(ctx, dir, append([]string{"rev-list", "--count"}, args...)...)
	if err != nil {
		return 0, fmt.Errorf("count the worktree's commits: %w", err)
	}
	return strconv.Atoi(strings.TrimSpace(out))
}

// commitAll commits every change of the worktree (nothing when it is clean) with message, so
// that a merge or a kept branch holds all the conversation's work.
func (g git) commitAll(ctx context.Context, w Info, message string) error {
	if fi, err := os.Stat(w.Path); err != nil || !fi.IsDir() {
		return nil
	}
	out, err := g.run(ctx, w.Path, "status", "--porcelain")
	if err != nil {
		return fmt.Errorf("read the worktree %s: %w", w.Path, err)
	}
	if strings.TrimSpace(out) == "" {
		return nil
	}
	if _, err := g.run(ctx, w.Path, "add", "-A"); err != nil {
		return fmt.Errorf("commit the worktree's changes: %w", err)
	}
	if _, err := g.run(ctx, w.Path, g.identity(ctx, w.Path, "commit", "-q", "--no-verify", "-m", message)...); err != nil {
		return fmt.Errorf("commit the worktree's changes: %w", err)
	}
	return nil
}

// MergeResult says what a merge did.
type MergeResult struct {
	// UpToDate says the base held everything already: nothing was done.
	UpToDate bool
	// FastForward says the base was moved to the branch; otherwise a merge commit was made.
	FastForward bool
	// Committed says the worktree's changes not yet committed were committed first.
	Committed bool
	// Commit is the base's new commit.
	Commit string
}

// Merge merges the worktree's branch into its base: first the worktree's changes not yet
// committed are committed (message says whose), then the base fast-forwards or gets a merge
// commit. A conflict changes nothing and is a *ConflictError naming the files. Where the base
// is checked out (the repository's own working tree, usually) the merge is made there, so
// that tree shows it; git refuses, before changing anything, when the person's own changes
// there would be overwritten.
func Merge(ctx context.Context, w Info, message string) (MergeResult, error) {
	g, err := findGit(w.Repo, w.Path)
	if err != nil {
		return MergeResult{}, err
	}
	var res MergeResult
	before, _ := Look(ctx, w)
	if before.BranchGone {
		return MergeResult{}, fmt.Errorf("the branch %s is gone: there is nothing to merge", w.Branch)
	}
	if before.Dirty {
		if err := g.commitAll(ctx, w, message); err != nil {
			return MergeResult{}, err
		}
		res.Committed = true
	}
	baseRef, branchRef := "refs/heads/"+w.Base, "refs/heads/"+w.Branch
	baseOID, err := g.run(ctx, w.Repo, "rev-parse", "--verify", "-q", baseRef)
	if err != nil {
		return res, fmt.Errorf("the branch %s to merge into is gone from %s: %w", w.Base, w.Repo, err)
	}
	baseOID = strings.TrimSpace(baseOID)
	branchOID, err := g.run(ctx, w.Repo, "rev-parse", "--verify", "-q", branchRef)
	if err != nil {
		return res, fmt.Errorf("read the branch %s: %w", w.Branch, err)
	}
	branchOID = strings.TrimSpace(branchOID)
	if _, code, _ := g.runCode(ctx, w.Repo, "merge-base", "--is-ancestor", branchOID, baseOID); code == 0 {
		res.UpToDate, res.Commit = true, baseOID
		return res, nil
	}
	_, code, _ := g.runCode(ctx, w.Repo, "merge-base", "--is-ancestor", baseOID, branchOID)
	res.FastForward = code == 0
	var tree string
	if !res.FastForward {
		// The merge as it would be, computed in the object store only.
		out, code, err := g.runCode(ctx, w.Repo, "merge-tree", "--write-tree", "--name-only", "--no-messages", baseOID, branchOID)
		switch {
		case code == 1:
			return res, &ConflictError{Branch: w.Branch, Base: w.Base, Files: conflictFiles(out)}
		case err != nil:
			return res, fmt.Errorf("merge %s into %s: %w (git 2.38 or later is needed)", w.Branch, w.Base, err)
		}
		tree = strings.SplitN(strings.TrimSpace(out), "\n", 2)[0]
	}
	mergeMsg := fmt.Sprintf("Merge branch '%s' into %s\n\n%s", w.Branch, w.Base, message)
	if at := g.checkedOut(ctx, w.Repo, baseRef); at != "" {
		args := []string{"merge", "-q", "--no-edit", "--no-verify", "-m", mergeMsg}
		if res.FastForward {
			args = append(args, "--ff-only")
		} else {
			args = append(args, "--no-ff")
		}
		if _, err := g.run(ctx, at, append(args, branchOID)...); err != nil {
			// git stops before changing anything when the merge would overwrite changes
			// of the person's; anything else it left is taken back.
			if _, st := os.Stat(filepath.Join(gitDir(ctx, g, at), "MERGE_HEAD")); st == nil {
				_, _ = g.run(ctx, at, "merge", "--abort")
			}
			return res, fmt.Errorf("merge %s into %s in %s: %w; nothing was merged: commit or stash the changes there, then merge again", w.Branch, w.Base, at, err)
		}
	} else {
		newOID := branchOID
		if !res.FastForward {
			out, err := g.run(ctx, w.Repo, "commit-tree", tree, "-p", baseOID, "-p", branchOID, "-m", mergeMsg)
			if err != nil {
				return res, fmt.Errorf("make the merge commit: %w", err)
			}
			newOID = strings.TrimSpace(out)
		}
		if _, err := g.run(ctx, w.Repo, "update-ref", "-m", "phoenix: merge "+w.Branch, baseRef, newOID, baseOID); err != nil {
			return res, fmt.Errorf("move %s to the merge: %w", w.Base, err)
		}
	}
	out, _ := g.run(ctx, w.Repo, "rev-parse", baseRef)
	res.Commit = strings.TrimSpace(out)
	return res, nil
}

func gitDir(ctx context.Context, g git, dir string) string {
	out, err := g.run(ctx, dir, "rev-parse", "--absolute-git-dir")
	if err != nil {
		return filepath.Join(dir, ".git")
	}
	return strings.TrimSpace(out)
}

// conflictFiles reads the conflicted files of `git merge-tree --write-tree --name-only
// --no-messages`: the lines after the tree's id.
func conflictFiles(out string) []string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var files []string
	seen := map[string]bool{}
	for _, l := range lines[1:] {
		if l = strings.TrimSpace(l); l != "" && !seen[l] {
			seen[l] = true
			files = append(files, l)
		}
	}
	return files
}

// checkedOut is the working tree where ref is checked out, "" when none is.
func (g git) checkedOut(ctx context.Context, repo, ref string) string {
	out, err := g.run(ctx, repo, "worktree", "list", "--porcelain")
	if err != nil {
		return ""
	}
	var at string
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "worktree "):
			at = strings.TrimPrefix(l, "worktree ")
		case l == "branch "+ref:
			return at
		}
	}
	return ""
}

// Keep commits the worktree's changes not yet committed (message says whose) and removes its
// folder; the branch stays, to merge or check out later.
func Keep(ctx context.Context, w Info, message string) error {
	g, err := findGit(w.Repo, w.Path)
	if err != nil {
		return err
	}
	if err := g.commitAll(ctx, w, message); err != nil {
		return err
	}
	return g.removeFolder(ctx, w)
}

// KeptPrefix starts the refs under which Remove keeps what it removes, one folder of refs for
// each name it is given (a conversation's id), so Restore can bring it back: <name>/branch is
// the branch's last commit, <name>/worktree (only when the folder was there) a commit of the
// folder as it was, its changes not committed and its files git did not track included (as
// `git stash create -u` would take them, without touching the person's stash list). The refs
// live in the repository beside its branches, which keeps their commits from git's garbage
// collection; Forget removes them.
const KeptPrefix = "refs/phoenix/removed/"

// ErrNothingKept says Restore found nothing Remove kept under that name.
var ErrNothingKept = errors.New("nothing of the removed worktree was kept")

func keptRefs(name string) (branch, folder string) {
	return KeptPrefix + name + "/branch", KeptPrefix + name + "/worktree"
}

// Remove removes the worktree's folder and its branch. Without confirmed it refuses with an
// *UnmergedError when that would lose work: changes not committed, or commits no other
// branch, tag or remote branch holds. With keep not empty it first keeps everything it
// removes under KeptPrefix+keep, for Restore; the files git ignores (build output) are not
// kept.
func Remove(ctx context.Context, w Info, confirmed bool, keep string) error {
	g, err := findGit(w.Repo, w.Path)
	if err != nil {
		return err
	}
	st, err := Look(ctx, w)
	if err != nil {
		return err
	}
	if !confirmed && (st.Dirty || st.Unmerged > 0) {
		return &UnmergedError{Branch: w.Branch, Commits: st.Unmerged, Dirty: st.Dirty}
	}
	if keep != "" && !st.BranchGone {
		if err := g.keep(ctx, w, st, keep); err != nil {
			return err
		}
	}
	if err := g.removeFolder(ctx, w); err != nil {
		return err
	}
	if !st.BranchGone {
		if _, err := g.run(ctx, w.Repo, "branch", "-D", w.Branch); err != nil {
			return fmt.Errorf("delete the branch %s: %w", w.Branch, err)
		}
	}
	return nil
}

// keep writes the refs Restore reads (KeptPrefix): the branch's commit and, when the folder
// is there, a commit of it as it is.
func (g git) keep(ctx context.Context, w Info, st Status, name string) error {
	branchRef, folderRef := keptRefs(name)
	tip, err := g.run(ctx, w.Repo, "rev-parse", "--verify", "-q", "refs/heads/"+w.Branch+"^{commit}")
	if err != nil {
		return fmt.Errorf("read the branch %s to keep it: %w", w.Branch, err)
	}
	tip = strings.TrimSpace(tip)
	folder := ""
	if st.Present {
		if folder, err = g.snapshot(ctx, w, st.Dirty); err != nil {
			return fmt.Errorf("keep the worktree's changes before removing it: %w; nothing was removed", err)
		}
	}
	// Both refs at once, and an earlier removal's folder commit gone with its branch commit.
	script := "start\nupdate " + branchRef + " " + tip + "\n"
	if folder != "" {
		script += "update " + folderRef + " " + folder + "\n"
	} else {
		script += "delete " + folderRef + "\n"
	}
	script += "prepare\ncommit\n"
	if _, err := g.runIn(ctx, w.Repo, nil, script, "update-ref", "-m", "phoenix: keep the removed worktree "+w.Branch, "--stdin"); err != nil {
		return fmt.Errorf("keep the branch %s before removing it: %w; nothing was removed", w.Branch, err)
	}
	return nil
}

// snapshot returns a commit of the worktree's folder as it is, whose parent is its HEAD: its
// HEAD itself when it is clean. It reads the folder through an index of its own, so the
// worktree's index and the person's stash list are not touched.
func (g git) snapshot(ctx context.Context, w Info, dirty bool) (string, error) {
	head, err := g.run(ctx, w.Path, "rev-parse", "--verify", "-q", "HEAD^{commit}")
	if err != nil {
		return "", err
	}
	head = strings.TrimSpace(head)
	if !dirty {
		return head, nil
	}
	index, err := g.run(ctx, w.Path, "rev-parse", "--path-format=absolute", "--git-path", "index")
	if err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp("", "phoenix-worktree-index-")
	if err != nil {
		return "", err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	// A copy of the worktree's index keeps git from reading every file again to learn it is
	// unchanged; without one (never staged) git reads them.
	if b, err := os.ReadFile(strings.TrimSpace(index)); err == nil {
		if err := os.WriteFile(tmp.Name(), b, 0o600); err != nil {
			return "", err
		}
	} else {
		os.Remove(tmp.Name())
	}
	own := []string{"GIT_INDEX_FILE=" + tmp.Name()}
	if _, err := g.runIn(ctx, w.Path, own, "", "add", "-A"); err != nil {
		return "", err
	}
	tree, err := g.runIn(ctx, w.Path, own, "", "write-tree")
	if err != nil {
		return "", err
	}
	out, err := g.run(ctx, w.Path, g.identity(ctx, w.Path, "commit-tree", strings.TrimSpace(tree), "-p", head,
		"-m", "phoenix: the worktree "+w.Path+" as it was when it was removed")...)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(out), nil
}

// identity is args with the app as the commit's author where the person has set none (git
// would refuse the commit).
func (g git) identity(ctx context.Context, dir string, args ...string) []string {
	if name, _ := g.run(ctx, dir, "config", "user.email"); strings.TrimSpace(name) == "" {
		return append([]string{"-c", "user.name=Phoenix Desktop", "-c", "user.email=phoenix-desktop@localhost"}, args...)
	}
	return args
}

// Restore brings back what Remove removed and kept under KeptPrefix+keep: the branch (made
// again at its kept commit when it is gone; refused when a branch of that name now holds
// something else), the folder on it at its path when it was there, with its changes not
// committed and its files git did not track as they were. The kept refs go once it is back.
// ErrNothingKept when there is nothing to restore.
func Restore(ctx context.Context, w Info, keep string) error {
	g, err := findGit(w.Repo, w.Path)
	if err != nil {
		return err
	}
	branchRef, folderRef := keptRefs(keep)
	tip, err := g.run(ctx, w.Repo, "rev-parse", "--verify", "-q", branchRef)
	if err != nil {
		return fmt.Errorf("bring back the worktree %s: %w (it was not removed here, or it is back already)", w.Path, ErrNothingKept)
	}
	tip = strings.TrimSpace(tip)
	folder, err := g.run(ctx, w.Repo, "rev-parse", "--verify", "-q", folderRef)
	folder = strings.TrimSpace(folder)
	if err != nil {
		folder = ""
	}
	if folder != "" {
		if _, err := os.Lstat(w.Path); err == nil {
			return fmt.Errorf("bring back the worktree %s: something is in its place now; move it away and try again", w.Path)
		}
	}
	if now, err := g.run(ctx, w.Repo, "rev-parse", "--verify", "-q", "refs/heads/"+w.Branch); err == nil {
		if strings.TrimSpace(now) != tip {
			return fmt.Errorf("bring back the branch %s: a branch of that name holds other commits now; rename or delete it and try again", w.Branch)
		}
	} else if _, err := g.run(ctx, w.Repo, "branch", w.Branch, tip); err != nil {
		return fmt.Errorf("bring back the branch %s: %w", w.Branch, err)
	}
	if folder != "" {
		if err := os.MkdirAll(filepath.Dir(w.Path), 0o755); err != nil {
			return fmt.Errorf("make the folder for worktrees beside the repository: %w; make %s writable", err, filepath.Dir(filepath.Dir(w.Path)))
		}
		if _, err := g.run(ctx, w.Repo, "worktree", "add", "-q", w.Path, w.Branch); err != nil {
			return fmt.Errorf("bring back the worktree %s: %w", w.Path, err)
		}
		if folder != tip {
			// The kept folder's files over the branch's: changed, deleted and untracked
			// files come back as they were, still not committed.
			if _, err := g.run(ctx, w.Path, "restore", "--source="+folder, "--worktree", "--", ":/"); err != nil {
				return fmt.Errorf("bring back the changes of the worktree %s: %w (they are kept in the commit %.12s)", w.Path, err, folder)
			}
		}
	}
	return Forget(ctx, w, keep)
}

// Forget removes what Remove kept under KeptPrefix+keep, when it kept anything (the
// conversation is deleted, or its worktree is back).
func Forget(ctx context.Context, w Info, keep string) error {
	g, err := findGit(w.Repo)
	if err != nil {
		return err
	}
	branchRef, folderRef := keptRefs(keep)
	script := "start\ndelete " + branchRef + "\ndelete " + folderRef + "\nprepare\ncommit\n"
	if _, err := g.runIn(ctx, w.Repo, nil, script, "update-ref", "--stdin"); err != nil {
		return fmt.Errorf("remove what was kept of the removed worktree %s: %w", w.Path, err)
	}
	return nil
}

// removeFolder removes the worktree's folder (and what git keeps of it), or only what git
// keeps when the folder is gone already.
func (g git) removeFolder(ctx context.Context, w Info) error {
	if _, err := os.Lstat(w.Path); err == nil {
		// --force: what is left after commitAll, or what a confirmed removal drops, is
		// ignored files (build output) and changes the person agreed to lose.
		if _, err := g.run(ctx, w.Repo, "worktree", "remove", "--force", w.Path); err != nil {
			return fmt.Errorf("remove the worktree %s: %w", w.Path, err)
		}
	} else if _, err := g.run(ctx, w.Repo, "worktree", "prune"); err != nil {
		return fmt.Errorf("forget the removed worktree %s: %w", w.Path, err)
	}
	// The folder beside the repository goes with its last worktree.
	_ = os.Remove(filepath.Dir(w.Path))
	return nil
}
