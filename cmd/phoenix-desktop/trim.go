package main

import (
	"debug/elf"
	"errors"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// releaseStartupPages unmaps the pages of this binary's read-only mappings (code, constants,
// the runtime's tables) that package initialisation touched, so that each command keeps
// resident only what it uses from here on. The binary's package inits fault in some 20 MB of
// it (the kernel maps 64 KiB around each touched page), most of which no command reads
// again; without this a one-turn chat peaked 6 MiB above --version, with it at the inits' own
// peak (issue 28: the cold-start RSS row; the window at rest keeps less too).
//
// MADV_DONTNEED on a read-only private file mapping only drops page-table entries: the pages
// stay in the page cache, and a later access maps the same bytes back (a minor fault, no
// I/O). The RELRO range is kept: the dynamic loader relocated those pages (private copies)
// before making them read-only, and DONTNEED would bring back the file's unrelocated bytes.
// Anything unexpected (no /proc, an ELF that cannot be read) releases nothing.
func releaseStartupPages() {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return
	}
	mine := readOnlyMappings(string(maps), exe)
	relro, err := relroRange(exe, mine)
	if err != nil {
		return
	}
	for _, m := range mine {
		if m.start < relro.end && relro.start < m.end {
			continue
		}
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, m.start, m.end-m.start, unix.MADV_DONTNEED)
	}
}

// mapping is an address range of this process; offset is where it starts in its file.
type mapping struct{ start, end, offset uintptr }

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
// has none), found from its program headers and, for a position-independent binary, the
// address its first page was loaded at.
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
