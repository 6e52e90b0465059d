package main

import (
	"debug/elf"
	"os"
	"unsafe"

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
// Anything unexpected (no auxiliary vector, no PT_PHDR) releases nothing.
func releaseStartupPages() {
	for _, m := range startupRanges() {
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, m.start, m.end-m.start, unix.MADV_DONTNEED)
	}
}

// mapping is an address range of this process; offset is where it starts in its file.
type mapping struct{ start, end, offset uintptr }

// The auxiliary vector's entries for the program headers (elf.h).
const (
	atPHDR  = 3
	atPHENT = 4
	atPHNUM = 5
)

// startupRanges is where this binary's read-only segments lie in this process, whole pages,
// outside its RELRO segment: read from its program headers as the kernel mapped them (the
// auxiliary vector's AT_PHDR), not from /proc/self/maps and the file, which took half of
// this release's millisecond in every start (issue 39).
func startupRanges() []mapping {
	auxv, err := unix.Auxv()
	if err != nil {
		return nil
	}
	var phdr, phent, phnum uintptr
	for _, kv := range auxv {
		switch kv[0] {
		case atPHDR:
			phdr = kv[1]
		case atPHENT:
			phent = kv[1]
		case atPHNUM:
			phnum = kv[1]
		}
	}
	if phdr == 0 || phnum == 0 || phent != unsafe.Sizeof(elf.Prog64{}) {
		return nil
	}
	// The program headers are in the binary's first mapping, outside the Go heap; the
	// conversion reads the address as a pointer without a uintptr-to-pointer cast.
	progs := unsafe.Slice(*(**elf.Prog64)(unsafe.Pointer(&phdr)), phnum)
	var bias uintptr
	found := false
	for _, p := range progs {
		if elf.ProgType(p.Type) == elf.PT_PHDR {
			bias, found = phdr-uintptr(p.Vaddr), true
		}
	}
	if !found {
		return nil
	}
	page := uintptr(os.Getpagesize())
	span := func(p elf.Prog64) mapping {
		return mapping{
			start:  (bias + uintptr(p.Vaddr)) &^ (page - 1),
			end:    (bias + uintptr(p.Vaddr+p.Memsz) + page - 1) &^ (page - 1),
			offset: uintptr(p.Off) &^ (page - 1),
		}
	}
	var relro mapping
	for _, p := range progs {
		if elf.ProgType(p.Type) == elf.PT_GNU_RELRO {
			relro = span(p)
		}
	}
	var out []mapping
	for _, p := range progs {
		if elf.ProgType(p.Type) != elf.PT_LOAD || elf.ProgFlag(p.Flags)&elf.PF_W != 0 || p.Memsz == 0 {
			continue
		}
		m := span(p)
		if m.start < relro.end && relro.start < m.end {
			continue
		}
		out = append(out, m)
	}
	return out
}
