//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// secretsFixture is a fake home full of secrets, the app's own data directory with another
// conversation's words in it, and a second conversation's temp dir beside this one's.
type secretsFixture struct {
	home, appData, otherTemp string
	// marker starts every secret's content, and nothing else on the machine.
	marker string
	// files maps each secret file to its content.
	files map[string]string
}

func newSecretsFixture(t *testing.T) *secretsFixture {
	t.Helper()
	root := t.TempDir()
	marker := fmt.Sprintf("SECRET%d%d-", os.Getpid(), time.Now().UnixNano())
	s := &secretsFixture{marker: marker, home: filepath.Join(root, "home"), appData: filepath.Join(root, "home", ".local", "share", "phoenix-desktop"), files: map[string]string{}}
	for _, rel := range []string{".ssh/id_ed25519", ".aws/credentials", ".netrc", ".git-credentials", ".docker/config.json", ".config/gcloud/credentials.db", ".kube/config", ".gnupg/private-keys-v1.d/key"} {
		p := filepath.Join(s.home, rel)
		s.files[p] = marker + strings.ReplaceAll(rel, "/", "_") + "\n"
		mustWrite(t, p, s.files[p])
	}
	words := filepath.Join(s.appData, "conversations", "000001.vlog")
	s.files[words] = marker + "another-conversation's-words\n"
	mustWrite(t, words, s.files[words])
	mustWrite(t, filepath.Join(s.home, "project", "README"), "not a secret\n")
	secretsConfig.Lock()
	oldHome, oldApp := secretsConfig.home, secretsConfig.app
	secretsConfig.home, secretsConfig.app = s.home, nil
	secretsConfig.Unlock()
	HideAppDirs(s.appData)
	t.Cleanup(func() {
		secretsConfig.Lock()
		secretsConfig.home, secretsConfig.app = oldHome, oldApp
		secretsConfig.Unlock()
	})
	other, err := MakeTempDir("other-conversation")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(other) })
	s.otherTemp = other
	p := filepath.Join(other, "notes.txt")
	s.files[p] = s.marker + "other-temp-dir\n"
	mustWrite(t, p, s.files[p])
	return s
}

// TestSecretsAreUnreadable_REQ_BED_014: no entry of the secrets table can be read by a
// Restricted command, at every Landlock ABI, with the mount view and without: not with cat,
// not with grep over the home directory, not from the conversation's own temp dir below the
// app's data directory (where the app keeps temp dirs), while the project stays readable.
func TestSecretsAreUnreadable_REQ_BED_014(t *testing.T) {
	st := Probe()
	if !st.Available {
		t.Skipf("Landlock unavailable: %s", st.Reason)
	}
	s := newSecretsFixture(t)
	// The app keeps each conversation's temp dir below its data directory, a secret itself.
	tmpParent := filepath.Join(s.appData, "sandbox-tmp")
	if err := os.MkdirAll(tmpParent, 0o700); err != nil {
		t.Fatal(err)
	}
	forEachView(t, func(t *testing.T, view bool) {
		forEachABI(t, st.ABI, func(t *testing.T, abi int) {
			tmp, err := os.MkdirTemp(tmpParent, "conv-")
			if err != nil {
				t.Fatal(err)
			}
			env := append(os.Environ(), "HOME="+s.home)
			var script strings.Builder
			for p := range s.files {
				script.WriteString("cat " + shellQuote(p) + " 2>/dev/null\n")
			}
			// Where the secrets are: the home, the data directory in it, the temp root.
			script.WriteString("grep -rs " + s.marker + " \"$HOME\" " + shellQuote(tempRoot()) + " 2>/dev/null\n")
			script.WriteString("cat \"$HOME/project/README\"\necho inside > \"$TMPDIR/mine\" && cat \"$TMPDIR/mine\"\n")
			r := runScript(t, Policy{TempDir: tmp}, s.home, env, script.String())
			if strings.Contains(r.stdout, s.marker) {
				t.Errorf("a secret was read:\n%s", r.stdout)
			}
			if !strings.Contains(r.stdout, "not a secret") {
				t.Errorf("the project was not readable:\n%s\n%s", r.stdout, r.stderr)
			}
			if !strings.Contains(r.stdout, "inside") {
				t.Errorf("the temp dir below the hidden data directory was not usable:\n%s\n%s", r.stdout, r.stderr)
			}
		})
	})
}

