package main

import (
	"runtime/debug"
	"testing"
)

// TestWindowStartCollectsNothingBeforeTheFirstFrame (issue 36): from the window's start to
// its first frame the collector is off under quietGC's memory limit; afterwards it runs at
// the window's GOGC with no limit, once, however often it is asked; GOGC set by the person
// is left alone throughout.
func TestWindowStartCollectsNothingBeforeTheFirstFrame(t *testing.T) {
	before, limit := gcPercent(), debug.SetMemoryLimit(-1)
	defer func() {
		debug.SetGCPercent(before)
		debug.SetMemoryLimit(limit)
	}()
	after := windowStartGC(func(string) string { return "" })
	if p := gcPercent(); p != -1 {
		t.Errorf("before the first frame the collector runs at GOGC %d; want off", p)
	}
	if l := debug.SetMemoryLimit(-1); l != quietGCLimit {
		t.Errorf("before the first frame the memory limit is %d; want %d", l, quietGCLimit)
	}
	after()
	if p := gcPercent(); p != windowGCPercent {
		t.Errorf("after the first frame the collector runs at GOGC %d; want %d", p, windowGCPercent)
	}
	if l := debug.SetMemoryLimit(-1); l != limit {
		t.Errorf("after the first frame the memory limit is %d; want %d", l, limit)
	}
	debug.SetGCPercent(7)
	after()
	if p := gcPercent(); p != 7 {
		t.Errorf("a second call changed GOGC again (%d)", p)
	}

	debug.SetGCPercent(200)
	after = windowStartGC(func(k string) string {
		if k == "GOGC" {
			return "200"
		}
		return ""
	})
	if p := gcPercent(); p != 200 {
		t.Errorf("with GOGC=200 set by the person the start set GOGC %d", p)
	}
	after()
	if p := gcPercent(); p != 200 {
		t.Errorf("with GOGC=200 set by the person the first frame set GOGC %d", p)
	}
}
