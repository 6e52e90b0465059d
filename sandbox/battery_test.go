//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// result is what one sandboxed command did.
type result struct {
	stdout, stderr string
	code           int
}

// runScript runs script under the policy in dir with env, and waits for it.
func runScript(t *testing.T, p Policy, dir string, env []string, script string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	code, err := Run(ctx, p, script, RunOptions{Dir: dir, Env: env, Stdout: &out, Stderr: &errb})
	if err != nil {
		t.Fatalf("run %q: %v (stderr %q)", script, err, errb.String())
	}
	return result{out.String(), errb.String(), code}
}

// fixture is the world the battery runs in: a working directory with a file and a git
// repository, a fake home, a private temp dir, and listeners the sandbox must not reach.
type fixture struct {
	work, home, tmp, outside string
	file                     string // work/file.txt, content "original\n"
	mtime                    time.Time
	env                      []string
	tcp                      *net.TCPListener
	udp                      *net.UDPConn
	unixPath                 string
	unixLn                   *net.UnixListener
	abstract                 string
	abstractLn               *net.UnixListener
	victim                   *exec.Cmd
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{work: t.TempDir(), home: t.TempDir(), tmp: t.TempDir(), outside: t.TempDir()}
	f.file = filepath.Join(f.work, "file.txt")
	mustWrite(t, f.file, "original\n")
	f.mtime = time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(f.file, f.mtime, f.mtime); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(f.work, "emptydir"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(f.work, "src", "main.go"), "package main\n\nfunc main() { println(\"needle\") }\n")
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = f.work
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "fixture")

	var err error
	f.tcp, err = net.ListenTCP("tcp4", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.tcp.Close() })
	f.udp, err = net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.udp.Close() })
	f.unixPath = filepath.Join(f.outside, "bus.sock")
	f.unixLn, err = net.ListenUnix("unix", &net.UnixAddr{Name: f.unixPath, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.unixLn.Close() })
	f.abstract = fmt.Sprintf("phoenix-battery-%d", os.Getpid())
	f.abstractLn, err = net.ListenUnix("unix", &net.UnixAddr{Name: "@" + f.abstract, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.abstractLn.Close() })

	// A process outside the sandbox that the sandbox tries to kill. It must outlive the
	// battery on the slowest machine (under qemu's emulation it runs for most of an hour).
	f.victim = exec.Command("sleep", "86400")
	if err := f.victim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.victim.Process.Kill(); _ = f.victim.Wait() })

	f.env = append(os.Environ(), "HOME="+f.home, "W="+f.work, "OUT="+f.outside,
		fmt.Sprintf("TCP_PORT=%d", f.tcp.Addr().(*net.TCPAddr).Port),
		fmt.Sprintf("UDP_PORT=%d", f.udp.LocalAddr().(*net.UDPAddr).Port),
		"UNIX_SOCK="+f.unixPath, "ABSTRACT="+f.abstract,
		fmt.Sprintf("VICTIM=%d", f.victim.Process.Pid))
	return f
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// rawConn is what net listeners and connections give for direct system calls.
type rawConn interface {
	SyscallConn() (syscall.RawConn, error)
}

