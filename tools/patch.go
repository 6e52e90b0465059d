package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/aymanbagabas/go-udiff"

	"github.com/phoenix-desktop/phoenix/domain"
)

// MaxPatchFileBytes is the largest file patch reads or writes; the patch tool's description is
// rendered from the same constant.
const MaxPatchFileBytes = domain.PatchMaxFileBytes

// Patch operations, as named in the schema.
const (
	opReplace    = "replace"
	opAppendEOF  = "append_eof"
	opPrependBOF = "prepend_bof"
	opOverwrite  = "overwrite"
)

// Patch edits one text file with a list of operations that apply together or not at all,
// writing atomically (temp file and rename, keeping the mode). It refuses to run in
// Restricted mode, as the core does; this is defence in depth (REQ-BED-014).
//
// Paths are resolved against the working directory. In Project mode patch writes only what
// the sandbox lets bash write there: a file inside the working tree (once symbolic links are
// resolved) that is not protected (ProtectedPatterns). In Unrestricted mode a path outside
// the tree is accepted: bash can write anywhere anyway, and refusing would only push the
// model to heredocs, which give the person no diff and no atomicity.
type Patch struct{}

// NewPatch returns the patch tool.
func NewPatch() *Patch { return &Patch{} }

// Name is the catalogue name.
func (*Patch) Name() string { return domain.ToolPatch }

type patchArgs struct {
	Path    string     `json:"path"`
	Patches []patchOne `json:"patches"`
}

type patchOne struct {
	Operation string `json:"operation"`
	OldText   string `json:"old_text"`
	NewText   string `json:"new_text"`
}

// Run applies the patches.
func (p *Patch) Run(_ context.Context, env Env, raw json.RawMessage) Output {
	if env.Mode.Rank() == domain.ModeRestricted.Rank() {
		return errorf("patch cannot write in Restricted mode: the file system is read-only for this conversation. " +
			"Call request_mode_upgrade with the reason you need to change files; once the person approves, call patch again.")
	}
	var args patchArgs
	if err := decodeArgs(p.Name(), raw, &args); err != nil {
		return errorf("%v", err)
	}
	if strings.TrimSpace(args.Path) == "" {
		return errorf("path is empty.")
	}
	if len(args.Patches) == 0 {
		return errorf("patches is empty: give at least one operation.")
	}
	for i, op := range args.Patches {
		if err := op.validate(); err != nil {
			return errorf("Patch %d of %d is invalid: %v. Nothing was changed.", i+1, len(args.Patches), err)
		}
	}
	// A vanished working directory (deleted, or a drive unmounted) must not be re-created
	// by the parent-directory creation of overwrite, as bash would not run there either.
	if fi, err := os.Stat(env.Cwd); err != nil || !fi.IsDir() {
		return errorf("The working directory %q is not available: %v. Nothing was changed.", env.Cwd, errOrNotDir(err))
	}
	path := args.Path
	if !filepath.IsAbs(path) {
		path = filepath.Join(env.Cwd, path)
	}
	path = filepath.Clean(path)
	shown := displayPath(env.Cwd, path)

	target, old, info, err := readForPatch(path)
	if err != nil {
		return errorf("%s: %v. Nothing was changed.", shown, err)
	}
	if env.Mode == domain.ModeProject {
		if err := projectTarget(env.Cwd, path, target); err != nil {
			return errorf("%s: %v. Nothing was changed.", shown, err)
		}
	}
	exists := info != nil
	content := old
	for i, op := range args.Patches {
		next, err := op.apply(content, exists)
		if err != nil {
			return errorf("Patch %d of %d (%s) failed on %s: %v. Nothing was changed.", i+1, len(args.Patches), op.Operation, shown, err)
		}
		content = next
		if op.Operation == opOverwrite {
			exists = true
		}
	}
	if len(content) > MaxPatchFileBytes {
		return errorf("The result would be %s, more than the %s patch writes. Nothing was changed.", domain.FormatBytes(int64(len(content))), domain.FormatBytes(MaxPatchFileBytes))
	}
	if strings.IndexByte(content, 0) >= 0 {
		return errorf("The new text contains a NUL byte; patch writes text files only. Nothing was changed.")
	}
	if info != nil && content == old {
		return Output{Outcome: domain.OutcomeSuccess, Content: fmt.Sprintf("%s is unchanged: the patches produce the same text.", shown),
			Display: &domain.ToolDisplay{Summary: shown + " unchanged"}}
	}
	if err := writeAtomic(target, []byte(content), info); err != nil {
		return errorf("Writing %s failed: %v. The file was left as it was.", shown, err)
	}

	oldLabel := "a/" + filepath.ToSlash(shown)
	if info == nil {
		oldLabel = "/dev/null"
	}
	diff := udiff.Unified(oldLabel, "b/"+filepath.ToSlash(shown), old, content)
	added, removed := diffStat(diff)
	var msg string
	if info == nil {
		msg = fmt.Sprintf("Created %s (%s).", shown, plural(textLines(content), "line"))
	} else {
		msg = fmt.Sprintf("Patched %s: %s applied (+%d −%d lines).", shown, plural(int64(len(args.Patches)), "patch"), added, removed)
	}
	return Output{
		Outcome: domain.OutcomeSuccess,
		Content: msg,
		Display: &domain.ToolDisplay{Summary: fmt.Sprintf("%s +%d −%d", shown, added, removed), Diff: diff},
	}
}

