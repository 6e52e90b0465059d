package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/phoenix-desktop/phoenix/persistence"
)

// smallTmpfs mounts a tmpfs of size bytes and returns its mount point; the test's cleanup
// unmounts it. Without root, or where no tmpfs can be mounted, the test is skipped.
func smallTmpfs(t *testing.T, size int64) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a small file system needs root to mount; run the tests as root to check a full disk for real")
	}
	mnt := t.TempDir()
	if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, fmt.Sprintf("size=%d", size)); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v); the full-disk test needs one", err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(mnt, unix.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", mnt, err)
		}
	})
	return mnt
}

// cliBounded is cli for a command that must end by itself: a hang (the bug these tests look
// for) fails the test instead of running until go test's timeout.
func cliBounded(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	type result struct {
		code      int
		out, errs string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errs := cli(t, args...)
		done <- result{code, out, errs}
	}()
	select {
	case r := <-done:
		return r.code, r.out, r.errs
	case <-time.After(2 * time.Minute):
		t.Fatalf("%v never ended: a full disk must end a headless command, not hold it", args)
		return 0, "", ""
	}
}

// Issue 33: the disk fills during a headless turn (the turn's own command fills it, on a real
// small file system). chat does not wait for room: it ends with 75 (EX_TEMPFAIL) in the
// store's words and what to do, nothing panics on the way, and once there is room the turn
// reads as interrupted and the conversation goes on. A data directory first opened on the
// full disk is an empty store: list works, chat ends with the same words.
func TestHeadlessTurnOnAFullDiskEndsWithTempfail(t *testing.T) {
	mnt := smallTmpfs(t, 3*persistence.DefaultReserve)
	data, cwd := filepath.Join(mnt, "data"), t.TempDir()
	// Unrestricted, so that the turn's command may write the filler outside its directory.
	first := convIDOf(t, mustCLI(t, "chat", "--demo", "--no-mcp", "--unrestricted", "--data-dir", data, "--cwd", cwd, "echo: before the disk filled"))

	free, err := persistence.FreeSpace(mnt)
	if err != nil {
		t.Fatal(err)
	}
	filler := filepath.Join(mnt, "filler")
	fill := fmt.Sprintf("bash: head -c %d /dev/zero > %s", free-persistence.DefaultReserve/2, filler)
	code, out, errs := cliBounded(t, "chat", "--demo", "--no-mcp", "--data-dir", data, "--continue", first, fill)
	if code != exitDiskFull {
		t.Fatalf("chat on a disk that fills during the turn: exit %d, want %d\n%s\n%s", code, exitDiskFull, out, errs)
	}
	for _, want := range []string{"The disk holding your conversations is full", "nothing was lost", "run again once there is room"} {
		if !strings.Contains(errs, want) {
			t.Errorf("chat's error lacks %q:\n%s", want, errs)
		}
	}
	if strings.Contains(errs, "panicked") {
		t.Errorf("something panicked on the way:\n%s", errs)
	}
	if !strings.Contains(out, "--continue "+first+" --retry") {
		t.Errorf("chat does not say how to send the turn again:\n%s", out)
	}

	// A data directory first opened on the full disk.
	fresh := filepath.Join(mnt, "fresh")
	if code, out, errs := cliBounded(t, "list", "--data-dir", fresh); code != 0 || strings.Contains(out+errs, "manifest") {
		t.Errorf("list of a data directory made on the full disk: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = cliBounded(t, "chat", "--demo", "--no-mcp", "--data-dir", fresh, "--cwd", cwd, "echo: hi")
	if code != exitDiskFull || !strings.Contains(errs, "run again once there is room") {
		t.Errorf("chat on a data directory made on the full disk: exit %d, want %d\n%s\n%s", code, exitDiskFull, out, errs)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if _, shown, _ := cli(t, "show", first, "--data-dir", data); !strings.Contains(shown, "Not answered") {
		t.Errorf("once there is room the turn does not read as interrupted:\n%s", shown)
	}
	// (--retry would fill the disk again: the turn's own command is what filled it.)
	mustCLI(t, "chat", "--demo", "--no-mcp", "--data-dir", data, "--continue", first, "echo: once there is room")
	mustCLI(t, "chat", "--demo", "--no-mcp", "--data-dir", fresh, "--cwd", cwd, "echo: once there is room")
}
