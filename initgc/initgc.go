package initgc

import (
	"os"
	"runtime/debug"
	"sync/atomic"
)

var (
	// off is set while this package holds the collector off.
	off atomic.Bool
	// previous is the collector's percent before init turned it off.
	previous atomic.Int64
)

func init() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		previous.Store(int64(debug.SetGCPercent(-1)))
		off.Store(true)
	}
}

// Restore turns the collector back on as it was before the packages initialised, if this
// package turned it off; later calls do nothing. main calls it first, so that from there on
// every command collects exactly as it would have without this package.
func Restore() {
	if off.CompareAndSwap(true, false) {
		debug.SetGCPercent(int(previous.Load()))
	}
}
