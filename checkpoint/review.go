package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/phoenix-desktop/phoenix/hostexec"
)

// What the Changes view (package review) needs of a shadow repository: the unified diff
// between two trees, one file as a tree holds it, and a tree that is another with one file
// replaced. Each read may take objects from the person's own repository too (objects, its
// object directory, as GIT_ALTERNATE_OBJECT_DIRECTORIES for that one command: nothing is
// written into that repository and the shadow repository keeps no link to it), so the
// working tree can be compared with the HEAD of the project's repository ("uncommitted")
// by the same git, with the same attributes (noFilters: no filter or diff driver of the
// tree ever runs) as every snapshot.

// ErrNotGit says a folder is not in a git repository (or its HEAD cannot be read).
var ErrNotGit = errors.New("the folder is not in a git repository")

// ProjectHead returns the tree of the folder dir as the HEAD commit of the git repository it
// lies in holds it, and that repository's object directory. A repository with no commit
// yet has the empty tree as its HEAD. Only git rev-parse runs in the person's repository,
// which runs no hook, filter or fsmonitor.
func ProjectHead(ctx context.Context, dir string) (tree, objects string, err error) {
	git, err := hostexec.LookPath("git", dir)
	if err != nil {
		return "", "", fmt.Errorf("checkpoints: %w", err)
	}
	run := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, git, append([]string{"-c", "core.fsmonitor=false", "-c", "core.hooksPath=" + os.DevNull}, args...)...)
		cmd.Dir = dir
		cmd.Env = cleanGitEnv()
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err
	}
	common, err := run("rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil || common == "" {
		return "", "", fmt.Errorf("%s: %w", dir, ErrNotGit)
	}
	objects = filepath.Join(common, "objects")
	if tree, err = run("rev-parse", "--verify", "--quiet", "HEAD^{tree}"); err != nil || tree == "" {
		// No commit yet: everything in the folder is uncommitted.
		return EmptyTree, objects, nil
	}
	prefix, err := run("rev-parse", "--show-prefix")
	if err != nil {
		return "", "", fmt.Errorf("read where %s lies in its git repository: %w", dir, err)
	}
	if prefix == "" {
		return tree, objects, nil
	}
	sub, err := run("rev-parse", "--verify", "--quiet", "HEAD:"+strings.TrimSuffix(prefix, "/"))
	if err != nil || sub == "" {
		// The folder is not in HEAD yet: all of it is new.
		return EmptyTree, objects, nil
	}
	return sub, objects, nil
}

// cleanGitEnv is the app's environment without the variables that would point git at
// another repository than the folder's own.
func cleanGitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
}

// alternates is the extra environment of a read that may take objects from objects.
func alternates(objects string) []string {
	if objects == "" {
		return nil
	}
	return []string{"GIT_ALTERNATE_OBJECT_DIRECTORIES=" + objects}
}

// DiffTrees is the unified diff (three lines of context, no renames, "Binary files differ"
// for a binary file) that turns tree from into tree to; objects, when not empty, is another
// object directory either tree may come from (ProjectHead).
func (r *Repo) DiffTrees(ctx context.Context, objects, from, to string) (string, error) {
	if from == to {
		return "", nil
	}
	out, err := r.gitEnv(ctx, filepath.Join(r.gitDir, "index"), alternates(objects), nil, 0,
		"diff-tree", "-r", "-p", "--no-renames", "--no-color", "--no-ext-diff", "--no-textconv", "--full-index", from, to)
	if err != nil {
		return "", err
	}
	return string(out), nil
}

// File is one file as a tree holds it.
type File struct {
	// Mode is git's ("100644", "100755", "120000" for a symbolic link); empty when the tree
	// does not hold the file.
	Mode    string
	Content []byte
}

// ReadFile returns path as tree holds it (a zero File when it holds none); objects as in
// DiffTrees.
func (r *Repo) ReadFile(ctx context.Context, objects, tree, path string) (File, error) {
	env := alternates(objects)
	index := filepath.Join(r.gitDir, "index")
	out, err := r.gitEnv(ctx, index, env, nil, 0, "ls-tree", "-z", tree, "--", literal([]string{path})[0])
	if err != nil {
		return File{}, err
	}
	entry := strings.TrimSuffix(string(out), "\x00")
	meta, _, ok := strings.Cut(entry, "\t")
	f := strings.Fields(meta)
	if !ok || len(f) != 3 || f[1] != "blob" {
		return File{}, nil
	}
	content, err := r.gitEnv(ctx, index, env, nil, 0, "cat-file", "blob", f[2])
	if err != nil {
		return File{}, err
	}
	return File{Mode: f[0], Content: content}, nil
}

// WithFile returns the tree that is base with path replaced by f (removed when f.Mode is
// empty). The blob is written into the shadow repository; the tree is built in an index of
// its own, as Compose's is, so neither the working tree nor the shadow index is touched.
func (r *Repo) WithFile(ctx context.Context, base, path string, f File) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return "", ErrClosed
	}
	entry := "0 " + zeroID + "\t" + path + "\x00"
	if f.Mode != "" {
		out, err := r.git(ctx, f.Content, "hash-object", "-w", "--no-filters", "--stdin")
		if err != nil {
			return "", err
		}
		entry = f.Mode + " " + strings.TrimSpace(string(out)) + "\t" + path + "\x00"
	}
	tmp, err := os.MkdirTemp(r.gitDir, "compose-")
	if err != nil {
		return "", fmt.Errorf("make room to compose a snapshot in %s: %w", r.gitDir, err)
	}
	defer os.RemoveAll(tmp)
	index := filepath.Join(tmp, "index")
	if _, err := r.gitIndex(ctx, index, nil, 0, "read-tree", base); err != nil {
		return "", err
	}
	if _, err := r.gitIndex(ctx, index, []byte(entry), 0, "update-index", "-z", "--index-info"); err != nil {
		return "", err
	}
	out, err := r.gitIndex(ctx, index, nil, 0, "write-tree")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}
