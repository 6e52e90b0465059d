package startpages

import (
	"bytes"
	"debug/elf"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestStartupRangesAreTheReadOnlyMappings: what Release unmaps, read from the
// program headers in memory, is what /proc/self/maps lists as this binary's read-only
// mappings, less the RELRO range the file's program headers give (how it was found before
// issue 39, kept here as the reference).
func TestStartupRangesAreTheReadOnlyMappings(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skipf("no /proc/self/maps: %v", err)
	}
	mine := readOnlyMappings(string(maps), exe)
	relro, err := relroRange(exe, mine)
	if err != nil {
		t.Fatal(err)
	}
	want := slices.DeleteFunc(mine, func(m mapping) bool { return m.start < relro.end && relro.start < m.end })
	got := startupRanges()
	if len(got) == 0 || !slices.Equal(got, want) {
		t.Fatalf("startupRanges() = %x, the read-only mappings outside RELRO %x are %x", got, relro, want)
	}
}

// Only the binary's read-only mappings are listed (by the reference above): not its data, not another file's, not
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
	Release()
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

// readOnlyMappings lists, from /proc/self/maps, the mappings of the file path that are not
// writable.
func readOnlyMappings(maps, path string) []mapping {
	var out []mapping
	for line := range strings.Lines(maps) {
		line = strings.TrimRight(line, "\n")
		fields := strings.Fields(line)
		// start-end perms offset dev inode path; the path may hold spaces.
		if len(fields) < 6 || !strings.HasSuffix(line, " "+path) || strings.Contains(fields[1], "w") {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		a, err1 := strconv.ParseUint(lo, 16, 64)
		b, err2 := strconv.ParseUint(hi, 16, 64)
		off, err3 := strconv.ParseUint(fields[2], 16, 64)
		if !ok || err1 != nil || err2 != nil || err3 != nil || b <= a {
			continue
		}
		out = append(out, mapping{start: uintptr(a), end: uintptr(b), offset: uintptr(off)})
	}
	return out
}

// relroRange is where the binary's PT_GNU_RELRO segment lies in this process (empty when it
// has none), found from the file's program headers and, for a position-independent binary,
// the address its first page was loaded at.
func relroRange(exe string, mine []mapping) (mapping, error) {
	f, err := elf.Open(exe)
	if err != nil {
		return mapping{}, err
	}
	defer f.Close()
	var relro, first *elf.Prog
	for _, p := range f.Progs {
		switch {
		case p.Type == elf.PT_GNU_RELRO:
			relro = p
		case p.Type == elf.PT_LOAD && p.Off == 0 && first == nil:
			first = p
		}
	}
	if relro == nil {
		return mapping{}, nil
	}
	var bias uintptr
	if f.Type == elf.ET_DYN {
		if first == nil {
			return mapping{}, errors.New("no PT_LOAD segment at offset 0")
		}
		var base uintptr
		for _, m := range mine {
			if m.offset == 0 {
				base = m.start
				break
			}
		}
		if base == 0 {
			return mapping{}, errors.New("the binary's first page is not mapped read-only")
		}
		bias = base - uintptr(first.Vaddr&^uint64(os.Getpagesize()-1))
	}
	page := uintptr(os.Getpagesize())
	start := (uintptr(relro.Vaddr) + bias) &^ (page - 1)
	end := (uintptr(relro.Vaddr+relro.Memsz) + bias + page - 1) &^ (page - 1)
	return mapping{start: start, end: end}, nil
}

// BenchmarkStartupRanges: finding what Release unmaps, from the program headers
// in memory, beside the way it was found before issue 39 (/proc/self/maps, the ELF file).
func BenchmarkStartupRanges(b *testing.B) {
	b.Run("program headers", func(b *testing.B) {
		for b.Loop() {
			if len(startupRanges()) == 0 {
				b.Fatal("nothing found")
			}
		}
	})
	b.Run("maps and file (before)", func(b *testing.B) {
		exe, err := os.Executable()
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			maps, err := os.ReadFile("/proc/self/maps")
			if err != nil {
				b.Fatal(err)
			}
			mine := readOnlyMappings(string(maps), exe)
			if _, err := relroRange(exe, mine); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// withoutSection cuts a range out of the mappings it overlaps and leaves the others whole.
func TestWithoutSection(t *testing.T) {
	ms := []mapping{{0x1000, 0x5000, 0}, {0x5000, 0x9000, 0x5000}, {0xa000, 0xb000, 0xa000}}
	got := withoutSection(ms, mapping{start: 0x6000, end: 0x8000})
	want := []mapping{{0x1000, 0x5000, 0}, {0x5000, 0x6000, 0x5000}, {0x8000, 0x9000, 0x8000}, {0xa000, 0xb000, 0xa000}}
	if !slices.Equal(got, want) {
		t.Errorf("cut in the middle: got %x, want %x", got, want)
	}
	if got := withoutSection(ms, mapping{start: 0x5000, end: 0x9000}); !slices.Equal(got, []mapping{ms[0], ms[2]}) {
		t.Errorf("cut a whole mapping: got %x", got)
	}
	if got := withoutSection(ms, mapping{}); !slices.Equal(got, ms) {
		t.Errorf("no cut: got %x", got)
	}
}

// Release drops the read-only segments less .rodata (the type descriptors everything reads
// again): in this test binary, built as the app is, the section is found and no released
// range overlaps it.
func TestReleaseKeepsRodata_Issue39(t *testing.T) {
	ro := rodataRange()
	if ro.end <= ro.start {
		t.Fatal("rodataRange found no .rodata in this test binary")
	}
	all, rel := startupRanges(), releaseRanges()
	if len(rel) == 0 || len(rel) < len(all) {
		t.Fatalf("release ranges %x from %x", rel, all)
	}
	var inside bool
	for _, m := range all {
		inside = inside || (m.start <= ro.start && ro.end <= m.end)
	}
	if !inside {
		t.Fatalf(".rodata %x is not inside the read-only mappings %x", ro, all)
	}
	for _, m := range rel {
		if m.start < ro.end && ro.start < m.end {
			t.Errorf("released range %x overlaps .rodata %x", m, ro)
		}
	}
}
