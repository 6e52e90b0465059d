package bench

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// smapsBreakdown is where a process's resident memory lies, from /proc/PID/smaps, in KiB:
// the soak with a window reports it at each point, since VmRSS alone cannot tell Go's heap
// from the C side's (Mesa's llvmpipe, GLFW and the cgo threads allocate with glibc's malloc)
// or from Badger's mapped files.
type smapsBreakdown struct {
	// goHeap: anonymous mappings below the shared libraries, where Go's runtime reserves its
	// heap arenas by address hints (0xc000000000 up, or a random base since Go 1.26), while
	// the kernel places mmap(NULL) mappings, glibc's among them, near the libraries. This
	// kernel names no anonymous mapping ("[anon: Go: heap]" needs CONFIG_ANON_VMA_NAME).
	goHeap int64
	// brk: [heap], glibc's main arena (the main thread's malloc).
	brk int64
	// arenas: anonymous mappings inside a 64 MiB-aligned reservation of 64 MiB, glibc's
	// arenas for other threads (HEAP_MAX_SIZE on 64-bit).
	arenas int64
	// otherAnon: the other anonymous memory (stacks, Go's runtime off-heap structures,
	// large mallocs that glibc maps alone, Mesa's buffers).
	otherAnon int64
	// files: file-backed (the binary, its libraries, Badger's mapped tables and logs).
	files int64
}

// smapsMapping is one mapping of /proc/PID/smaps: its range, its name (a path, [heap], or
// empty when anonymous) and its resident KiB.
type smapsMapping struct {
	start, end uint64
	name       string
	rss        int64
}

func (s smapsBreakdown) String() string {
	m := func(k int64) float64 { return float64(k) / 1024 }
	return fmt.Sprintf("Go heap %.1f, malloc [heap] %.1f, malloc arenas %.1f, other anonymous %.1f, files %.1f",
		m(s.goHeap), m(s.brk), m(s.arenas), m(s.otherAnon), m(s.files))
}

// readSmaps sums the Rss of each mapping of /proc/PID/smaps into its kind.
func readSmaps(pid int) (smapsBreakdown, error) {
	var out smapsBreakdown
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		return out, fmt.Errorf("read the app's memory map: %w", err)
	}
	defer f.Close()
	var maps []smapsMapping
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if lo, hi, ok := strings.Cut(fields[0], "-"); ok && !strings.HasSuffix(fields[0], ":") {
			start, err1 := strconv.ParseUint(lo, 16, 64)
			end, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 == nil && err2 == nil {
				m := smapsMapping{start: start, end: end}
				if len(fields) >= 6 {
					m.name = strings.Join(fields[5:], " ")
				}
				maps = append(maps, m)
				continue
			}
		}
		if fields[0] == "Rss:" && len(maps) > 0 && len(fields) >= 2 {
			v, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return out, fmt.Errorf("read Rss in /proc/%d/smaps: %w", pid, err)
			}
			maps[len(maps)-1].rss = v
		}
	}
	if err := sc.Err(); err != nil {
		return out, err
	}
	const arena = 64 << 20
	lowestLib := ^uint64(0)
	for _, m := range maps {
		if strings.Contains(m.name, ".so") && m.start < lowestLib {
			lowestLib = m.start
		}
	}
	for i, m := range maps {
		switch {
		case m.name == "[heap]":
			out.brk += m.rss
		case strings.HasPrefix(m.name, "/"):
			out.files += m.rss
		case m.name != "" && m.name != "[anon]" && !strings.HasPrefix(m.name, "[anon:"):
			// [stack], [vdso], [vvar]: the kernel's or the main thread's.
			out.otherAnon += m.rss
		case m.start >= 1<<32 && m.end <= lowestLib && (i == 0 || maps[i-1].end != m.start || maps[i-1].name == ""):
			// Above 4 GiB and not the binary's zeroed data that follows its file mapping.
			out.goHeap += m.rss
		case m.start%arena == 0 && inArenaReservation(maps, i, arena):
			out.arenas += m.rss
		default:
			out.otherAnon += m.rss
		}
	}
	return out, nil
}

// inArenaReservation: the mapping at i starts a 64 MiB-aligned run of adjacent anonymous
// mappings (the used part read-write, the rest PROT_NONE) that spans exactly 64 MiB, as
// glibc's new_heap reserves.
func inArenaReservation(maps []smapsMapping, i int, size uint64) bool {
	end := maps[i].end
	for j := i + 1; j < len(maps) && maps[j].start == end && maps[j].name == "" && end-maps[i].start < size; j++ {
		end = maps[j].end
	}
	return end-maps[i].start == size
}

// rollup is /proc/PID/smaps_rollup's resident figures, in KiB: Rss counts a shared page
// whole in every process that maps it, Pss by share, so the two tell the binary's and the
// libraries' pages (shared with other processes) from the app's own; Pss_Anon and Pss_File
// split it by kind.
type rollup struct {
	rss, pss, pssAnon, pssFile, anonymous int64
}

func (r rollup) String() string {
	m := func(k int64) float64 { return float64(k) / 1024 }
	return fmt.Sprintf("rollup Rss %.1f, Pss %.1f (anonymous %.1f, files %.1f)", m(r.rss), m(r.pss), m(r.pssAnon), m(r.pssFile))
}

// smapsRollup reads /proc/PID/smaps_rollup.
func smapsRollup(pid int) (rollup, error) {
	var out rollup
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return out, fmt.Errorf("read the app's memory totals: %w", err)
	}
	fields := map[string]*int64{"Rss:": &out.rss, "Pss:": &out.pss, "Pss_Anon:": &out.pssAnon, "Pss_File:": &out.pssFile, "Anonymous:": &out.anonymous}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 {
			if p, ok := fields[f[0]]; ok {
				if *p, err = strconv.ParseInt(f[1], 10, 64); err != nil {
					return out, fmt.Errorf("read %s of /proc/%d/smaps_rollup: %w", f[0], pid, err)
				}
			}
		}
	}
	if out.rss == 0 {
		return out, fmt.Errorf("no Rss in /proc/%d/smaps_rollup", pid)
	}
	return out, nil
}
