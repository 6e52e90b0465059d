package main

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"
)

// Only the binary's read-only mappings are listed: not its data, not another file's, not
// the heap; a path with spaces is read whole.
func TestReadOnlyMappings(t *testing.T) {
	const exe = "/opt/phoenix desktop/phoenix-desktop"
	maps := strings.Join([]string{
		"00400000-00405000 r--p 00000000 fd:01 42   " + exe,
		"00405000-01348000 r-xp 00005000 fd:01 42   " + exe,
		"01348000-02434000 r--p 00f48000 fd:01 42   " + exe,
		"02434000-02435000 r--p 02034000 fd:01 42   " + exe,
		"02435000-02c20000 rw-p 02035000 fd:01 42   " + exe,
		"7f00000000-7f00100000 r-xp 00000000 fd:01 7   /usr/lib/x86_64-linux-gnu/libc.so.6",
		"7f00200000-7f00300000 r-xp 00000000 fd:01 9   /opt/phoenix desktop/phoenix-desktop-old",
		"c000000000-c000400000 rw-p 00000000 00:00 0 ",
	}, "\n")
	got := readOnlyMappings(maps, exe)
	want := []mapping{{0x400000, 0x405000, 0}, {0x405000, 0x1348000, 0x5000}, {0x1348000, 0x2434000, 0xf48000}, {0x2434000, 0x2435000, 0x2034000}}
	if !slices.Equal(got, want) {
		t.Fatalf("got %x, want %x", got, want)
	}
}

// Releasing this test binary's start-up pages leaves it working, and leaves the pages it
// holds private copies of (the dynamic loader's relocated RELRO page) as they were: dropping
// those would bring back the file's unrelocated bytes.
func TestReleaseStartupPagesKeepsPrivateCopies(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	if len(readOnlyMappings(string(maps), exe)) == 0 {
		t.Fatal("no read-only mapping of the test binary found to release")
	}
	copies := privateReadOnlyMappings(t, string(smaps), exe)
	mem, err := os.Open("/proc/self/mem")
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	read := func(m mapping) []byte {
		b := make([]byte, m.end-m.start)
		if _, err := mem.ReadAt(b, int64(m.start)); err != nil {
			t.Fatalf("read %x: %v", m, err)
		}
		return b
	}
	before := make([][]byte, len(copies))
	for i, m := range copies {
		before[i] = read(m)
	}
	releaseStartupPages()
	for i, m := range copies {
		if !bytes.Equal(read(m), before[i]) {
			t.Errorf("the private read-only mapping %x changed when the start-up pages were released", m)
		}
	}
	if got := strings.Repeat("phoenix", 3); got != "phoenixphoenixphoenix" {
		t.Fatalf("after the release: %q", got)
	}
}

// privateReadOnlyMappings lists the binary's read-only mappings that hold private copies.
func privateReadOnlyMappings(t *testing.T, smaps, exe string) []mapping {
	t.Helper()
	var out []mapping
	var cur mapping
	var ours bool
	for _, line := range strings.Split(smaps, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			if m := readOnlyMappings(line, exe); len(m) == 1 {
				cur, ours = m[0], true
			} else {
				ours = false
			}
			continue
		}
		if ours && fields[0] == "Anonymous:" && len(fields) > 1 && fields[1] != "0" {
			out = append(out, cur)
		}
	}
	return out
}
