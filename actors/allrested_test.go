package actors

import (
	"context"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
)

// TestOnAllRestedOnceTheLastConversationIsUnloaded (issue 43): the app gives the memory back
// (Config.OnAllRested) once every conversation in memory has been unloaded, not while one is
// still loaded (busy), and again after the next rest.
func TestOnAllRestedOnceTheLastConversationIsUnloaded(t *testing.T) {
	rested := make(chan struct{}, 100)
	var passivated <-chan string
	h := newHarness(t, func(c *Config) {
		c.Passivation = Passivation{IdleAfter: time.Millisecond, MaxResident: -1}
		c.OnAllRested = func() { rested <- struct{}{} }
		passivated = passivations(c)
	})
	waitRested := func(what string) {
		t.Helper()
		select {
		case <-rested:
		case <-time.After(30 * time.Second):
			t.Fatalf("OnAllRested was not called %s", what)
		}
	}
	a := h.create(NewConversation{Unrestricted: true})
	h.send(a.ID, "bash: sleep 60")
	h.waitState(a.ID, domain.StateToolExecuting)
	b := h.create(NewConversation{})
	h.turn(b.ID, "echo: x")
	waitPassivatedNot(t, passivated, b.ID, a.ID)
	// Ticks come and go while a runs: none may say all rested.
	c := h.create(NewConversation{})
	h.turn(c.ID, "echo: y")
	waitPassivatedNot(t, passivated, c.ID, a.ID)
	if n := len(rested); n != 0 {
		t.Fatalf("OnAllRested called %d times while a conversation was busy in memory", n)
	}
	if err := h.rt.Cancel(context.Background(), a.ID); err != nil {
		t.Fatal(err)
	}
	h.waitRest(a.ID)
	waitPassivated(t, passivated, a.ID)
	waitRested("after the last conversation was unloaded")
	h.turn(b.ID, "echo: again")
	waitPassivated(t, passivated, b.ID)
	waitRested("after the next rest")
}
