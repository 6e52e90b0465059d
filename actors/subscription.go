package actors

import (
	"sync"

	"github.com/asynkron/protoactor-go/eventstream"
)

// Subscription hands the runtime's events to one consumer through a channel.
//
// protoactor's EventStream runs handlers on the publisher's goroutine, which is an actor's
// goroutine; a handler that blocked would stall that conversation. So the handler only
// appends to an in-memory queue under a mutex and signals a pump goroutine, which feeds the
// channel at the consumer's pace. The queue is unbounded so that state and message events are
// never dropped; consecutive text deltas of the same request are joined while they wait, which
// bounds the queue's growth under streaming to the number of distinct events.
type Subscription struct {
	stream *eventstream.EventStream
	sub    *eventstream.Subscription
	out    chan Event
	signal chan struct{}
	done   chan struct{}
	exited chan struct{}
	once   sync.Once

	// mu guards queue and highWater; it is held only to append or to swap the slice, never
	// while sending.
	mu    sync.Mutex
	queue []Event
	// highWater is the longest the queue has been: how far the consumer fell behind.
	highWater int
}

func newSubscription(stream *eventstream.EventStream) *Subscription {
	s := &Subscription{
		stream: stream,
		out:    make(chan Event, 64),
		signal: make(chan struct{}, 1),
		done:   make(chan struct{}),
		exited: make(chan struct{}),
	}
	s.sub = stream.Subscribe(s.handle)
	go s.pump()
	return s
}

// Events delivers the events in publication order. It is closed after Close.
func (s *Subscription) Events() <-chan Event { return s.out }

// Close stops delivery and releases the pump goroutine. It is safe to call more than once.
func (s *Subscription) Close() {
	s.once.Do(func() {
		s.stream.Unsubscribe(s.sub)
		close(s.done)
		<-s.exited
	})
}

// HighWater is the most events that have waited in the queue at once since the subscription
// began, beyond the channel's own buffer of 64. The queue is unbounded so that nothing is
// lost; this figure shows a consumer that falls behind (a slow UI) long before the backlog
// costs memory. `phoenix-desktop bench` reports it for a streaming conversation.
func (s *Subscription) HighWater() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.highWater
}

// handle runs on the publisher's goroutine and must never block.
func (s *Subscription) handle(evt any) {
	ev, ok := evt.(Event)
	if !ok {
		return // protoactor's own events (dead letters, supervision) are not ours
	}
	s.mu.Lock()
	if d, isDelta := ev.(TextDelta); isDelta && len(s.queue) > 0 {
		if last, lastIsDelta := s.queue[len(s.queue)-1].(TextDelta); lastIsDelta &&
			last.ConvID == d.ConvID && last.Exec == d.Exec && last.Reasoning == d.Reasoning {
			last.Text += d.Text
			s.queue[len(s.queue)-1] = last
			s.mu.Unlock()
			return
		}
	}
	if p, isProgress := ev.(ToolProgress); isProgress && len(s.queue) > 0 {
		// Only the latest progress of a call matters to a subscriber that fell behind.
		if last, lastIsProgress := s.queue[len(s.queue)-1].(ToolProgress); lastIsProgress &&
			last.ConvID == p.ConvID && last.Exec == p.Exec {
			s.queue[len(s.queue)-1] = p
			s.mu.Unlock()
			return
		}
	}
	s.queue = append(s.queue, ev)
	s.highWater = max(s.highWater, len(s.queue))
	s.mu.Unlock()
	select {
	case s.signal <- struct{}{}:
	default: // a signal is already pending; the pump will see the new event
	}
}

func (s *Subscription) pump() {
	defer close(s.exited)
	defer close(s.out)
	for {
		select {
		case <-s.done:
			return
		case <-s.signal:
		}
		s.mu.Lock()
		batch := s.queue
		s.queue = nil
		s.mu.Unlock()
		for _, ev := range batch {
			select {
			case s.out <- ev:
			case <-s.done:
				return
			}
		}
	}
}
