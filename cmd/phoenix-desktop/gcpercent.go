package main

import (
	"runtime/debug"
	"sync"

	"github.com/phoenix-desktop/phoenix/domain"
)

// windowGCPercent is the window's GOGC: Go lets the heap grow to twice what is live before
// it collects (GOGC=100), and in a window left open for weeks that headroom, not what the
// conversations hold, is most of what its memory grows by while they are loaded. At 50 the
// soak with a window read 19 MiB less after 200 turns (213.5 against 232.9 MiB, the Go heap
// 60.6 against 76.1, two runs in the same minutes), for a collection twice as often while
// turns run; the idle CPU afterwards was the same (docs/ARCHITECTURE.md, "Memory over a long
// life"). Lower buys nothing there: at 25 (GOGC=25; one full soak each, side by side, with
// 2 MiB memtables) the app read about the same after 2,000 turns (222.9 against 223.9 MiB)
// and grew more from 200 turns on (+22.7 against +15.4 MiB: the earlier point was lower),
// for 158 against 115 ms of its CPU a turn. No GOMEMLIMIT: a limit below what a long
// session holds live would make the collector run without end rather than bound anything.
const windowGCPercent = 50

// windowGC is the GOGC the window sets: windowGCPercent, unless the person set GOGC (the
// runtime has read it already, and theirs wins).
func windowGC(getenv func(string) string) (percent int, set bool) {
	if getenv("GOGC") != "" {
		return 0, false
	}
	return windowGCPercent, true
}

// quietGCLimit bounds the Go memory of a headless chat while its collector is off
// (quietGC): reached, the collector runs again to keep below it. A first turn never comes
// near it (the window's whole heap after 2,000 turns is about 35 MiB).
const quietGCLimit = 64 << 20

// quietGC turns the collector off in a headless chat, a process of its own, until its first
// turn has come to rest or goes past its first model request (collectAgain), and returns what turns it back on (once; later calls do nothing).
// A one-turn chat allocates little that lives, but opening the store allocates Badger's
// memtable arena and caches (some 12 MB, most never touched): with GOGC=100 each such step
// started a collection, three in all after package initialisation, whose mark work took
// 18% of a cold chat's CPU in a perf profile (against 9% for --version) and whose
// bookkeeping raised its peak, for nothing to free. GOGC or GOMEMLIMIT set by the person
// wins: then nothing changes.
func quietGC(getenv func(string) string) (restore func()) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	percent := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(quietGCLimit)
	var once sync.Once
	return func() {
		once.Do(func() {
			debug.SetGCPercent(percent)
			debug.SetMemoryLimit(limit)
		})
	}
}

// collectAgain reports whether a headless chat's collector, off for its cold first turn
// (quietGC), comes back on at state s: the turn has gone past its first model request — a
// tool runs, or it waits for an approval, sub-agents or a continuation. Such a turn is no
// longer the cold one-turn chat quietGC is for, and a tool may read a large file or image:
// past quietGCLimit the collector would run at the limit, up to half the CPU, for the rest
// of the turn.
func collectAgain(s domain.State) bool {
	if _, first := s.(domain.LLMRequesting); first {
		return false
	}
	return domain.Busy(s)
}
