package actors

import (
	"bytes"
	"runtime"
	"strconv"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// goroutineID is the running goroutine's number, read from its stack's header line.
func goroutineID() uint64 {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	buf = bytes.TrimPrefix(buf, []byte("goroutine "))
	id, _ := strconv.ParseUint(string(buf[:bytes.IndexByte(buf, ' ')]), 10, 64)
	return id
}

// TestWarmGoroutinesAreReused: work handed over one after the other runs on the goroutines
// that ran the earlier work (issue 39: a new goroutine per mailbox run and per worker call
// grew its stack again each time), and stop ends them all.
func TestWarmGoroutinesAreReused(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	w := newWarmGoroutines(time.Minute)
	defer w.stop()
	ids := map[uint64]bool{}
	const n = 100
	for range n {
		done := make(chan uint64)
		w.Go(func() { done <- goroutineID() })
		ids[<-done] = true
	}
	// A goroutine may not be waiting yet when the next work comes; most are.
	if len(ids) > n/4 {
		t.Errorf("%d pieces of work, one after the other, ran on %d goroutines; want few, reused", n, len(ids))
	}
}

// TestWarmGoroutinesNeverWait: work given while every goroutine is busy gets a new one at
// once (a mailbox must never wait for another's), and after stop, work still runs.
func TestWarmGoroutinesNeverWait(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	w := newWarmGoroutines(time.Minute)
	second := make(chan struct{})
	first := make(chan struct{})
	w.Go(func() { <-second; close(first) })
	w.Go(func() { close(second) }) // runs although the first still waits for it
	<-first
	w.stop()
	after := make(chan struct{})
	w.Go(func() { close(after) })
	<-after
}

// TestWarmGoroutinesEndWhenIdle: a goroutine left without work ends by itself after its
// idle time, without stop.
func TestWarmGoroutinesEndWhenIdle(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	w := newWarmGoroutines(time.Millisecond)
	done := make(chan struct{})
	w.Go(func() { close(done) })
	<-done
}