func (op patchOne) validate() error {
	switch op.Operation {
	case opReplace:
		if op.OldText == "" {
			return errors.New("replace needs old_text")
		}
	case opAppendEOF, opPrependBOF, opOverwrite:
		if op.OldText != "" {
			return fmt.Errorf("old_text is only for replace, not %s", op.Operation)
		}
	case "":
		return errors.New("operation is missing")
	default:
		return fmt.Errorf("unknown operation %q (use replace, append_eof, prepend_bof or overwrite)", op.Operation)
	}
	return nil
}

// apply performs one operation on the text so far; exists says whether there is a file (or
// an earlier overwrite in the same call created one).
func (op patchOne) apply(content string, exists bool) (string, error) {
	if !exists && op.Operation != opOverwrite {
		return "", errors.New("the file does not exist; use overwrite to create it")
	}
	switch op.Operation {
	case opReplace:
		oldText, newText := op.OldText, op.NewText
		n := strings.Count(content, oldText)
		if n == 0 && strings.Contains(content, "\r\n") && !strings.Contains(oldText, "\r") {
			// The file has Windows line endings and the model wrote Unix ones: match and
			// write the file's own.
			oldText = strings.ReplaceAll(oldText, "\n", "\r\n")
			newText = strings.ReplaceAll(strings.ReplaceAll(newText, "\r\n", "\n"), "\n", "\r\n")
			n = strings.Count(content, oldText)
		}
		switch {
		case n == 0:
			return "", errors.New("old_text was not found (0 matches); check whitespace and indentation, and read the file again if it may have changed")
		case n > 1:
			return "", fmt.Errorf("old_text was found %d times; it must occur exactly once, so include more surrounding lines", n)
		}
		return strings.Replace(content, oldText, newText, 1), nil
	case opAppendEOF:
		return content + op.NewText, nil
	case opPrependBOF:
		return op.NewText + content, nil
	case opOverwrite:
		return op.NewText, nil
	}
	return "", fmt.Errorf("unknown operation %q", op.Operation)
}

// readForPatch reads the file to patch. It follows a symlink so that the link survives the
// rename, and returns the path to write, the text, and the file's info (nil if it does not
// exist yet).
func readForPatch(path string) (target, text string, info fs.FileInfo, err error) {
	target = path
	if li, err := os.Lstat(path); err == nil && li.Mode()&fs.ModeSymlink != 0 {
		resolved, err := filepath.EvalSymlinks(path)
		if err != nil {
			return "", "", nil, fmt.Errorf("it is a symbolic link that cannot be followed: %w", err)
		}
		target = resolved
	}
	fi, err := os.Stat(target)
	if errors.Is(err, fs.ErrNotExist) {
		return target, "", nil, nil
	}
	if err != nil {
		return "", "", nil, err
	}
	if !fi.Mode().IsRegular() {
		return "", "", nil, fmt.Errorf("it is not a regular file (%s)", fi.Mode().Type())
	}
	if fi.Size() > MaxPatchFileBytes {
		return "", "", nil, fmt.Errorf("the file has %s; patch edits files up to %s, use bash for bigger ones", domain.FormatBytes(fi.Size()), domain.FormatBytes(MaxPatchFileBytes))
	}
	b, err := os.ReadFile(target)
	if err != nil {
		return "", "", nil, err
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return "", "", nil, errors.New("it is a binary file (it contains NUL bytes); patch edits text files only")
	}
	return target, string(b), fi, nil
}

// writeAtomic replaces path with data through a temp file in the same directory and a
// rename, so that a reader sees the old file or the new one, never half of either. An
// existing file keeps its mode (and, when running as root, its owner); a new one gets 0644
// and any missing parent directories.
func writeAtomic(path string, data []byte, info fs.FileInfo) (err error) {
	dir := filepath.Dir(path)
	mode := fs.FileMode(0o644)
	if info != nil {
		mode = info.Mode().Perm()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create the parent directories: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".phoenix-*")
	if err != nil {
		return fmt.Errorf("create a temp file beside it: %w", err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write the temp file: %w", err)
	}
	if err := f.Chmod(mode); err != nil {
		return fmt.Errorf("set the mode: %w", err)
	}
	if st, ok := statOwner(info); ok && os.Geteuid() == 0 {
		if err := f.Chown(int(st.Uid), int(st.Gid)); err != nil {
			return fmt.Errorf("keep the owner: %w", err)
		}
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("flush the temp file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close the temp file: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("replace the file: %w", err)
	}
	// Make the rename durable; a failure here does not undo the write, so it is not fatal.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// textLines counts lines, a last line without a newline included.
func textLines(s string) int64 {
	n := int64(strings.Count(s, "\n"))
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

func statOwner(info fs.FileInfo) (*syscall.Stat_t, bool) {
	if info == nil {
		return nil, false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	return st, ok
}

// diffStat counts added and removed lines of a unified diff. The file headers come before
// the first hunk; inside hunks a removed line that itself starts with "--" is still a line.
func diffStat(diff string) (added, removed int) {
	inHunk := false
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "@@"):
			inHunk = true
		case !inHunk:
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed
}

// displayPath shows a path relative to the working directory when it is inside it.
func displayPath(cwd, path string) string {
	if rel, err := filepath.Rel(cwd, path); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		return rel
	}
	return path
}
