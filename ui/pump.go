package ui

import (
	"sync"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
)

// deltaInterval is how long streamed text collects before it is drawn: about ten repaints a
// second however fast the model writes.
const deltaInterval = 100 * time.Millisecond

// pump moves events from the runtime's stream to the UI goroutine. It reads the stream on its
// own goroutine and never waits for the UI, so the publishing actors are never blocked. Events
// collect in a batch that one function on the UI goroutine applies: at once for state changes
// and messages, after deltaInterval for streamed text, whose consecutive deltas are joined.
type pump struct {
	src      EventSource
	do       func(func())
	apply    func([]actors.Event)
	interval time.Duration

	mu sync.Mutex // guards the fields below; held only to swap the batch
	// batch is what the next flush applies, in arrival order.
	batch []actors.Event
	// queued is true from the moment a flush is scheduled (by timer or do) until it runs.
	queued bool
	// timer is the delayed flush for deltas, nil when none is armed.
	timer *time.Timer
	done  chan struct{}
}

func newPump(src EventSource, do func(func()), apply func([]actors.Event)) *pump {
	return &pump{src: src, do: do, apply: apply, interval: deltaInterval, done: make(chan struct{})}
}

// run reads the stream until it closes.
func (p *pump) run() {
	defer close(p.done)
	for ev := range p.src.Events() {
		p.push(ev)
	}
}

func (p *pump) push(ev actors.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if d, ok := ev.(actors.TextDelta); ok {
		if n := len(p.batch); n > 0 {
			if last, ok := p.batch[n-1].(actors.TextDelta); ok && last.ConvID == d.ConvID && last.Exec == d.Exec && last.Reasoning == d.Reasoning {
				last.Text += d.Text
				p.batch[n-1] = last
				return
			}
		}
		p.batch = append(p.batch, d)
		if !p.queued {
			p.queued = true
			p.timer = time.AfterFunc(p.interval, func() { p.do(p.flush) })
		}
		return
	}
	p.batch = append(p.batch, ev)
	switch {
	case !p.queued:
		p.queued = true
		p.do(p.flush)
	case p.timer != nil && p.timer.Stop():
		// A delta flush was waiting: a state change or a message should not wait with it.
		p.timer = nil
		p.do(p.flush)
	}
}

// flush runs on the UI goroutine.
func (p *pump) flush() {
	p.mu.Lock()
	b := p.batch
	p.batch, p.queued, p.timer = nil, false, nil
	p.mu.Unlock()
	if len(b) > 0 {
		p.apply(b)
	}
}