// TestSecretsTable: the table lists the person's keys, the app's own directories and the
// other conversations' temp dirs, with symlinks followed and nested entries folded.
func TestSecretsTable(t *testing.T) {
	s := newSecretsFixture(t)
	if err := os.Symlink(filepath.Join(s.home, ".aws"), filepath.Join(s.home, ".azure")); err != nil {
		t.Fatal(err)
	}
	got := hiddenPaths()
	for _, want := range []string{filepath.Join(s.home, ".ssh"), filepath.Join(s.home, ".aws"), s.appData, tempRoot()} {
		real, _ := filepath.EvalSymlinks(want)
		found := false
		for _, g := range got {
			found = found || g == real
		}
		if !found {
			t.Errorf("%s is not hidden: %v", want, got)
		}
	}
	for i := 1; i < len(got); i++ {
		if isBelow(got[i], got[i-1]) || got[i] == got[i-1] {
			t.Errorf("nested or repeated entries: %s after %s", got[i], got[i-1])
		}
	}
	if err := SetExtraSecrets([]string{"relative/path"}); err == nil {
		t.Errorf("a relative extra secret was accepted")
	}
	if err := SetExtraSecrets([]string{"~/vault"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = SetExtraSecrets(nil) })
	found := false
	for _, e := range Secrets() {
		found = found || e.Path == filepath.Join(s.home, "vault")
	}
	if !found {
		t.Errorf("~/vault is not in the table")
	}
}

// TestSecretsTableFollowsHomeAndNewSecrets_REQ_BED_014: the table is looked at before every
// command with its paths joined once per home: a secret made after a first look is present
// at the next, and another home gives that home's paths, not the last one's.
func TestSecretsTableFollowsHomeAndNewSecrets_REQ_BED_014(t *testing.T) {
	homeA, homeB := t.TempDir(), t.TempDir()
	secretsConfig.Lock()
	old := secretsConfig.home
	secretsConfig.home = homeA
	secretsConfig.Unlock()
	t.Cleanup(func() {
		secretsConfig.Lock()
		secretsConfig.home = old
		secretsConfig.Unlock()
	})
	entry := func(path string) (Secret, bool) {
		for _, s := range Secrets() {
			if s.Path == path {
				return s, true
			}
		}
		return Secret{}, false
	}
	ssh := filepath.Join(homeA, ".ssh")
	if s, ok := entry(ssh); !ok || s.Present {
		t.Fatalf("before it exists: %s listed %v, present %v", ssh, ok, s.Present)
	}
	mustWrite(t, filepath.Join(ssh, "id_ed25519"), "key\n")
	if s, ok := entry(ssh); !ok || !s.Present {
		t.Errorf("made after a first look: %s listed %v, present %v", ssh, ok, s.Present)
	}
	if !slices.Contains(hiddenPaths(), ssh) {
		t.Errorf("%s is not hidden once it exists: %v", ssh, hiddenPaths())
	}
	secretsConfig.Lock()
	secretsConfig.home = homeB
	secretsConfig.Unlock()
	if _, ok := entry(filepath.Join(homeB, ".ssh")); !ok {
		t.Errorf("another home's .ssh is not in the table")
	}
	if _, ok := entry(ssh); ok {
		t.Errorf("the last home's .ssh is still in the table after the home changed")
	}
}

