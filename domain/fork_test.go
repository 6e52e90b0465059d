package domain

import (
	"errors"
	"reflect"
	"testing"

	"pgregory.net/rapid"
)

func forkParams() NewConversationParams {
	return NewConversationParams{ID: "fork", Cwd: "/work/project", Model: "gpt-4o", ContextWindow: testWindow, LandlockAvailable: true}
}

// Issue 27: a fork takes the history up to the chosen message (a reply with its results),
// renumbered, the last reply's usage, a link back, and Restricted mode whatever the source's
// mode was; the source is not changed.
func TestFork(t *testing.T) {
	src := newConv(t, unrestricted)
	src.Title = "Fix it"
	img := ImageRef{SHA256: "ab", MediaType: "image/png", Width: 1, Height: 1, Size: 1}
	usage := Usage{InputTokens: 500, OutputTokens: 20}
	hist := []Message{
		{Seq: 0, Kind: KindUser, Text: "look", Images: []ImageRef{img}},
		{Seq: 1, Kind: KindAssistant, ToolCalls: []ToolCall{bashCall("ls"), {ID: "c2", Name: ToolThink, Arguments: `{}`}}, Usage: &usage},
		{Seq: 2, Kind: KindToolResult, ToolResult: &ToolResult{CallID: bashCall("ls").ID, Name: ToolBash, Outcome: OutcomeSuccess}},
		{Seq: 3, Kind: KindToolResult, ToolResult: &ToolResult{CallID: "c2", Name: ToolThink, Outcome: OutcomeSuccess}},
		{Seq: 4, Kind: KindAssistant, Text: "done", Usage: &Usage{InputTokens: 900, OutputTokens: 5}},
		{Seq: 5, Kind: KindUser, Text: "more"},
	}
	before := reflect.ValueOf(hist).Index(0).Interface()
	fork, msgs, err := Fork(src, hist, 1, forkParams())
	if err != nil {
		t.Fatal(err)
	}
	if src.Mode != ModeUnrestricted || fork.Mode != ModeRestricted {
		t.Fatalf("source mode %s, fork mode %s; want the fork Restricted", src.Mode, fork.Mode)
	}
	if len(msgs) != 4 || fork.NextSeq != 4 || msgs[3].Seq != 3 || msgs[0].Images[0] != img {
		t.Fatalf("fork from the reply: %d messages, NextSeq %d; want the reply with both results", len(msgs), fork.NextSeq)
	}
	if fork.ForkedFrom != src.ID || fork.Title != "Fork of Fix it" || fork.Usage != usage || fork.Spent != (Spend{}) {
		t.Fatalf("fork = %+v", fork)
	}
	if _, ok := fork.State.(Idle); !ok {
		t.Fatalf("fork state %s; want idle", fork.State.Kind())
	}
	if !reflect.DeepEqual(hist[0], before) || hist[3].Seq != 3 {
		t.Fatal("the source's history was changed")
	}
	_, msgs, err = Fork(src, hist, 5, forkParams())
	if err != nil || len(msgs) != 6 {
		t.Fatalf("fork from the last message: %d messages, %v", len(msgs), err)
	}
	if _, _, err := Fork(src, hist, 9, forkParams()); err == nil {
		t.Fatal("a fork from a message that does not exist was accepted")
	}
	// A reply still waiting for its results cannot be forked from.
	if _, _, err := Fork(src, hist[:3], 1, forkParams()); !errors.Is(err, ErrForkMidRound) {
		t.Fatalf("mid-round fork: %v; want ErrForkMidRound", err)
	}
	if _, _, err := Fork(newConv(t, subAgent), hist, 0, forkParams()); err == nil {
		t.Fatal("a sub-agent was forked")
	}
	// Without the sandbox nothing can be Restricted, as for any new conversation.
	p := forkParams()
	p.LandlockAvailable = false
	if f, _, _ := Fork(src, hist, 0, p); f.Mode != ModeUnrestricted {
		t.Fatalf("fork without Landlock: mode %s", f.Mode)
	}
}

// From any reachable history, a fork from any message is refused only mid-round, and
// otherwise is a valid, closed history that repeats the source's messages in order.
func TestProperty_ForkIsValidPrefix(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := newWalk(t)
		w.prefix(t, 80)
		if len(w.hist) == 0 || w.c.IsSubAgent() {
			return
		}
		at := w.hist[rapid.IntRange(0, len(w.hist)-1).Draw(t, "at")].Seq
		fork, msgs, err := Fork(w.c, w.hist, at, forkParams())
		if errors.Is(err, ErrForkMidRound) {
			return
		}
		if err != nil {
			t.Fatalf("fork from %d: %v", at, err)
		}
		if err := ValidateHistory(msgs, false); err != nil || fork.NextSeq != uint64(len(msgs)) || fork.Copied != fork.NextSeq || uint64(len(msgs)) <= at {
			t.Fatalf("fork from %d: %d messages, NextSeq %d, Copied %d, %v", at, len(msgs), fork.NextSeq, fork.Copied, err)
		}
		for i, m := range msgs {
			src := w.hist[i]
			m.Seq = src.Seq
			if !reflect.DeepEqual(m, src) {
				t.Fatalf("message %d differs from the source's", i)
			}
		}
	})
}
