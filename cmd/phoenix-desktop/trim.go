package main

import (
	"bufio"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// releaseStartupPages unmaps the pages of this binary's read-only mappings (code, constants,
// the runtime's tables) that package initialisation touched, so that each command keeps
// resident only what it uses from here on. A 60 MB binary's package inits fault in some
// 20 MB of it (the kernel maps 64 KiB around each touched page), most of which no command
// reads again; without this a one-turn chat peaked 6 MiB above --version, with it at the
// init's own peak (issue 28: the cold-start RSS row, and the window at rest keeps less too).
//
// MADV_DONTNEED on a read-only private file mapping only drops page-table entries: the pages
// stay in the page cache, and a later access maps the same bytes back (a minor fault, no
// I/O). A mapping holding private copies is skipped (smaps' Anonymous), because for it
// DONTNEED would bring back the file's bytes instead of the copy: the dynamic loader's
// relocated, then read-only, RELRO pages are such copies.
func releaseStartupPages() {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return
	}
	defer f.Close()
	for _, m := range readOnlyFileMappings(f, exe) {
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, m.start, m.end-m.start, unix.MADV_DONTNEED)
	}
}

// mapping is an address range of this process.
type mapping struct{ start, end uintptr }

// readOnlyFileMappings lists, from /proc/self/smaps, the mappings of the file path that are
// not writable and hold no private (anonymous) pages.
func readOnlyFileMappings(smaps io.Reader, path string) []mapping {
	var (
		out     []mapping
		cur     mapping
		inFile  bool // the current mapping is path's and read-only
		private bool // the current mapping holds anonymous pages
	)
	flush := func() {
		if inFile && !private {
			out = append(out, cur)
		}
	}
	sc := bufio.NewScanner(smaps)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if addr, ok := parseRange(fields[0]); ok && len(fields) >= 5 {
			flush()
			cur, private = addr, false
			// The path is the header's last field, and may hold spaces.
			inFile = len(fields) >= 6 && strings.HasSuffix(line, " "+path) && !strings.Contains(fields[1], "w")
			continue
		}
		if fields[0] == "Anonymous:" && len(fields) >= 2 && fields[1] != "0" {
			private = true
		}
	}
	flush()
	if sc.Err() != nil {
		return nil
	}
	return out
}

// parseRange reads "start-end" in hex, the first field of a mapping's header line.
func parseRange(s string) (mapping, bool) {
	lo, hi, ok := strings.Cut(s, "-")
	if !ok {
		return mapping{}, false
	}
	a, err1 := strconv.ParseUint(lo, 16, 64)
	b, err2 := strconv.ParseUint(hi, 16, 64)
	if err1 != nil || err2 != nil || b <= a {
		return mapping{}, false
	}
	return mapping{uintptr(a), uintptr(b)}, true
}