// TestEscapeClassesAreClosed_REQ_BED_014: the five classes an outside battery found, each
// checked by its effect outside, at every ABI, with the mount view and without.
func TestEscapeClassesAreClosed_REQ_BED_014(t *testing.T) {
	st := Probe()
	if !st.Available {
		t.Skipf("Landlock unavailable: %s", st.Reason)
	}
	pyBin := python(t)
	py := func(code string) string { return shellQuote(pyBin) + " -c " + shellQuote(code) }
	work := t.TempDir()
	target := filepath.Join(work, "generation.txt")
	mustWrite(t, target, "x\n")

	// A unix datagram socket outside, which a command must not reach by its path.
	dgramPath := filepath.Join(t.TempDir(), "log.sock")
	dgram, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: dgramPath, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dgram.Close() })
	// A System V shared memory segment of another process, under a key of this run's own
	// (another run of this test, or any program, may hold a fixed one).
	shmKey, shmID := ownSysvKey(t, func(key int) (int, error) { return unix.SysvShmGet(key, 4096, unix.IPC_CREAT|unix.IPC_EXCL|0o600) })
	t.Cleanup(func() { _, _ = unix.SysvShmCtl(shmID, unix.IPC_RMID, nil) })
	segment, err := unix.SysvShmAttach(shmID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.SysvShmDetach(segment) })

	generation := func() uint64 {
		fd, err := unix.Open(target, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(fd)
		var v uint64
		if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), fsIOCGetVersion, uintptr(unsafe.Pointer(&v))); errno != 0 {
			t.Logf("this file system has no inode generations (%v): that case checks nothing here", errno)
			return 0
		}
		return v
	}
	gen := generation()
	libc := `import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); `
	cases := []struct{ name, script string }{
		{"unix datagram to a path outside", py(`import os, socket; a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM); a.sendto(b"x", os.environ["DGRAM"])`)},
		{"unix datagram with SCM_RIGHTS", py(`import os, socket; a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM); a.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, bytes(4))], 0, os.environ["DGRAM"])`)},
		{"write another process's shared memory", py(libc + `i = libc.shmget(int(os.environ["SHMKEY"]), 4096, 0); assert i >= 0, ctypes.get_errno(); libc.shmat.restype = ctypes.c_void_p; p = libc.shmat(i, None, 0); assert p not in (None, 2**64-1); ctypes.memmove(p, b"pwned", 5)`)},
		// Under the keys of this subtest (IPCKEY), so that what is left can be told from the
		// objects of every other program on the machine.
		{"leave a shared memory segment, a queue and a semaphore", py(libc + `k = int(os.environ["IPCKEY"]); assert libc.shmget(k, 4096, 0o3600) >= 0, ctypes.get_errno(); assert libc.msgget(k, 0o3600) >= 0, ctypes.get_errno(); assert libc.semget(k, 1, 0o3600) >= 0, ctypes.get_errno()`)},
		{"leave a POSIX message queue", py(`import ctypes; rt = ctypes.CDLL("librt.so.1", use_errno=True); assert rt.mq_open(b"/phoenix-walls", 0o100 | 2, 0o600, None) >= 0`)},
		{"set an inode generation", py(`import fcntl, struct, os; fd = os.open(os.environ["TARGET"], os.O_RDONLY); fcntl.ioctl(fd, 0x40087602, struct.pack("Q", 4242))`)},
		{"remove every user's fscrypt key", py(`import fcntl, os; fd = os.open("/", os.O_RDONLY); fcntl.ioctl(fd, 0xc0406619, bytes(64))`)},
	}
	forEachView(t, func(t *testing.T, view bool) {
		forEachABI(t, st.ABI, func(t *testing.T, abi int) {
			ipcKey := freeSysvKey(t)
			env := append(os.Environ(), "DGRAM="+dgramPath, "TARGET="+target, "SHMKEY="+strconv.Itoa(shmKey), "IPCKEY="+strconv.Itoa(ipcKey))
			for _, c := range cases {
				r := runScript(t, Policy{TempDir: t.TempDir()}, work, env, c.script)
				t.Logf("%s: exit %d: %s", c.name, r.code, lastLine(r.stderr))
			}
			if n := pendingDatagrams(t, dgram); n != 0 {
				t.Errorf("the datagram socket outside received %d message(s)", n)
			}
			if got := string((segment)[:5]); got == "pwned" {
				t.Errorf("another process's shared memory was written")
			}
			// The command's objects live in its own IPC namespace, gone with it, or were
			// never made (the filter); one under its key in this namespace escaped.
			for _, kind := range []string{"shm", "msg", "sem"} {
				if id, ok := sysvObject(t, kind, ipcKey); ok {
					removeSysvObject(kind, id)
					t.Errorf("/proc/sysvipc/%s holds object %d under the command's key %#x: a command's IPC object outlived it", kind, id, ipcKey)
				}
			}
			if _, err := os.Stat("/dev/mqueue/phoenix-walls"); err == nil {
				_ = os.Remove("/dev/mqueue/phoenix-walls")
				t.Errorf("a POSIX message queue outlived the command")
			}
			if g := generation(); g != gen {
				t.Errorf("the inode generation changed from %d to %d", gen, g)
			}
		})
	})
}

