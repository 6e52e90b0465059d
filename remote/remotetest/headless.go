package remotetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// desktopLibraries are the file names of the libraries a desktop brings and a headless
// machine lacks: OpenGL (libglvnd, Mesa) and X11 with its extensions and transport — what the
// app's binary links through Fyne (`ldd phoenix-desktop`).
var desktopLibraries = []string{"libGL*.so*", "libEGL*.so*", "libGLX*.so*", "libGLdispatch*.so*", "libGLES*.so*", "libX*.so*", "libxcb*.so*"}

// libraryDirs are where the dynamic loader finds them on Debian and its kin.
var libraryDirs = []string{"/lib", "/lib64", "/usr/lib", "/usr/lib64", "/lib/*-linux-gnu", "/usr/lib/*-linux-gnu", "/usr/local/lib"}

// DesktopLibraries lists the desktop's library files present on this machine (each once,
// symbolic links resolved): what StartHeadless hides.
func DesktopLibraries() []string {
	var files []string
	for _, dirGlob := range libraryDirs {
		dirs, _ := filepath.Glob(dirGlob)
		for _, dir := range dirs {
			for _, pat := range desktopLibraries {
				matches, _ := filepath.Glob(filepath.Join(dir, pat))
				for _, m := range matches {
					real, err := filepath.EvalSymlinks(m)
					if err != nil {
						continue
					}
					if fi, err := os.Stat(real); err == nil && fi.Mode().IsRegular() && !slices.Contains(files, real) {
						files = append(files, real)
					}
				}
			}
		}
	}
	slices.Sort(files)
	return files
}

// StartHeadless starts the server as Start does, in a mount namespace of its own where every
// desktop library of this machine (DesktopLibraries) is hidden under an empty file: sshd and
// everything it starts — the remote user's sessions, the agent, its commands — run as on a
// machine without a desktop, while the rest of this machine keeps its libraries. The dynamic
// loader then refuses a program that needs one of them ("file too short"). It skips, with the
// reason, where there is no such library to hide (the test would prove nothing) or no
// unshare(1) (util-linux).
func StartHeadless(t testing.TB) *Server {
	t.Helper()
	needSSHD(t)
	libs := DesktopLibraries()
	if len(libs) == 0 {
		t.Skip("this machine has no desktop library (libGL, libX11) to hide; the headless test proves nothing here")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare (util-linux) is not installed; it makes the mount namespace that hides the desktop's libraries")
	}
	return start(t, where{hidden: libs})
}

// hiddenCommand runs name with args in a new mount namespace (private, so nothing leaks to
// this machine's mounts) where /dev/null is bound over each file of hidden. unshare execs the
// shell, which execs name: the process is the one the caller signals.
func hiddenCommand(hidden []string, name string, args ...string) *exec.Cmd {
	var script strings.Builder
	script.WriteString("set -e; ")
	for _, f := range hidden {
		script.WriteString("mount --bind /dev/null '" + f + "'; ")
	}
	script.WriteString(`exec "$@"`)
	return exec.Command("unshare", append([]string{"--mount", "--propagation", "private", "--", "/bin/sh", "-c", script.String(), "sh", name}, args...)...)
}
