//go:build linux

package sandbox

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGoEnvIgnoresTheProjectsToolchain: Go is asked for its caches outside the sandbox, so a
// project's go.mod must not steer it: from an app started in a module that names a toolchain
// this machine does not have (go would download and run it), the answer still comes, from the
// go on PATH.
func TestGoEnvIgnoresTheProjectsToolchain(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("no go here: %v", err)
	}
	mod := t.TempDir()
	mustWrite(t, filepath.Join(mod, "go.mod"), "module example.com/later\n\ngo 1.999\n\ntoolchain go1.999.0\n")
	t.Chdir(mod)
	t.Setenv("GOTOOLCHAIN", "auto")
	// Nothing may be fetched: a go that tried to switch fails here instead.
	t.Setenv("GOPROXY", "off")
	goCacheDirs.Lock()
	goCacheDirs.asked = ""
	goCacheDirs.Unlock()
	t.Cleanup(func() {
		goCacheDirs.Lock()
		goCacheDirs.asked = ""
		goCacheDirs.Unlock()
	})
	got := goEnvCaches()
	if got["GOCACHE"] == "" || !filepath.IsAbs(got["GOCACHE"]) || !filepath.IsAbs(got["GOMODCACHE"]) {
		t.Errorf("go gave no cache directories from a module that names another toolchain: %v", got)
	}
}