// ownSysvKey creates a System V object under a random key that no object holds yet (make
// fails with EEXIST for a taken one) and returns the key and the object's id.
func ownSysvKey(t *testing.T, make func(key int) (int, error)) (key, id int) {
	t.Helper()
	for range 100 {
		key = 1 + rand.IntN(math.MaxInt32-1)
		id, err := make(key)
		if err == nil {
			return key, id
		}
		if !errors.Is(err, unix.EEXIST) {
			t.Fatalf("create a System V IPC object: %v", err)
		}
	}
	t.Fatal("no free System V IPC key in 100 tries")
	return 0, 0
}

// freeSysvKey picks a random key that no System V object of this namespace holds.
func freeSysvKey(t *testing.T) int {
	t.Helper()
	for range 100 {
		key := 1 + rand.IntN(math.MaxInt32-1)
		taken := false
		for _, kind := range []string{"shm", "msg", "sem"} {
			_, ok := sysvObject(t, kind, key)
			taken = taken || ok
		}
		if !taken {
			return key
		}
	}
	t.Fatal("no free System V IPC key in 100 tries")
	return 0
}

// sysvObject finds the object of kind (shm, msg, sem) under key in the test's IPC namespace
// and returns its id.
func sysvObject(t *testing.T, kind string, key int) (int, bool) {
	t.Helper()
	b, err := os.ReadFile("/proc/sysvipc/" + kind)
	if err != nil {
		t.Skipf("no /proc/sysvipc/%s: %v", kind, err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		// The key is printed as a signed decimal.
		if k, err := strconv.ParseInt(f[0], 10, 64); err == nil && int32(k) == int32(key) {
			id, _ := strconv.Atoi(f[1])
			return id, true
		}
	}
	return 0, false
}

// removeSysvObject removes an object that escaped, so that a failed run leaves nothing.
func removeSysvObject(kind string, id int) {
	switch kind {
	case "shm":
		_, _ = unix.SysvShmCtl(id, unix.IPC_RMID, nil)
	case "msg":
		_, _, _ = unix.Syscall(unix.SYS_MSGCTL, uintptr(id), unix.IPC_RMID, 0)
	case "sem":
		_, _, _ = unix.Syscall6(unix.SYS_SEMCTL, uintptr(id), 0, unix.IPC_RMID, 0, 0, 0)
	}
}

// TestEverydayWorkInsideTheView: in the mount view, what real tests need works inside a
// Restricted command: Python's multiprocessing (POSIX semaphores in /dev/shm), a server on
// loopback that the command itself talks to, strace -f of its own child; and a person's
// loopback service stays out of reach.
func TestEverydayWorkInsideTheView(t *testing.T) {
	if st := Probe(); !st.Available {
		t.Skipf("Landlock unavailable: %s", st.Reason)
	}
	if usable, reason := mountViewUsable(); !usable {
		t.Skipf("no mount view here: %s", reason)
	}
	pyBin := python(t)
	py := func(code string) string { return shellQuote(pyBin) + " -c " + shellQuote(code) }
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	port := ln.Addr().(*net.TCPAddr).Port
	cases := []struct{ name, needs, script string }{
		{"multiprocessing", "", py(`import multiprocessing as mp
if __name__ == "__main__":
    with mp.Pool(2) as p: assert p.map(abs, [-1, -2]) == [1, 2]
    l = mp.Lock(); l.acquire(); l.release(); print("ok")`)},
		{"a server on loopback", "", py(`import socket, threading
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
def serve():
    c, _ = s.accept(); c.sendall(c.recv(10)); c.close()
threading.Thread(target=serve).start()
c = socket.create_connection(s.getsockname()); c.sendall(b"ok"); print(c.recv(10).decode())`)},
		{"strace -f of its own child", "strace", `strace -f -o /dev/null true && echo ok`},
		{"the person's loopback service is out of reach", "", py(`import socket, sys
try:
    socket.create_connection(("127.0.0.1", ` + strconv.Itoa(port) + `), 2)
except OSError:
    print("ok"); sys.exit(0)
sys.exit(1)`)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			skipWithout(t, c.needs)
			r := runScript(t, Policy{TempDir: t.TempDir()}, t.TempDir(), os.Environ(), c.script)
			if r.code != 0 || !strings.Contains(r.stdout, "ok") {
				t.Errorf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
		})
	}
	if n := pendingConnections(t, ln.(*net.TCPListener)); n != 0 {
		t.Errorf("the person's loopback service received %d connection(s)", n)
	}
}

// TestMountViewFallsBackWithoutNamespaceCapabilities: where a user namespace comes without
// capabilities (AppArmor on Ubuntu 24.04 and later), the mount view is refused with a reason
// that names AppArmor, before any mount is tried.
func TestMountViewFallsBackWithoutNamespaceCapabilities(t *testing.T) {
	if st := Probe(); !st.Available {
		t.Skipf("Landlock unavailable: %s", st.Reason)
	}
	if usable, reason := mountViewUsable(); !usable {
		t.Skipf("no mount view here: %s", reason)
	}
	t.Setenv(noCapsInNamespaceEnv, "1")
	s, err := startSupervisor(kindView)
	if err == nil {
		s.close()
		t.Fatal("a supervisor started in a namespace without capabilities")
	}
	if reason := mountViewReason(err); !strings.Contains(reason, "AppArmor") {
		t.Errorf("the reason does not name AppArmor: %s (from %v)", reason, err)
	}
}

// TestFirstGoBuildReusesThePersonsCache: in the mount view a Restricted command's Go build
// cache is the person's, copy-on-write: a first build in a new conversation compiles only
// the module's own package (the standard library comes from the person's cache), and the
// person's cache is not written.
func TestFirstGoBuildReusesThePersonsCache(t *testing.T) {
	if st := Probe(); !st.Available {
		t.Skipf("Landlock unavailable: %s", st.Reason)
	}
	if usable, reason := mountViewUsable(); !usable {
		t.Skipf("no mount view here: %s", reason)
	}
	var goCache string
	for _, c := range Caches() {
		if c.Name == "go-build" {
			goCache = c.Path
		}
	}
	if goCache == "" {
		t.Skip("no Go build cache on this machine")
	}
	mod := t.TempDir()
	mustWrite(t, filepath.Join(mod, "go.mod"), "module example.com/hello\n\ngo 1.21\n")
	mustWrite(t, filepath.Join(mod, "main.go"), "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n")
	warm := exec.Command("go", "build", "-o", os.DevNull, ".")
	warm.Dir = mod
	if out, err := warm.CombinedOutput(); err != nil {
		t.Fatalf("the warm build outside: %v\n%s", err, out)
	}
	// A new program, so the build inside has something of its own to compile.
	mustWrite(t, filepath.Join(mod, "main.go"), "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello inside\") }\n")
	tmp := t.TempDir()
	r := runScript(t, Policy{TempDir: tmp}, mod, append(os.Environ(), "GOCACHE="+filepath.Join(tmp, "empty")),
		`go build -o "$TMPDIR/hello" . && "$TMPDIR/hello" && go env GOCACHE`)
	if r.code != 0 || !strings.Contains(r.stdout, "hello inside") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, goCache) {
		t.Errorf("GOCACHE inside is not the shared cache %s:\n%s", goCache, r.stdout)
	}
	checkBuildReusedCache(t, tmp, goCache)
}

