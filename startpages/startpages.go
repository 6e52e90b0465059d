package startpages

import (
	"debug/elf"
	"os"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Release unmaps the pages of this binary's read-only mappings (code, constants, the
// runtime's tables) that the process touched so far, so that it keeps resident only what it
// uses from here on. The binary's package inits fault in some 20 MB of it (the kernel maps
// 64 KiB around each touched page), most of which no command reads again; without this at the
// end of initialisation a one-turn chat peaked 6 MiB above --version (issue 28: the cold-start
// RSS row; the window at rest keeps less too).
//
// MADV_DONTNEED on a read-only private file mapping only drops page-table entries: the pages
// stay in the page cache, and a later access maps the same bytes back (a minor fault, no
// I/O). The RELRO range is kept: the dynamic loader relocated those pages (private copies)
// before making them read-only, and DONTNEED would bring back the file's unrelocated bytes.
// Anything unexpected (no auxiliary vector, no PT_PHDR) releases nothing.
//
// In main, once after package initialisation, it costs about 0.2 ms (zapping the page-table
// entries of ~20 MB); the refaults after it are what the process uses again.
func Release() {
	for _, m := range releaseRanges() {
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, m.start, m.end-m.start, unix.MADV_DONTNEED)
	}
}

// releaseRanges are the ranges Release drops, found once: the binary's read-only segments
// (startupRanges) less its .rodata section. The type descriptors and constants there are read
// again by almost everything that runs (each allocation reads its type's descriptor): a chat
// that dropped them refaulted some 370 of its 950 refaults there, for the 5 MB that package
// initialisation makes resident of .rodata anyway.
var releaseRanges = sync.OnceValue(func() []mapping {
	return withoutSection(startupRanges(), rodataRange())
})

// rodataRange is where the binary's .rodata section lies in this process, whole pages inside
// it, read from the section headers of /proc/self/exe (nothing of them is mapped); empty when
// they cannot be read, when the binary is position-independent (no fixed addresses to
// compare), or it has none.
func rodataRange() mapping {
	f, err := elf.Open("/proc/self/exe")
	if err != nil {
		return mapping{}
	}
	defer f.Close()
	s := f.Section(".rodata")
	if s == nil || f.Type != elf.ET_EXEC || s.Addr == 0 {
		return mapping{}
	}
	page := uint64(os.Getpagesize())
	start, end := (s.Addr+page-1)&^(page-1), (s.Addr+s.Size)&^(page-1)
	if end <= start {
		return mapping{}
	}
	return mapping{start: uintptr(start), end: uintptr(end)}
}

// withoutSection cuts the range cut out of the mappings (each mapping's offset is left as it
// was: Release reads only start and end).
func withoutSection(ms []mapping, cut mapping) []mapping {
	if cut.end <= cut.start {
		return ms
	}
	var out []mapping
	for _, m := range ms {
		if cut.end <= m.start || m.end <= cut.start {
			out = append(out, m)
			continue
		}
		if m.start < cut.start {
			out = append(out, mapping{start: m.start, end: cut.start, offset: m.offset})
		}
		if cut.end < m.end {
			out = append(out, mapping{start: cut.end, end: m.end, offset: m.offset + (cut.end - m.start)})
		}
	}
	return out
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

// The first release of package initialisation. This package imports nothing that initialises
// late, so the Go toolchain (which initialises, of the packages whose imports are all
// initialised, the first by import path) runs this at about two fifths of the binary's
// initialisation, when it has touched some 12 MB of the binary; without it, --version peaked
// with 21 MB of the binary resident, at the end of initialisation (issue 39).
// TestReleasesRunAtTwoFifthsAndFourFifthsOfInitialisation_Issue39 keeps it there.
func init() { Release() }
