package persistence

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestNewLogsAreNotReadAround: the files Badger creates for a new store (the memtable log, the
// value log, the discard file) are mapped for random access, so that their first write does
// not make the kernel read around it: on a disk with a large read_ahead_kb that zero-filled
// megabytes of page cache per file, some 10 ms of a cold start (the patched ristretto in
// third_party/ristretto). The kernel does not show the advice in smaps' VmFlags here, so
// the test looks at its effect: how much of each new file is in the page cache.
func TestNewLogsAreNotReadAround(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	ra := readAheadKiB(t, filepath.Dir(dir))
	if ra < 1024 {
		t.Skipf("the disk under %s reads ahead %d KiB: too little to tell read-around from the first write's own pages", filepath.Dir(dir), ra)
	}
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, e := range entries {
		name := e.Name()
		if filepath.Ext(name) != ".mem" && filepath.Ext(name) != ".vlog" && name != "DISCARD" {
			continue
		}
		checked++
		// The first write touched a page or two; read-around would have brought in ra KiB.
		if kib := residentKiB(t, filepath.Join(dir, name)); kib > 256 {
			t.Errorf("%s of the new store has %d KiB in the page cache after its first write (the disk reads ahead %d KiB): it was read around", name, kib, ra)
		}
	}
	if checked < 3 {
		t.Fatalf("found %d of the memtable log, value log and discard file in %s", checked, dir)
	}
}

// readAheadKiB is the read-ahead of the block device holding dir (its bdi's read_ahead_kb);
// 0 where there is none (tmpfs).
func readAheadKiB(t *testing.T, dir string) int {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(fmt.Sprintf("/sys/class/bdi/%d:%d/read_ahead_kb", unix.Major(st.Dev), unix.Minor(st.Dev)))
	if err != nil {
		return 0
	}
	kib, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("read_ahead_kb holds %q", data)
	}
	return kib
}

// residentKiB is how much of path is in the page cache (mincore over a mapping of it).
func residentKiB(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	m, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	page := os.Getpagesize()
	vec := make([]byte, (len(m)+page-1)/page)
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatalf("mincore %s: %v", path, errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n * page / 1024
}
