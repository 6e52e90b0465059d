package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Changes lists the files that differ from snapshot from to snapshot to, in path order.
func (r *Repo) Changes(ctx context.Context, from, to string) ([]Change, error) {
	if from == to {
		return nil, nil
	}
	out, err := r.git(ctx, nil, "diff-tree", "-r", "-z", "--no-renames", "--name-status", from, to)
	if err != nil {
		return nil, err
	}
	fields := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	var changes []Change
	for i := 0; i+1 < len(fields); i += 2 {
		st := Modified
		switch fields[i] {
		case "A":
			st = Added
		case "D":
			st = Deleted
		}
		changes = append(changes, Change{Path: fields[i+1], Status: st})
	}
	return changes, nil
}

// Diff is the unified diff that turns snapshot from into snapshot to, limited to paths (all
// files when paths is empty).
func (r *Repo) Diff(ctx context.Context, from, to string, paths []string) (string, error) {
	args := []string{"diff-tree", "-p", "--no-renames", "--no-color", "--binary", from, to}
	if len(paths) > 0 {
		args = append(args, "--")
		args = append(args, literal(paths)...)
	}
	out, err := r.git(ctx, nil, args...)
	if err != nil {
		return "", err
	}
	return string(out), nil
}

// ErrMoved refuses a restore when the working tree is no longer the one it was planned
// against.
var ErrMoved = errors.New("the files changed since the restore was shown")

// Restore makes the given files of the working tree what they were in snapshot tree: a file
// the snapshot holds is written back, one it does not hold is removed. Other files are not
// touched. It first snapshots the tree as it is, under the same lock as the restore, and when
// expect is not empty and that snapshot is another, restores nothing and returns ErrMoved:
// the caller has kept expect as the way back. It returns the snapshot of the tree right
// after.
func (r *Repo) Restore(ctx context.Context, expect, tree string, paths []string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return "", ErrClosed
	}
	if expect != "" {
		now, err := r.snapshot(ctx)
		if err != nil {
			return "", err
		}
		if now != expect {
			return "", ErrMoved
		}
	}
	if err := r.restore(ctx, tree, paths); err != nil {
		return "", err
	}
	return r.snapshot(ctx)
}

func (r *Repo) restore(ctx context.Context, tree string, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	// checkout writes the shadow index: the last tree id no longer describes it.
	r.tree = ""
	out, err := r.git(ctx, nil, append([]string{"ls-tree", "-r", "-z", "--name-only", tree, "--"}, literal(paths)...)...)
	if err != nil {
		return err
	}
	inTree := map[string]bool{}
	for _, p := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if p != "" {
			inTree[p] = true
		}
	}
	var restore []string
	for _, p := range paths {
		if inTree[p] {
			restore = append(restore, p)
			continue
		}
		full := filepath.Join(r.workTree, filepath.FromSlash(p))
		if err := os.Remove(full); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", full, err)
		}
		removeEmptyParents(r.workTree, filepath.Dir(full))
	}
	if len(restore) > 0 {
		// checkout writes the snapshot's bytes and mode into the working tree (and the
		// shadow index, which the next snapshot refreshes anyway).
		if _, err := r.git(ctx, nil, append([]string{"checkout", tree, "--"}, literal(restore)...)...); err != nil {
			return err
		}
	}
	return nil
}

// Overlay is a set of files as they are in one snapshot.
type Overlay struct {
	Tree  string
	Paths []string
}

// zeroID is the object id update-index takes as "remove this path".
const zeroID = "0000000000000000000000000000000000000000"

// Compose returns the snapshot that is base with the files of each overlay as they are in
// the overlay's tree (a file that tree does not hold is left out), later overlays winning:
// the tree a restore that keeps some files from another time goes back to. It builds the
// tree in an index of its own, so neither the working tree nor the shadow index (whose stat
// data makes the next snapshot cheap) is touched.
func (r *Repo) Compose(ctx context.Context, base string, overlays []Overlay) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return "", ErrClosed
	}
	var info bytes.Buffer
	for _, o := range overlays {
		if len(o.Paths) == 0 {
			continue
		}
		out, err := r.git(ctx, nil, append([]string{"ls-tree", "-r", "-z", o.Tree, "--"}, literal(o.Paths)...)...)
		if err != nil {
			return "", err
		}
		held := map[string]bool{}
		for _, e := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
			// "<mode> <type> <id>\t<path>", which update-index --index-info takes as it is.
			if _, p, ok := strings.Cut(e, "\t"); ok {
				held[p] = true
				info.WriteString(e + "\x00")
			}
		}
		for _, p := range o.Paths {
			if !held[p] {
				info.WriteString("0 " + zeroID + "\t" + p + "\x00")
			}
		}
	}
	if info.Len() == 0 {
		return base, nil
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
	if _, err := r.gitIndex(ctx, index, info.Bytes(), 0, "update-index", "-z", "--index-info"); err != nil {
		return "", err
	}
	out, err := r.gitIndex(ctx, index, nil, 0, "write-tree")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// removeEmptyParents removes directories left empty by a removed file, up to the root.
func removeEmptyParents(root, dir string) {
	for dir != root && strings.HasPrefix(dir, root+string(filepath.Separator)) {
		if os.Remove(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}

// literal marks paths as literal pathspecs, so that a file named "*.go" or ":x" is itself.
func literal(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = ":(literal)" + p
	}
	return out
}

// Paths returns the paths of changes.
func Paths(changes []Change) []string {
	out := make([]string, len(changes))
	for i, c := range changes {
		out[i] = c.Path
	}
	return out
}
