package bench

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/persistence"
)

// fillStore writes conversations of alternating user and assistant messages directly
// through the store, a hundred messages a commit.
func fillStore(store *persistence.Store, cwd string, convs, msgsEach int) (string, error) {
	var last string
	for i := 0; i < convs; i++ {
		c, err := domain.NewConversation(domain.NewConversationParams{
			ID: fmt.Sprintf("bench-%05d", i), Title: fmt.Sprintf("Benchmark conversation %d", i),
			Cwd: cwd, Model: domain.DemoModel, CreatedAt: time.Now()})
		if err != nil {
			return "", err
		}
		if c, err = store.Create(c); err != nil {
			return "", err
		}
		for done := 0; done < msgsEach; {
			n := min(100, msgsEach-done)
			batch := make([]domain.Message, n)
			for j := range batch {
				seq := c.NextSeq + uint64(j)
				if seq%2 == 0 {
					batch[j] = domain.Message{Seq: seq, Kind: domain.KindUser, Text: "Please look at the build output and tell me what failed."}
				} else {
					batch[j] = domain.Message{Seq: seq, Kind: domain.KindAssistant, Text: strings.Repeat("The build failed because a test timed out. ", 6)}
				}
			}
			c.NextSeq += uint64(n)
			if c, _, err = store.Commit(c, batch); err != nil {
				return "", err
			}
			done += n
		}
		last = c.ID
	}
	return last, nil
}

func openAndList(ctx context.Context, o Options) ([]float64, error) {
	dir, err := os.MkdirTemp("", "phoenix-bench-store-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	store, err := persistence.Open(dir, persistence.Options{Logger: quietLogger()})
	if err != nil {
		return nil, err
	}
	convs := 1000
	if o.Quick {
		convs = 50
	}
	if _, err := fillStore(store, dir, convs, 100); err != nil {
		store.Close()
		return nil, err
	}
	if err := store.Close(); err != nil {
		return nil, err
	}
	var out []float64
	for i := 0; i < samplesOf(o, 10, 2); i++ {
		start := time.Now()
		s, err := persistence.Open(dir, persistence.Options{Logger: quietLogger()})
		if err != nil {
			return out, err
		}
		list, err := s.List(false)
		took := time.Since(start)
		s.Close()
		if err != nil {
			return out, err
		}
		if len(list) != convs {
			return out, fmt.Errorf("listed %d conversations, want %d", len(list), convs)
		}
		out = append(out, ms(took))
	}
	return out, nil
}

func loadLarge(ctx context.Context, o Options) ([]float64, error) {
	store, err := persistence.OpenInMemory()
	if err != nil {
		return nil, err
	}
	defer store.Close()
	n := 10000
	if o.Quick {
		n = 1000
	}
	id, err := fillStore(store, os.TempDir(), 1, n)
	if err != nil {
		return nil, err
	}
	var out []float64
	for i := 0; i < samplesOf(o, 20, 3); i++ {
		start := time.Now()
		_, msgs, err := store.Load(id)
		if err != nil {
			return out, err
		}
		if len(msgs) != n {
			return out, fmt.Errorf("loaded %d messages, want %d", len(msgs), n)
		}
		out = append(out, ms(time.Since(start)))
	}
	return out, nil
}

func firstDelta(ctx context.Context, o Options) ([]float64, error) {
	e, conv, err := newConversation(ctx, false)
	if err != nil {
		return nil, err
	}
	defer e.close()
	var out []float64
	for i := 0; i < samplesOf(o, 50, 5); i++ {
		start := time.Now()
		if err := e.Runtime.Send(ctx, conv.ID, "echo: "+strings.Repeat("token ", 200), nil); err != nil {
			return out, err
		}
		var first time.Duration
		timeout := time.After(time.Minute)
		for first == 0 {
			select {
			case ev := <-e.Events.Events():
				if d, ok := ev.(actors.TextDelta); ok && d.ConvID == conv.ID {
					first = time.Since(start)
				}
			case <-timeout:
				return out, fmt.Errorf("no streamed text within a minute")
			}
		}
		out = append(out, ms(first))
		if _, err := e.waitFor(ctx, conv.ID, func(c domain.Conversation) bool { return !domain.Busy(c.State) }); err != nil {
			return out, err
		}
	}
	return out, nil
}

// eventBacklog follows each streamed turn with a subscription of its own, read at once as the
// window's event pump reads it, and reports the subscription's high-water mark.
func eventBacklog(ctx context.Context, o Options) ([]float64, error) {
	e, conv, err := newConversation(ctx, false)
	if err != nil {
		return nil, err
	}
	defer e.close()
	var out []float64
	for i := 0; i < samplesOf(o, 20, 3); i++ {
		sub := e.Runtime.Subscribe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			for range sub.Events() {
			}
		}()
		_, err := e.turn(ctx, conv.ID, "echo: "+strings.Repeat("token ", 200))
		out = append(out, float64(sub.HighWater()))
		sub.Close()
		<-done
		if err != nil {
			return out, err
		}
	}
	return out, nil
}
