//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// asNobody runs script as the app would for an ordinary user: a copy of the test binary
// started as nobody (uid 65534) runs it through Run under the Restricted policy, with env
// added. It returns the combined output.
func asNobody(t *testing.T, env []string, script string) string {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("needs root to become another user; as an ordinary user every test is this test")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("setpriv is not installed")
	}
	root := nobodyRoot(t)
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all",
		"--bounding-set=-all", filepath.Join(root, "sandbox.test"), appArg, filepath.Join(root, "tmp"), script)
	cmd.Dir = filepath.Join(root, "work")
	cmd.Env = append(append(os.Environ(), "HOME="+filepath.Join(root, "home"), "W="+filepath.Join(root, "work")), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	return string(out)
}

// nobodyRoot makes, once per test, a directory nobody owns: a copy of the test binary, a
// home with a key in it, a work dir with a file, a temp dir.
func nobodyRoot(t *testing.T) string {
	t.Helper()
	root, err := os.MkdirTemp("", "phoenix-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(root, "sandbox.test"), string(data))
	mustWrite(t, filepath.Join(root, "home", ".ssh", "id_ed25519"), "SECRET-KEY\n")
	mustWrite(t, filepath.Join(root, "work", "f.txt"), "original\n")
	if err := os.Mkdir(filepath.Join(root, "tmp"), 0o700); err != nil {
		t.Fatal(err)
	}
	err = filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Chown(p, 65534, 65534)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(root, "sandbox.test"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestWallsForAnOrdinaryUser: as a user who is not root, with the mount view and without,
// the secrets stay unreadable and each escape class stays closed: datagram socket pairs,
// System V IPC left behind, file-system ioctls on the user's own file.
func TestWallsForAnOrdinaryUser(t *testing.T) {
	if st := Probe(); !st.Available {
		t.Skipf("Landlock unavailable: %s", st.Reason)
	}
	pyBin := python(t)
	py := func(code string) string { return shellQuote(pyBin) + " -c " + shellQuote(code) }
	script := strings.Join([]string{
		`cat "$HOME/.ssh/id_ed25519" 2>/dev/null`,
		py(`import socket; a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM); print("dgram pair made")`) + " 2>/dev/null",
		py(`import ctypes; libc = ctypes.CDLL(None, use_errno=True); import os; print("shm left" if libc.shmget(int(os.environ["IPCKEY"]), 4096, 0o3600) >= 0 else "no shm")`),
		py(`import fcntl, os, struct; fd = os.open(os.environ["W"] + "/f.txt", os.O_RDONLY); fcntl.ioctl(fd, 0x40087602, struct.pack("Q", 4242)); print("generation set")`) + " 2>/dev/null",
		`echo pwned > "$W/f.txt" 2>/dev/null`,
		`echo done`,
	}, "\n")
	for _, view := range []bool{true, false} {
		name := map[bool]string{true: "mount view", false: "no mount view"}[view]
		t.Run(name, func(t *testing.T) {
			// A key of this run's own: other programs' segments come and go meanwhile.
			ipcKey := freeSysvKey(t)
			env := []string{"IPCKEY=" + strconv.Itoa(ipcKey)}
			if !view {
				env = append(env, noViewForTestsEnv+"=1")
			}
			out := asNobody(t, env, script)
			if !strings.Contains(out, "done") {
				t.Fatalf("the script did not run:\n%s", out)
			}
			for _, bad := range []string{"SECRET-KEY", "dgram pair made", "generation set"} {
				if strings.Contains(out, bad) {
					t.Errorf("%q:\n%s", bad, out)
				}
			}
			if id, ok := sysvObject(t, "shm", ipcKey); ok {
				removeSysvObject("shm", id)
				t.Errorf("segment %d, made by the command under its key %#x, outlived it", id, ipcKey)
			}
		})
	}
}

// TestNamespaceWithoutCapabilitiesFallsBack: for an ordinary user whose supervisor gets no
// capabilities in its new user namespace — what AppArmor does on Ubuntu 24.04 and later,
// made real here by starting it without ambient capabilities, so its namespace's root loses
// them at exec — the mount view is refused naming AppArmor, and commands still run, without
// the view, with the secrets still hidden.
func TestNamespaceWithoutCapabilitiesFallsBack(t *testing.T) {
	if st := Probe(); !st.Available {
		t.Skipf("Landlock unavailable: %s", st.Reason)
	}
	out := asNobody(t, []string{noAmbientCapsEnv + "=1", printViewEnv + "=1"}, `cat "$HOME/.ssh/id_ed25519" 2>/dev/null; echo ran`)
	if !strings.Contains(out, "mount view usable=false") || !strings.Contains(out, "AppArmor") {
		t.Errorf("the fallback does not say why:\n%s", out)
	}
	if !strings.Contains(out, "ran") || strings.Contains(out, "SECRET-KEY") {
		t.Errorf("commands did not run without the view, or read the key:\n%s", out)
	}
}
