package main

// windowGCPercent is the window's GOGC: Go lets the heap grow to twice what is live before
// it collects (GOGC=100), and in a window left open for weeks that headroom, not what the
// conversations hold, is most of what its memory grows by while they are loaded. At 50 the
// soak with a window read 19 MiB less after 200 turns (213.5 against 232.9 MiB, the Go heap
// 60.6 against 76.1, two runs in the same minutes), for a collection twice as often while
// turns run; the idle CPU afterwards was the same (docs/ARCHITECTURE.md, "Memory over a long
// life"). No GOMEMLIMIT: a limit below what a long session holds live would make the
// collector run without end rather than bound anything.
const windowGCPercent = 50

// windowGC is the GOGC the window sets: windowGCPercent, unless the person set GOGC (the
// runtime has read it already, and theirs wins).
func windowGC(getenv func(string) string) (percent int, set bool) {
	if getenv("GOGC") != "" {
		return 0, false
	}
	return windowGCPercent, true
}
