package main

import (
	"runtime/debug"
	"sync"
)

// windowStartGC turns the collector off from the window's start until its first frame is on
// the screen (quietGC, under its memory limit) and returns what then sets the window's own
// GOGC (windowGC); later calls do nothing. Before the map the app allocates some 25-35 MiB
// that almost all stays live (the fonts, Fyne's caches, the store's memtable and caches, the
// window's widgets), and at GOGC 50 that took six to eight collections with nothing to free,
// whose mark work ran on the second core beside the session's opening and the fonts' loading
// that the window waits for (issue 36: exec → window mapped). The one collection after the
// first frame frees what the start left. GOGC or GOMEMLIMIT set by the person win as in
// quietGC (with only GOMEMLIMIT set, the window's GOGC applies from the first frame).
func windowStartGC(getenv func(string) string) (afterFirstFrame func()) {
	restore := quietGC(getenv)
	var once sync.Once
	return func() {
		once.Do(func() {
			restore()
			if p, set := windowGC(getenv); set {
				debug.SetGCPercent(p)
			}
		})
	}
}
