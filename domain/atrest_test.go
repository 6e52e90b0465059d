package domain

import (
	"errors"
	"testing"
)

func TestChangeModelAtRest(t *testing.T) {
	c, err := NewConversation(NewConversationParams{ID: "c", Cwd: "/w", Model: "gpt-4o"})
	if err != nil {
		t.Fatal(err)
	}
	c.Usage = Usage{InputTokens: 30_000}
	next, effects, err := Transition(c, UserChangeModel{Model: "qwen2.5-coder"})
	if err != nil {
		t.Fatal(err)
	}
	if next.Model != "qwen2.5-coder" || next.Window() != ContextWindowFor("qwen2.5-coder") {
		t.Fatalf("model %s window %d", next.Model, next.Window())
	}
	msgs := effects[0].(Persist).Messages
	if len(effects) != 1 || len(msgs) != 1 || msgs[0].Kind != KindSystem || msgs[0].Text != ModelChangedText("gpt-4o", "qwen2.5-coder") {
		t.Fatalf("effects = %+v", effects)
	}
	// 30,000 tokens are under 90% of 128k but past 90% of 32k: the thresholds follow at once.
	if AtContinuation(c.Usage, c.Window()) || !AtContinuation(next.Usage, next.Window()) {
		t.Fatal("the thresholds did not follow the new window")
	}
	if _, effects, err := Transition(next, UserChangeModel{Model: "qwen2.5-coder"}); err != nil || effects != nil {
		t.Fatalf("switching to the same model: %v %v", effects, err)
	}
	if _, _, err := Transition(next, UserChangeModel{Model: "  "}); !errors.Is(err, ErrEmptyModel) {
		t.Fatalf("empty model: %v", err)
	}
}

func TestAtRestEventsRejectedWhenNotAtRest_REQ_BED_002(t *testing.T) {
	base, _ := NewConversation(NewConversationParams{ID: "c", Cwd: "/w", Model: "gpt-4o"})
	sub, _ := NewConversation(NewConversationParams{ID: "s", Cwd: "/w", Model: "gpt-4o", ParentID: "c"})
	cases := []struct {
		name string
		c    Conversation
		want error
	}{
		{"busy", withState(base, LLMRequesting{Exec: 1, Attempt: 1}), ErrAgentBusy},
		{"exhausted", withState(base, ContextExhausted{Summary: "s"}), ErrContextExhausted},
		{"sub-agent", sub, ErrSubAgentReadOnly},
	}
	for _, tc := range cases {
		for _, ev := range []Event{UserChangeModel{Model: "o3"}, UserRestoredFiles{Summary: "x"}} {
			if _, _, err := Transition(tc.c, ev); !errors.Is(err, tc.want) {
				t.Errorf("%s, %T: err = %v, want %v", tc.name, ev, err, tc.want)
			}
		}
	}
	next, effects, err := Transition(withState(base, Error{Message: "boom"}), UserRestoredFiles{Summary: "The person restored a.go."})
	if err != nil || len(effects[0].(Persist).Messages) != 1 || next.State.Kind() != StateError {
		t.Fatalf("restore notice in Error: %v %+v %s", err, effects, next.State.Kind())
	}
}

func withState(c Conversation, s State) Conversation {
	c.State = s
	return c
}
