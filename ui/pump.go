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
// collect in a batch that one function on the UI goroutine applies: state changes and messages
// at once after a quiet moment, streamed text after deltaInterval, with consecutive deltas
// joined. While events keep coming (tool rounds a few milliseconds apart) batches are applied
// at most once per deltaInterval too: each applied batch redraws the whole window, which
// without a GPU costs a core more than the rounds themselves (issue 39, the round in the
// window), and nobody reads forty updates a second.
type pump struct {
	src      EventSource
	do       func(func())
	apply    func([]actors.Event)
	interval time.Duration

	mu sync.Mutex // guards the fields below; held only to swap the batch
	// batch is what the next flush applies, in arrival order.
	batch []actors.Event
	// queued is true from the moment a flush is handed to do until it runs.
	queued bool
	// timer is the delayed flush of streamed text, nil when none is armed.
	timer *time.Timer
	// cooling is true for interval after a flush; held says that events other than text
	// arrived meanwhile and go when it ends. coolGen tells the current cool-down's end from
	// an earlier one's that fired late.
	cooling bool
	held    bool
	coolGen int
	done    chan struct{}
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
		if !p.queued && !p.held && p.timer == nil {
			p.timer = time.AfterFunc(p.interval, p.textDue)
		}
		return
	}
	p.batch = append(p.batch, ev)
	switch {
	case p.queued:
	case p.cooling:
		p.held = true
	default:
		p.flushSoon()
	}
}

// flushSoon hands the flush to the UI goroutine, ahead of any text timer. Called with mu held.
func (p *pump) flushSoon() {
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	p.queued = true
	p.do(p.flush)
}

// textDue is the text timer's end.
func (p *pump) textDue() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.timer = nil
	if !p.queued {
		p.flushSoon()
	}
}

// cooled ends the cool-down numbered gen: what was held goes now.
func (p *pump) cooled(gen int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if gen != p.coolGen {
		return
	}
	p.cooling = false
	if p.held {
		p.held = false
		if !p.queued {
			p.flushSoon()
		}
	}
}

// flush runs on the UI goroutine.
func (p *pump) flush() {
	p.mu.Lock()
	b := p.batch
	p.batch, p.queued, p.held = nil, false, false
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	p.coolGen++
	gen := p.coolGen
	p.cooling = true
	time.AfterFunc(p.interval, func() { p.cooled(gen) })
	p.mu.Unlock()
	if len(b) > 0 {
		p.apply(b)
	}
}
