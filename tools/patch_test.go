package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

type op = map[string]string

func runPatch(t *testing.T, env Env, path string, ops ...op) Output {
	t.Helper()
	raw, err := json.Marshal(map[string]any{"path": path, "patches": ops})
	if err != nil {
		t.Fatal(err)
	}
	return NewPatch().Run(context.Background(), env, raw)
}

func unrestricted(t *testing.T) Env {
	return Env{Cwd: t.TempDir(), Mode: domain.ModeUnrestricted}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestPatchOperations(t *testing.T) {
	const base = "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"
	cases := []struct {
		name string
		ops  []op
		want string
	}{
		{"replace", []op{{"operation": "replace", "old_text": "println(\"hi\")", "new_text": "println(\"hello\")"}},
			"package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n"},
		{"append_eof", []op{{"operation": "append_eof", "new_text": "// end\n"}}, base + "// end\n"},
		{"prepend_bof", []op{{"operation": "prepend_bof", "new_text": "// start\n"}}, "// start\n" + base},
		{"overwrite", []op{{"operation": "overwrite", "new_text": "new\n"}}, "new\n"},
		{"several, in order", []op{
			{"operation": "replace", "old_text": "main()", "new_text": "run()"},
			{"operation": "append_eof", "new_text": "func main() { run() }\n"},
			{"operation": "replace", "old_text": "func main() { run() }", "new_text": "func main() { run(); run() }"},
		}, "package main\n\nfunc run() {\n\tprintln(\"hi\")\n}\nfunc main() { run(); run() }\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := unrestricted(t)
			path := filepath.Join(env.Cwd, "main.go")
			if err := os.WriteFile(path, []byte(base), 0o644); err != nil {
				t.Fatal(err)
			}
			out := runPatch(t, env, "main.go", c.ops...)
			if out.Outcome != domain.OutcomeSuccess {
				t.Fatalf("got %s %q", out.Outcome, out.Content)
			}
			if got := readFile(t, path); got != c.want {
				t.Errorf("file is %q, want %q", got, c.want)
			}
			if !strings.HasPrefix(out.Content, "Patched main.go:") || !strings.Contains(out.Display.Diff, "--- a/main.go\n+++ b/main.go\n") {
				t.Errorf("content %q diff %q", out.Content, out.Display.Diff)
			}
		})
	}
}

func TestPatchOverwriteCreatesFileAndParents(t *testing.T) {
	env := unrestricted(t)
	out := runPatch(t, env, "deep/er/new.txt", op{"operation": "overwrite", "new_text": "one\ntwo\n"})
	if out.Outcome != domain.OutcomeSuccess || out.Content != "Created deep/er/new.txt (2 lines)." {
		t.Fatalf("got %s %q", out.Outcome, out.Content)
	}
	path := filepath.Join(env.Cwd, "deep", "er", "new.txt")
	if got := readFile(t, path); got != "one\ntwo\n" {
		t.Errorf("file %q", got)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v", fi.Mode().Perm())
	}
	if !strings.Contains(out.Display.Diff, "--- /dev/null\n+++ b/deep/er/new.txt\n") || !strings.Contains(out.Display.Diff, "+one\n+two\n") {
		t.Errorf("diff %q", out.Display.Diff)
	}
}

func TestPatchErrorsLeaveTheFileUntouched(t *testing.T) {
	const base = "a\nb\na\nb\nunique\n"
	cases := []struct {
		name string
		ops  []op
		want string
	}{
		{"not found", []op{{"operation": "replace", "old_text": "zzz", "new_text": "y"}}, "0 matches"},
		{"not unique", []op{{"operation": "replace", "old_text": "a\nb", "new_text": "y"}}, "found 2 times"},
		{"second of two fails: all or nothing", []op{
			{"operation": "replace", "old_text": "unique", "new_text": "changed"},
			{"operation": "replace", "old_text": "missing", "new_text": "y"},
		}, "Patch 2 of 2 (replace) failed"},
		{"empty old_text", []op{{"operation": "replace", "new_text": "y"}}, "replace needs old_text"},
		{"old_text with append", []op{{"operation": "append_eof", "old_text": "a", "new_text": "y"}}, "only for replace"},
		{"unknown operation", []op{{"operation": "insert", "new_text": "y"}}, `unknown operation "insert"`},
		{"NUL in new text", []op{{"operation": "append_eof", "new_text": "x\x00y"}}, "NUL byte"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := unrestricted(t)
			path := filepath.Join(env.Cwd, "f.txt")
			if err := os.WriteFile(path, []byte(base), 0o600); err != nil {
				t.Fatal(err)
			}
			out := runPatch(t, env, "f.txt", c.ops...)
			if out.Outcome != domain.OutcomeError || !strings.Contains(out.Content, c.want) || !strings.Contains(out.Content, "Nothing was changed") {
				t.Errorf("got %s %q, want an error with %q", out.Outcome, out.Content, c.want)
			}
			if got := readFile(t, path); got != base {
				t.Errorf("the file changed to %q", got)
			}
			assertNoTempFiles(t, env.Cwd)
		})
	}
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".phoenix-") {
			t.Errorf("temp file %s left behind", e.Name())
		}
	}
}

func TestPatchKeepsModeAndSymlink(t *testing.T) {
	env := unrestricted(t)
	target := filepath.Join(env.Cwd, "script.sh")
	if err := os.WriteFile(target, []byte("echo hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("script.sh", filepath.Join(env.Cwd, "link.sh")); err != nil {
		t.Fatal(err)
	}
	out := runPatch(t, env, "link.sh", op{"operation": "replace", "old_text": "hi", "new_text": "bye"})
	if out.Outcome != domain.OutcomeSuccess {
		t.Fatalf("got %s %q", out.Outcome, out.Content)
	}
	if got := readFile(t, target); got != "echo bye\n" {
		t.Errorf("target %q", got)
	}
	fi, err := os.Stat(target)
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("mode %v (%v), want 0755", fi.Mode().Perm(), err)
	}
	if li, err := os.Lstat(filepath.Join(env.Cwd, "link.sh")); err != nil || li.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced by a file")
	}
	assertNoTempFiles(t, env.Cwd)
}