// pendingConnections accepts, without blocking, whatever connected to a listener.
func pendingConnections(t *testing.T, ln rawConn) int {
	t.Helper()
	rc, err := ln.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = rc.Control(func(fd uintptr) {
		for {
			nfd, _, err := unix.Accept4(int(fd), unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
			if err != nil {
				return
			}
			unix.Close(nfd)
			n++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// pendingDatagrams reads, without blocking, whatever arrived on the UDP socket. Loopback
// delivery happens inside sendto(2), so anything sent has arrived by the time the sandboxed
// command has exited.
func pendingDatagrams(t *testing.T, c rawConn) int {
	t.Helper()
	rc, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	buf := make([]byte, 2048)
	err = rc.Control(func(fd uintptr) {
		for {
			if _, _, err := unix.Recvfrom(int(fd), buf, unix.MSG_DONTWAIT); err != nil {
				return
			}
			n++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func (f *fixture) fileUnchanged(t *testing.T) {
	t.Helper()
	b, err := os.ReadFile(f.file)
	if err != nil {
		t.Fatalf("file.txt is gone: %v", err)
	}
	if string(b) != "original\n" {
		t.Fatalf("file.txt was changed to %q", b)
	}
	fi, err := os.Stat(f.file)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Fatalf("file.txt mode changed to %v", fi.Mode().Perm())
	}
}

func absent(paths ...string) func(t *testing.T, f *fixture) {
	return func(t *testing.T, f *fixture) {
		t.Helper()
		for _, p := range paths {
			p = os.Expand(p, func(k string) string {
				switch k {
				case "W":
					return f.work
				case "HOME":
					return f.home
				case "TMPDIR":
					return f.tmp
				}
				return "$" + k
			})
			if _, err := os.Lstat(p); err == nil {
				t.Errorf("%s was created", p)
				_ = os.RemoveAll(p)
			}
		}
		f.fileUnchanged(t)
	}
}

// TestRestrictedEscapeBattery_REQ_BED_014 runs each escape attempt in its own restricted
// command. Every attempt must fail, and its effect must be absent afterwards.
// It runs at every Landlock ABI from 1 to the kernel's, by capping the ruleset's version,
// with the mount view and without.
func TestRestrictedEscapeBattery_REQ_BED_014(t *testing.T) {
	st := Probe()
	if !st.Available {
		t.Skipf("Landlock unavailable: %s", st.Reason)
	}
	f := newFixture(t)
	forEachView(t, func(t *testing.T, view bool) {
		forEachABI(t, st.ABI, func(t *testing.T, abi int) { escapeBattery(t, f, view, abi) })
	})
	parentStaysUnrestricted(t, f)
}

// forEachABI runs check at every Landlock ABI from MinABI to the kernel's.
func forEachABI(t *testing.T, kernel int, check func(t *testing.T, abi int)) {
	for abi := MinABI; abi <= kernel; abi++ {
		atABI(t, abi, func(t *testing.T) { check(t, abi) })
	}
}

// atABI runs check as a subtest with the Landlock ABI the sandbox asks for capped at abi.
func atABI(t *testing.T, abi int, check func(t *testing.T)) {
	t.Run(fmt.Sprintf("ABI %d", abi), func(t *testing.T) {
		maxABIForTests = abi
		t.Cleanup(func() { maxABIForTests = 0 })
		check(t)
	})
}

// skipWithout skips the test when program is named and not installed.
func skipWithout(t *testing.T, program string) {
	t.Helper()
	if program == "" {
		return
	}
	if _, err := exec.LookPath(program); err != nil {
		t.Skipf("%s is not installed", program)
	}
}

func escapeBattery(t *testing.T, f *fixture, view bool, abi int) {
	// A fresh temp dir each time, so that nothing one run left there helps the next.
	f.tmp = t.TempDir()
	tmpSlash := fmt.Sprintf("/tmp/phoenix-escape-%d", os.Getpid())
	t.Cleanup(func() { os.Remove(tmpSlash) })
	shm := fmt.Sprintf("/dev/shm/phoenix-escape-%d", os.Getpid())
	t.Cleanup(func() { os.Remove(shm) })

	noConnection := func(t *testing.T, f *fixture) {
		t.Helper()
		if n := pendingConnections(t, f.tcp); n != 0 {
			t.Errorf("the TCP listener outside received %d connection(s)", n)
		}
		if n := pendingDatagrams(t, f.udp); n != 0 {
			t.Errorf("the UDP listener outside received %d datagram(s)", n)
		}
		if n := pendingConnections(t, f.unixLn); n != 0 {
			t.Errorf("the unix socket outside received %d connection(s)", n)
		}
		if n := pendingConnections(t, f.abstractLn); n != 0 {
			t.Errorf("the abstract unix socket outside received %d connection(s)", n)
		}
	}
	unchanged := absent()
	deletedLookalike := f.tmp + " (deleted)"
	mustWrite(t, deletedLookalike, "beside the temp dir\n")
	t.Cleanup(func() { os.Remove(deletedLookalike) })
	lastExit := 0
	exitWas := func(code int) func(t *testing.T, f *fixture) {
		return func(t *testing.T, f *fixture) {
			if lastExit != code {
				t.Errorf("exit %d, want %d", lastExit, code)
			}
		}
	}
	py := func(code string) string { return shellQuote(python(t)) + " -c " + shellQuote(code) }

	mtimeUnchanged := func(t *testing.T, f *fixture) {
		t.Helper()
		f.fileUnchanged(t)
		fi, err := os.Stat(f.file)
		if err != nil {
			t.Fatal(err)
		}
		if !fi.ModTime().Equal(f.mtime) {
			t.Errorf("the modification time changed from %v to %v", f.mtime, fi.ModTime())
		}
	}
	// In the mount view these succeed inside the command's own namespaces (its private
	// /dev/shm, its network namespace's loopback); verify proves nothing reached outside.
	insideViewNamespaces := map[string]bool{
		"write in /dev/shm": true, "python TCP bind": true, "UDP send via /dev/udp": true, "python UDP send": true,
	}
	cases := []struct {
		name   string
		script string
		needs  string // a program the attempt needs; the case is skipped without it
		verify func(t *testing.T, f *fixture)
	}{
		{"touch -d", `touch -d 2000-01-01 file.txt`, "", mtimeUnchanged},
		{"python os.utime", py(`import os; os.utime("file.txt", (0, 0))`), "python3", mtimeUnchanged},
		{"futimens on a read-only descriptor", py(`import os; os.utime(os.open("file.txt", os.O_RDONLY), (0, 0))`), "python3", mtimeUnchanged},
		{"touch -d through a symlink in TMPDIR", `ln -sf "$W/file.txt" "$TMPDIR/l" && touch -d 2000-01-01 "$TMPDIR/l"`, "", mtimeUnchanged},
		{"touch -d by a path that climbs out of TMPDIR", `cd "$TMPDIR" && touch -d 2000-01-01 "$(realpath --relative-to=. "$W/file.txt")"`, "realpath", mtimeUnchanged},
		{"chmod through a read-only descriptor", py(`import os; os.fchmod(os.open("file.txt", os.O_RDONLY), 0o777)`), "python3", unchanged},
		{"chmod through a symlink in TMPDIR", `ln -sf "$W/file.txt" "$TMPDIR/m" && chmod 777 "$TMPDIR/m"`, "", unchanged},
		{"shell redirect overwrite", `echo pwned > file.txt`, "", unchanged},
		{"shell redirect append", `echo pwned >> file.txt`, "", unchanged},
		{"tee", `echo pwned | tee file.txt`, "", unchanged},
		{"touch new file", `touch touched.txt`, "", absent("$W/touched.txt")},
		{"cp", `cp file.txt copy.txt`, "", absent("$W/copy.txt")},
		{"mv", `mv file.txt moved.txt`, "", absent("$W/moved.txt")},
		{"ln (hard link)", `ln file.txt hard.txt`, "", absent("$W/hard.txt")},
		{"ln -s", `ln -s file.txt sym.txt`, "", absent("$W/sym.txt")},
		{"mkdir", `mkdir newdir`, "", absent("$W/newdir")},
		{"rm", `rm -f file.txt`, "", unchanged},
		{"rmdir", `rmdir emptydir && test ! -d emptydir`, "", func(t *testing.T, f *fixture) {
			if _, err := os.Stat(filepath.Join(f.work, "emptydir")); err != nil {
				t.Errorf("emptydir was removed")
			}
		}},
		{"chmod", `chmod 777 file.txt`, "", unchanged},
		{"chown", `chown 1:1 file.txt`, "", func(t *testing.T, f *fixture) {
			fi, err := os.Stat(f.file)
			if err != nil {
				t.Fatal(err)
			}
			if st := fi.Sys().(*syscall.Stat_t); int(st.Uid) != os.Getuid() {
				t.Errorf("owner changed to %d", st.Uid)
			}
		}},
		{"chown a file in TMPDIR to another user", `touch "$TMPDIR/given" && chown 1:1 "$TMPDIR/given"`, "", func(t *testing.T, f *fixture) {
			fi, err := os.Stat(filepath.Join(f.tmp, "given"))
			if err != nil {
				t.Fatal(err)
			}
			if st := fi.Sys().(*syscall.Stat_t); int(st.Uid) == 1 {
				t.Errorf("the file was given to user 1")
			}
		}},
		{"setxattr", py(`import os; os.setxattr("file.txt", "user.pwned", b"1")`), "python3", func(t *testing.T, f *fixture) {
			if _, err := unix.Getxattr(f.file, "user.pwned", nil); err == nil {
				t.Errorf("the extended attribute was set")
			}
		}},
		{"truncate", `truncate -s 0 file.txt`, "", unchanged},
		{"dd", `dd if=/dev/zero of=file.txt bs=1 count=4 conv=notrunc`, "", unchanged},
		{"sed -i", `sed -i s/original/pwned/ file.txt`, "", unchanged},
		{"python write", py(`open("file.txt", "w").write("pwned")`), "python3", unchanged},
		{"perl write", `perl -e 'open(F, ">", "file.txt") or die "$!\n"; print F "pwned"'`, "perl", unchanged},
		{"git init", `git init -q newrepo`, "git", absent("$W/newrepo")},
		{"git commit in the working tree", `git -c user.name=x -c user.email=x@x commit -q --allow-empty -m pwned`, "git", func(t *testing.T, f *fixture) {
			out, err := exec.Command("git", "-C", f.work, "rev-list", "--count", "HEAD").Output()
			if err != nil {
				t.Fatal(err)
			}
			if strings.TrimSpace(string(out)) != "1" {
				t.Errorf("a commit was added: %s commits", out)
			}
		}},
		{"write in the working directory (relative path)", `echo pwned > ./new.txt`, "", absent("$W/new.txt")},
		{"write in $HOME", `echo pwned > "$HOME/.bashrc"`, "", absent("$HOME/.bashrc")},
		{"write in /tmp", `echo pwned > ` + tmpSlash, "", absent(tmpSlash)},
		{"write in /dev/shm", `echo pwned > ` + shm, "", absent(shm)},
		{"write through /proc/self/fd", `exec 3< file.txt; echo pwned > /proc/self/fd/3`, "", unchanged},
		{"open read-write (<>)", `exec 3<> file.txt; echo pwned >&3`, "", unchanged},
		{"symlink from TMPDIR to outside, then write", `ln -s "$W/file.txt" "$TMPDIR/link" && echo pwned > "$TMPDIR/link"`, "", unchanged},
		{"hard link from outside into TMPDIR", `ln "$W/file.txt" "$TMPDIR/hard" && echo pwned > "$TMPDIR/hard"`, "", unchanged},
		{"rename into TMPDIR", `mv file.txt "$TMPDIR/stolen.txt"`, "", unchanged},
		{"TCP via /dev/tcp", `echo hello > /dev/tcp/127.0.0.1/$TCP_PORT`, "", noConnection},
		{"curl", `curl -sS --max-time 5 http://127.0.0.1:$TCP_PORT/`, "curl", noConnection},
		{"python TCP connect", py(`import os, socket; socket.create_connection(("127.0.0.1", int(os.environ["TCP_PORT"])), 5)`), "python3", noConnection},
		{"python TCP bind", py(`import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()`), "python3", noConnection},
		{"Multipath TCP connect (IPPROTO_MPTCP=262)", py(`import os, socket; s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262); s.connect(("127.0.0.1", int(os.environ["TCP_PORT"])))`), "python3", noConnection},
		{"UDP send via /dev/udp", `echo hello > /dev/udp/127.0.0.1/$UDP_PORT`, "", noConnection},
		{"python UDP send", py(`import os, socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", int(os.environ["UDP_PORT"])))`), "python3", noConnection},
		{"raw socket", py(`import socket; socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)`), "python3", noConnection},
		{"IPv6 TCP connect", py(`import socket; socket.create_connection(("::1", 9), 5)`), "python3", noConnection},
		{"unix socket outside (like the session bus)", py(`import os, socket; s = socket.socket(socket.AF_UNIX); s.connect(os.environ["UNIX_SOCK"])`), "python3", noConnection},
		{"abstract unix socket outside", py(`import os, socket; s = socket.socket(socket.AF_UNIX); s.connect("\0" + os.environ["ABSTRACT"])`), "python3", noConnection},
		{"kill a process outside", `kill -9 $VICTIM`, "", func(t *testing.T, f *fixture) {
			if state := procState(f.victim.Process.Pid); state == "" || state == "Z" {
				t.Errorf("the process outside was killed (state %q)", state)
			}
		}},
		{"ptrace a process outside", py(`import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); r = libc.ptrace(16, int(os.environ["VICTIM"]), 0, 0); assert r == 0, os.strerror(ctypes.get_errno())`), "python3", func(t *testing.T, f *fixture) {
			if state := procState(f.victim.Process.Pid); state == "t" || state == "T" {
				t.Errorf("the process outside is being traced (state %q)", state)
			}
		}},
		{"unshare a user namespace", `unshare -r true`, "unshare", unchanged},
		// clone(2) with CLONE_NEWUSER|SIGCHLD: had it worked, the child would exit 0 and so
		// would the parent.
		{"clone into a new user namespace", py(`import ctypes, os, sys; libc = ctypes.CDLL(None, use_errno=True); r = libc.syscall(56, 0x10000000 | 17, 0, 0, 0, 0); os._exit(0) if r == 0 else None; sys.exit(7 if r < 0 else 0)`), "python3", exitWas(7)},
		{"chattr (file flags through a read-only descriptor)", `chattr +d file.txt || exit 7`, "chattr", exitWas(7)},
		// A file beside the temp dir whose name is the temp dir's with " (deleted)", which
		// is how the kernel names a removed file.
		{"chmod a file named like the removed temp dir", `chmod 777 "$TMPDIR (deleted)" || exit 7`, "", func(t *testing.T, f *fixture) {
			if fi, err := os.Stat(f.tmp + " (deleted)"); err != nil || fi.Mode().Perm() != 0o644 {
				t.Errorf("the file beside the temp dir changed: %v, %v", fi.Mode(), err)
			}
		}},
		{"give a file in TMPDIR file capabilities", `cp "$(command -v true)" "$TMPDIR/captrue" && ` + py(`import os; os.setxattr(os.environ["TMPDIR"] + "/captrue", "security.capability", bytes.fromhex("01000002c000000000000000000000000000"))`) + ` || exit 7`, "python3", func(t *testing.T, f *fixture) {
			if _, err := unix.Getxattr(filepath.Join(f.tmp, "captrue"), "security.capability", make([]byte, 64)); err == nil {
				t.Errorf("the file in the temp dir got file capabilities")
			}
		}},
		// The supervisor stays outside the sandbox, so the command cannot kill it to escape
		// the final sweep. Had the kill worked, the helper would have died by SIGKILL
		// (exit -1 here) instead of the script reaching its exit 7.
		{"kill the supervisor", `kill -9 $PPID || exit 7`, "", exitWas(7)},
		// kill(2) also takes a thread id, and SIGKILL to any thread ends the whole
		// process; Landlock decides by the target thread's domain. So no thread of the
		// supervisor may share the command's domain while the command runs (see
		// startRestricted).
		{"kill the supervisor through each of its threads", `for t in /proc/$PPID/task/*; do kill -9 "${t##*/}"; done; exit 7`, "", exitWas(7)},
		{"read the supervisor's environment through each of its threads", `cat /proc/$PPID/environ; for t in /proc/$PPID/task/*; do cat "$t/environ" && exit 0; done; exit 7`, "", exitWas(7)},
		{"read the supervisor's memory", `dd if=/proc/$PPID/mem bs=1 count=1 skip=4194304 || exit 7`, "", exitWas(7)},
		// The supervisor leads its own session and process group.
		{"kill the supervisor's process group", `kill -9 -- -$PPID || exit 7`, "", exitWas(7)},
		{"join the supervisor's process group, then kill the group", `SUP=$PPID ` + py(`import os; os.setpgid(0, int(os.environ["SUP"])); os.kill(0, 9)`) + ` || exit 7`, "python3", exitWas(7)},
		{"kill every process (-1)", `kill -9 -1; exit 7`, "", func(t *testing.T, f *fixture) {
			if state := procState(f.victim.Process.Pid); state == "" || state == "Z" {
				t.Errorf("the process outside was killed (state %q)", state)
			}
		}},
		{"signal the supervisor through a pidfd", `SUP=$PPID ` + py(`import os, signal; signal.pidfd_send_signal(os.pidfd_open(int(os.environ["SUP"])), 9)`) + ` || exit 7`, "python3", exitWas(7)},
		{"signal the supervisor through its /proc directory", `SUP=$PPID ` + py(`import os, signal; signal.pidfd_send_signal(os.open("/proc/" + os.environ["SUP"], os.O_RDONLY | os.O_DIRECTORY), 9)`) + ` || exit 7`, "python3", exitWas(7)},
		// Every attempt at its threads is made; had one worked, the supervisor would have
		// died by SIGKILL instead of the script reaching its exit 7.
		{"queue a signal to each of the supervisor's threads (rt_tgsigqueueinfo)", `SUP=$PPID ` + py(`import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); sup = int(os.environ["SUP"]); info = ctypes.create_string_buffer(128); info[8:12] = (-1).to_bytes(4, "little", signed=True); [libc.syscall(297, sup, int(t), 9, info) for t in os.listdir("/proc/%d/task" % sup)]`) + `; exit 7`, "python3", exitWas(7)},
		// RLIMIT_CPU of 0 makes the kernel kill a process at its next tick.
		{"set the supervisor's CPU limit to 0", `prlimit --pid $PPID --cpu=0:0 || exit 7`, "prlimit", exitWas(7)},
		{"renice the supervisor", `renice -n 19 -p $PPID || exit 7`, "renice", exitWas(7)},
		{"renice every process of the user", `renice -n 19 -u "$(id -u)" || exit 7`, "renice", exitWas(7)},
		// F_SETSIG makes the kernel send SIGKILL instead of SIGIO once the pipe has data.
		{"make the supervisor the SIGKILL owner of a pipe", `SUP=$PPID ` + py(`import fcntl, os; r, w = os.pipe(); fcntl.fcntl(r, fcntl.F_SETOWN, int(os.environ["SUP"])); fcntl.fcntl(r, 10, 9); fcntl.fcntl(r, fcntl.F_SETFL, os.O_ASYNC); os.write(w, b"x")`) + `; sleep 0.1; exit 7`, "python3", exitWas(7)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			skipWithout(t, c.needs)
			r := runScript(t, Policy{TempDir: f.tmp}, f.work, f.env, c.script)
			if r.code == 0 && !(view && insideViewNamespaces[c.name]) {
				t.Errorf("the attempt succeeded (exit 0)\nstdout: %s\nstderr: %s", r.stdout, r.stderr)
			}
			lastExit = r.code
			c.verify(t, f)
			t.Logf("denied: exit %d: %s", r.code, lastLine(r.stderr))
		})
	}

	// Inside its own temp dir a command does what a normal user does, with or without the
	// mount view.
	inside := []struct{ name, script string }{
		{"touch -d in TMPDIR", `cd "$TMPDIR" && touch t && touch -d 2000-01-01 t && [ "$(date -r t +%Y)" = 2000 ]`},
		{"python os.utime in TMPDIR", `cd "$TMPDIR" && touch u && ` + py(`import os; os.utime("u", (0, 0)); assert os.stat("u").st_mtime == 0`)},
		{"chmod in TMPDIR", `cd "$TMPDIR" && touch x && chmod 700 x && [ -x x ] && chmod 600 x && [ ! -x x ]`},
		{"chmod through a descriptor in TMPDIR", `cd "$TMPDIR" && touch y && ` + py(`import os; fd = os.open("y", os.O_RDONLY); os.fchmod(fd, 0o751); assert os.stat("y").st_mode & 0o777 == 0o751`)},
		{"git init in TMPDIR", `cd "$TMPDIR" && rm -rf repo && git init -q repo && git -C repo status --short`},
		{"git clone into TMPDIR", `rm -rf "$TMPDIR/clone" && git clone -q "$W" "$TMPDIR/clone" && cat "$TMPDIR/clone/file.txt"`},
		{"touch -h on a symlink in TMPDIR", `ln -sf "$W/file.txt" "$TMPDIR/h" && touch -h -d 2000-01-01 "$TMPDIR/h" && [ "$(stat -c %Y "$TMPDIR/h")" = 946684800 ]`},
		{"cp -p and tar keep times in TMPDIR", `cp -p file.txt "$TMPDIR/kept" && [ "$(stat -c %Y "$TMPDIR/kept")" = "$(stat -c %Y file.txt)" ] && tar -C "$W" -cf "$TMPDIR/w.tar" file.txt && mkdir -p "$TMPDIR/untar" && tar -C "$TMPDIR/untar" -xf "$TMPDIR/w.tar"`},
		{"chown to itself in TMPDIR", `cd "$TMPDIR" && touch own && chown "$(id -u):$(id -g)" own`},
		// Its own processes it may signal, limit and renice at every ABI.
		{"kill a background job", `sleep 30 & kill $!; wait $!; [ $? = 143 ]`},
		{"timeout", `timeout 0.2 sleep 30; [ $? = 124 ]`},
		{"signal its own process group", `kill -0 0 && kill -0 -- -$$`},
		{"signal a child through a pidfd", py(`import os, signal, subprocess; p = subprocess.Popen(["sleep", "30"]); signal.pidfd_send_signal(os.pidfd_open(p.pid), signal.SIGTERM); assert p.wait() == -15`)},
		{"prlimit and renice a child", `sleep 30 & prlimit --pid $! --nofile=64:64 && renice -n 5 -p $! >/dev/null && kill $!`},
	}
	for _, c := range inside {
		t.Run(c.name, func(t *testing.T) {
			r := runScript(t, Policy{TempDir: f.tmp}, f.work, f.env, c.script)
			if r.code != 0 {
				t.Errorf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			f.fileUnchanged(t)
		})
	}
}

// parentStaysUnrestricted: the parent was never restricted: it can still write where the
// sandbox could not, and still connect out.
func parentStaysUnrestricted(t *testing.T, f *fixture) {
	t.Run("parent stays unrestricted", func(t *testing.T) {
		mustWrite(t, filepath.Join(f.work, "written-by-parent.txt"), "ok")
		conn, err := net.Dial("tcp4", f.tcp.Addr().String())
		if err != nil {
			t.Fatalf("the parent cannot connect: %v", err)
		}
		conn.Close()
		if n := pendingConnections(t, f.tcp); n != 1 {
			t.Errorf("the listener saw %d connections from the parent, want 1", n)
		}
		status, err := os.ReadFile("/proc/self/status")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(status), "Seccomp:\t0") {
			t.Errorf("the test process has a seccomp filter:\n%s", status)
		}
	})
}

// TestRestrictedNormalWork_REQ_BED_014 checks that read-only work succeeds in the sandbox.
func TestRestrictedNormalWork_REQ_BED_014(t *testing.T) {
	if st := Probe(); !st.Available {
		t.Skipf("Landlock unavailable: %s", st.Reason)
	}
	f := newFixture(t)
	heredoc := strings.Repeat("0123456789abcdef\n", 6000) // 102 000 bytes
	cases := []struct {
		name   string
		script string
		needs  string
		want   string // a substring of stdout
	}{
		{"read a file", `cat file.txt`, "", "original"},
		{"pipes", `printf 'a\nb\nc\n' | grep b | wc -l`, "", "1"},
		{"subshells and command substitution", `(cd / && pwd); echo "$(echo nested)"`, "", "nested"},
		{"large heredoc", "wc -c <<'EOF'\n" + heredoc + "EOF", "", "102000"},
		{"ls -R", `ls -R`, "", "main.go"},
		{"grep -r", `grep -rn needle .`, "", "src/main.go:3"},
		{"git status", `git status --short --branch`, "git", "## master"},
		{"git log", `git log --oneline`, "git", "fixture"},
		{"go version", `go version`, "go", "go version go"},
		{"python", `python3 -c 'print(6*7)'`, "python3", "42"},
		{"write into $TMPDIR", `echo scratch > "$TMPDIR/a" && mkdir "$TMPDIR/d" && mv "$TMPDIR/a" "$TMPDIR/d/b" && cat "$TMPDIR/d/b" && rm -r "$TMPDIR/d"`, "", "scratch"},
		{"touch and mktemp in $TMPDIR", `touch "$TMPDIR/t" && f=$(mktemp) && case "$f" in "$TMPDIR"/*) echo private;; esac`, "", "private"},
		{"write to /dev/null", `echo discarded > /dev/null && echo ok`, "", "ok"},
		{"socketpair", `python3 -c 'import socket; a, b = socket.socketpair(); a.send(b"pair"); print(b.recv(4).decode())'`, "python3", "pair"},
		{"TMPDIR is the private dir", `echo "$TMPDIR"`, "", f.tmp},
		// The Go toolchain chmods what it builds, reads times and stops its workers through
		// pidfds: through the supervisor where Landlock and the mount view do not decide.
		// The build cache is shared by the runs, so only the first compiles the runtime.
		{"go build and run in $TMPDIR", `d=$(mktemp -d) && cd "$d" && printf 'package main\n\nfunc main() { println("built") }\n' > main.go && GOCACHE="$TMPDIR/gocache" GO111MODULE=off go build -o hello . 2>&1 && ./hello 2>&1`, "go", "built"},
		{"git init, commit and clone in $TMPDIR", `cd "$TMPDIR" && rm -rf r c && git init -q r && cd r && echo x > x && git add x && git -c user.name=a -c user.email=a@a commit -qm x && git clone -q . ../c && cat ../c/x`, "git", "x"},
	}
	kernel := Probe().ABI
	forEachView(t, func(t *testing.T, view bool) {
		for _, abi := range []int{MinABI, kernel} {
			atABI(t, abi, func(t *testing.T) {
				for _, c := range cases {
					t.Run(c.name, func(t *testing.T) {
						skipWithout(t, c.needs)
						r := runScript(t, Policy{TempDir: f.tmp}, f.work, f.env, c.script)
						if r.code != 0 {
							t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
						}
						if !strings.Contains(r.stdout, c.want) {
							t.Errorf("stdout %q does not contain %q", r.stdout, c.want)
						}
					})
				}
			})
		}
	})
}

func procState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return ""
	}
	return s[i+2 : i+3]
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

var pythonOnce struct {
	sync.Once
	path string
}

// python is the interpreter python3 runs, resolved once, so that a version manager's shim
// (pyenv starts a bash and more for each call) does not run for each of the battery's
// hundreds of attempts.
func python(t *testing.T) string {
	pythonOnce.Do(func() {
		pythonOnce.path = "python3"
		out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
		if p := strings.TrimSpace(string(out)); err == nil && filepath.IsAbs(p) {
			pythonOnce.path = p
		}
	})
	return pythonOnce.path
}
