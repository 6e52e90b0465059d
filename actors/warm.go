package actors

import (
	"sync"
	"time"
)

// warmGoroutines runs functions on goroutines that stay for a while after their work, so
// that the next work finds one whose stack has already grown (issue 39). protoactor starts
// a new goroutine each time an idle mailbox gets a message, and a conversation's worker
// started one per model request and per tool call; each of them grew its stack from its
// first few KiB, copying it at every doubling, on the way into a commit's encoding or the
// HTTP client: in a CPU profile of a headless tool round, runtime.morestack and the
// goroutines' creation and end took about 0.3 ms of each round. A reused goroutine keeps
// the stack it grew (until a collection finds most of it unused and shrinks it).
//
// It never makes work wait: with no goroutine idle, the work gets a new one. It is the
// dispatcher of the conversations' mailboxes (Schedule) and runs the workers' calls (Go).
// After stop, idle goroutines end and each new work runs on a goroutine of its own that
// ends with it, as before, so that nothing outlives the runtime (goleak in the tests).
type warmGoroutines struct {
	// work hands a function to an idle goroutine; unbuffered, so a send succeeds only
	// when one is waiting.
	work chan func()
	// stopped is closed by stop.
	stopped  chan struct{}
	stopOnce sync.Once
	// idle is how long a goroutine waits for more work before it ends.
	idle time.Duration
	// throughput is how many messages a mailbox processes before it yields its goroutine
	// (protoactor's default dispatcher's).
	throughput int
}

// warmIdle is how long a goroutine stays for more work: a headless chat's hand-overs come
// milliseconds apart, a person's next turn seconds or minutes later, when a new goroutine
// costs nothing anyone waits for.
const warmIdle = 2 * time.Second

// mailboxThroughput is protoactor's default dispatcher's throughput.
const mailboxThroughput = 300

func newWarmGoroutines(idle time.Duration) *warmGoroutines {
	return &warmGoroutines{work: make(chan func()), stopped: make(chan struct{}), idle: idle, throughput: mailboxThroughput}
}

// Schedule runs fn on an idle goroutine, or a new one: protoactor's Dispatcher.
func (w *warmGoroutines) Schedule(fn func()) { w.Go(fn) }

// Throughput is protoactor's Dispatcher's.
func (w *warmGoroutines) Throughput() int { return w.throughput }

// Go runs fn on an idle goroutine, or a new one; it never waits. A runtime made without
// Start (some tests) has none: fn gets a goroutine of its own.
func (w *warmGoroutines) Go(fn func()) {
	if w == nil {
		go fn()
		return
	}
	select {
	case w.work <- fn:
	default:
		go w.serve(fn)
	}
}

// serve runs fn, then the work handed to it until it has waited idle for none, or the
// runtime stopped.
func (w *warmGoroutines) serve(fn func()) {
	fn()
	idle := time.NewTimer(w.idle)
	defer idle.Stop()
	for {
		select {
		case fn := <-w.work:
			fn()
			idle.Reset(w.idle)
		case <-idle.C:
			return
		case <-w.stopped:
			return
		}
	}
}

// stop ends the idle goroutines and those that finish their work from now on.
func (w *warmGoroutines) stop() {
	if w != nil {
		w.stopOnce.Do(func() { close(w.stopped) })
	}
}