func TestPatchRefusals(t *testing.T) {
	env := unrestricted(t)
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(env.Cwd, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("bin.dat", []byte("text\x00more"))
	write("big.txt", []byte(strings.Repeat("x", MaxPatchFileBytes+1)))
	write("nearly.txt", []byte(strings.Repeat("x", MaxPatchFileBytes-2)))
	if err := os.Mkdir(filepath.Join(env.Cwd, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, path string
		op         op
		want       string
	}{
		{"binary file", "bin.dat", op{"operation": "append_eof", "new_text": "x"}, "binary file"},
		{"file over 1 MB", "big.txt", op{"operation": "append_eof", "new_text": "x"}, "up to 1 MB"},
		{"result over 1 MB", "nearly.txt", op{"operation": "append_eof", "new_text": "xxxx"}, "more than the"},
		{"directory", "dir", op{"operation": "overwrite", "new_text": "x"}, "not a regular file"},
		{"replace in a missing file", "missing.txt", op{"operation": "replace", "old_text": "a", "new_text": "b"}, "use overwrite to create it"},
		{"append to a missing file", "missing.txt", op{"operation": "append_eof", "new_text": "b"}, "use overwrite to create it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := runPatch(t, env, c.path, c.op)
			if out.Outcome != domain.OutcomeError || !strings.Contains(out.Content, c.want) {
				t.Errorf("got %s %q, want an error with %q", out.Outcome, out.Content, c.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(env.Cwd, "missing.txt")); err == nil {
		t.Errorf("missing.txt was created")
	}
}

// TestPatchRefusedInRestrictedMode_REQ_BED_014: patch points the model to
// request_mode_upgrade and changes nothing.
func TestPatchRefusedInRestrictedMode_REQ_BED_014(t *testing.T) {
	for _, mode := range []domain.Mode{domain.ModeRestricted, ""} {
		env := Env{Cwd: t.TempDir(), Mode: mode, TempDir: t.TempDir()}
		path := filepath.Join(env.Cwd, "f.txt")
		if err := os.WriteFile(path, []byte("a\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out := runPatch(t, env, "f.txt", op{"operation": "overwrite", "new_text": "b\n"})
		if out.Outcome != domain.OutcomeError || !strings.Contains(out.Content, "request_mode_upgrade") {
			t.Errorf("mode %q: got %s %q", mode, out.Outcome, out.Content)
		}
		if got := readFile(t, path); got != "a\n" {
			t.Errorf("mode %q: the file changed", mode)
		}
	}
}

func TestPatchCRLFAndUnchangedAndOutsidePath(t *testing.T) {
	env := unrestricted(t)
	crlf := filepath.Join(env.Cwd, "win.txt")
	if err := os.WriteFile(crlf, []byte("one\r\ntwo\r\nthree\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := runPatch(t, env, "win.txt", op{"operation": "replace", "old_text": "one\ntwo\n", "new_text": "uno\ndos\n"})
	if out.Outcome != domain.OutcomeSuccess || readFile(t, crlf) != "uno\r\ndos\r\nthree\r\n" {
		t.Errorf("CRLF: %s %q -> %q", out.Outcome, out.Content, readFile(t, crlf))
	}
	out = runPatch(t, env, "win.txt", op{"operation": "replace", "old_text": "uno", "new_text": "uno"})
	if out.Outcome != domain.OutcomeSuccess || !strings.Contains(out.Content, "unchanged") {
		t.Errorf("unchanged: %s %q", out.Outcome, out.Content)
	}
	outside := filepath.Join(t.TempDir(), "elsewhere.txt")
	out = runPatch(t, env, outside, op{"operation": "overwrite", "new_text": "x\n"})
	if out.Outcome != domain.OutcomeSuccess || readFile(t, outside) != "x\n" || !strings.Contains(out.Content, outside) {
		t.Errorf("absolute path outside the working directory: %s %q", out.Outcome, out.Content)
	}
}

func TestDiffStatCountsRemovedDashLines(t *testing.T) {
	env := unrestricted(t)
	path := filepath.Join(env.Cwd, "f.sql")
	if err := os.WriteFile(path, []byte("-- comment\nselect 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := runPatch(t, env, "f.sql", op{"operation": "replace", "old_text": "-- comment\n", "new_text": "++ note\n"})
	if out.Outcome != domain.OutcomeSuccess || !strings.Contains(out.Content, "(+1 −1 lines)") {
		t.Errorf("got %q\n%s", out.Content, out.Display.Diff)
	}
}

func TestPatchRefusesAVanishedWorkingDirectory(t *testing.T) {
	cwd := filepath.Join(t.TempDir(), "project")
	env := Env{Cwd: cwd, Mode: domain.ModeUnrestricted}
	out := NewPatch().Run(context.Background(), env, json.RawMessage(`{"path":"notes.txt","patches":[{"operation":"overwrite","new_text":"x"}]}`))
	if out.Outcome != domain.OutcomeError || !strings.Contains(out.Content, "not available") {
		t.Fatalf("outcome %s: %s", out.Outcome, out.Content)
	}
	if _, err := os.Stat(cwd); !os.IsNotExist(err) {
		t.Fatalf("patch re-created the vanished working directory: %v", err)
	}
}
