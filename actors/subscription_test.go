package actors

import (
	"fmt"
	"testing"

	"github.com/asynkron/protoactor-go/eventstream"
)

func notice(i int) Notice { return Notice{ConvID: "c", Level: NoticeInfo, Text: fmt.Sprint(i)} }

// TestSubscriptionHighWaterFollowsTheBacklog: a consumer that takes each event before the
// next is published never lets more than one wait; one that reads nothing while 100 are
// published leaves a backlog the mark shows (the channel holds 64, so at least 36 waited in
// the queue or in the batch the pump took from it, and that batch was the queue's length
// when taken). Nothing is lost either way.
func TestSubscriptionHighWaterFollowsTheBacklog(t *testing.T) {
	stream := eventstream.NewEventStream()
	keepsUp := newSubscription(stream)
	for i := range 100 {
		stream.Publish(notice(i))
		if got := (<-keepsUp.Events()).(Notice); got != notice(i) {
			t.Fatalf("event %d arrived as %+v", i, got)
		}
	}
	if hw := keepsUp.HighWater(); hw != 1 {
		t.Errorf("a consumer that keeps up: high-water mark %d, want 1", hw)
	}
	keepsUp.Close()

	behind := newSubscription(stream)
	defer behind.Close()
	for i := range 100 {
		stream.Publish(notice(i))
	}
	for i := range 100 {
		if got := (<-behind.Events()).(Notice); got != notice(i) {
			t.Fatalf("event %d arrived as %+v", i, got)
		}
	}
	if hw := behind.HighWater(); hw < 18 || hw > 100 {
		t.Errorf("a consumer 100 events behind: high-water mark %d, want 18..100", hw)
	}
}