// checkBuildReusedCache checks what a first build inside, in the conversation whose temp dir
// is tmp, wrote: a few files of its own, in the conversation's layer and nowhere in the
// person's cache goCache.
func checkBuildReusedCache(t *testing.T, tmp, goCache string) {
	t.Helper()
	// Other go commands on the machine may write to the person's cache meanwhile, so the
	// cache is not simply counted.
	upper := filepath.Join(tmp, cacheLayersDir, "go-build", "upper")
	written := filesBelow(t, upper)
	for _, rel := range written {
		if rel == "trim.txt" || rel == "README" {
			continue
		}
		if _, err := os.Lstat(filepath.Join(goCache, rel)); err == nil {
			t.Errorf("the person's cache holds %s, which the build inside wrote", rel)
		}
	}
	// A build that compiled the standard library afresh writes hundreds of entries.
	if n := len(written); n == 0 || n > 60 {
		t.Errorf("the conversation's layer holds %d files; want a few (the module's own)", n)
	}
}

// TestGoCacheMadeLaterIsShared: a person who installs the app before ever running Go has no
// Go build cache when the app (and its supervisors) start; the cache their first build
// outside makes is shared from the next command on — in a conversation that already ran a
// command and in a new one — without a restart. (The cache appears here as a link to this
// machine's warm one, as `go env` finds it under a fresh home, so that no standard library
// is compiled for the test.)
func TestGoCacheMadeLaterIsShared(t *testing.T) {
	if st := Probe(); !st.Available {
		t.Skipf("Landlock unavailable: %s", st.Reason)
	}
	if usable, reason := mountViewUsable(); !usable {
		t.Skipf("no mount view here: %s", reason)
	}
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Skipf("no go here: %v", err)
	}
	warmCache, err := filepath.EvalSymlinks(strings.TrimSpace(string(out)))
	if err != nil {
		t.Skipf("no Go build cache on this machine: %v", err)
	}
	mod := t.TempDir()
	mustWrite(t, filepath.Join(mod, "go.mod"), "module example.com/hello\n\ngo 1.21\n")
	mustWrite(t, filepath.Join(mod, "main.go"), "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n")
	warm := exec.Command("go", "build", "-o", os.DevNull, ".")
	warm.Dir = mod
	if out, err := warm.CombinedOutput(); err != nil {
		t.Fatalf("the warm build outside: %v\n%s", err, out)
	}

	// A fresh home: go's cache is ~/.cache/go-build, which does not exist yet.
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GOCACHE", "")
	t.Setenv("GOENV", "")
	goCache := filepath.Join(home, ".cache", "go-build")
	conversation := t.TempDir()
	r := runScript(t, Policy{TempDir: conversation}, mod, os.Environ(), `go env GOCACHE`)
	if r.code != 0 {
		t.Fatalf("the first command: exit %d\nstderr: %s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, warmCache) {
		t.Fatalf("a cache was shared before there was one: %s", r.stdout)
	}

	// The person's first build outside makes the cache.
	if err := os.MkdirAll(filepath.Dir(goCache), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(warmCache, goCache); err != nil {
		t.Fatal(err)
	}
	// A new program, so the build inside has something of its own to compile.
	mustWrite(t, filepath.Join(mod, "main.go"), "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello inside\") }\n")
	for _, c := range []struct{ name, tmp string }{{"the same conversation", conversation}, {"a new conversation", t.TempDir()}} {
		r := runScript(t, Policy{TempDir: c.tmp}, mod, os.Environ(), `go build -o "$TMPDIR/hello" . && "$TMPDIR/hello" && go env GOCACHE`)
		if r.code != 0 || !strings.Contains(r.stdout, "hello inside") {
			t.Fatalf("%s: exit %d\nstdout: %s\nstderr: %s", c.name, r.code, r.stdout, r.stderr)
		}
		if !strings.Contains(r.stdout, warmCache) {
			t.Errorf("%s: GOCACHE inside is not the cache made later (%s):\n%s", c.name, warmCache, r.stdout)
		}
		checkBuildReusedCache(t, c.tmp, warmCache)
	}
}

// filesBelow lists the files below dir, relative to it.
func filesBelow(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// TestRunCommandDiesWithAKilledSupervisor: in the mount view a command lives in its
// supervisor's pid namespace, so if something outside kills the long-lived supervisor
// outright (the OOM killer, the person), the kernel ends the command and everything it
// started, setsid escapees included.
func TestRunCommandDiesWithAKilledSupervisor(t *testing.T) {
	if st := Probe(); !st.Available {
		t.Skipf("Landlock unavailable: %s", st.Reason)
	}
	if usable, reason := mountViewUsable(); !usable {
		t.Skipf("no mount view here: %s", reason)
	}
	tmp := t.TempDir()
	pidFile := filepath.Join(tmp, "pids")
	done := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), Policy{TempDir: tmp}, `echo $$ > "$TMPDIR/bash"
setsid sh -c 'echo $$ >> "$TMPDIR/pids"; exec sleep 100' &
while [ ! -s "$TMPDIR/pids" ]; do :; done; cat "$TMPDIR/bash" >> "$TMPDIR/pids"; sleep 100`, RunOptions{Env: os.Environ()})
		done <- err
	}()
	deadline := time.Now().Add(20 * time.Second)
	var pids []int
	for len(pids) < 2 {
		b, _ := os.ReadFile(pidFile)
		pids = parsePIDs(string(b))
		if time.Now().After(deadline) {
			t.Fatalf("the command did not start: %q", b)
		}
		// Poll the file the command writes; there is no event to wait on.
		time.Sleep(2 * time.Millisecond)
	}
	pids = hostPIDs(t, pids)
	// pids[1] is bash, whose parent is the supervisor.
	sup, err := parentOf(pids[1])
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Kill(sup, unix.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil {
		t.Errorf("Run did not report the supervisor's end")
	}
	waitGone(t, pids, deadline, "their killed supervisor")
}

// TestCacheVariables: a shared cache's variable names its overlay; a cache whose overlay
// could not be mounted, if its tool must write one (npm, pip), gets an empty one in the temp
// dir instead of a read-only one it would fail on; Go's module cache stays as it is.
func TestCacheVariables(t *testing.T) {
	wanted := []CacheDir{{"go-build", "/c/go-build", "GOCACHE"}, {"go-mod", "/c/mod", "GOMODCACHE"}, {"npm", "/h/.npm", "npm_config_cache"}, {"pip", "/c/pip", "PIP_CACHE_DIR"}}
	got := withCaches([]string{"A=1", "npm_config_cache=/elsewhere"}, wanted, wanted[:1], "/tmp/t")
	want := []string{"A=1", "GOCACHE=/c/go-build", "PIP_CACHE_DIR=/tmp/t/.cache/pip", "npm_config_cache=/tmp/t/.cache/npm"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %v\nwant %v", got, want)
	}
}
