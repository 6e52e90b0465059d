package domain

import (
	"encoding/json"
	"strings"
	"testing"
)

// A custom command's model (UserMessage.Model) is the model of the turn its message starts:
// every request of the turn (tool rounds included) goes to it, and once the conversation is
// at rest its own model is back; nothing is written to the history about it and the
// conversation's model and window never change (issue 38).
func TestTransition_TurnModelLastsOneTurn(t *testing.T) {
	c := newConv(t)
	next, effects := step(t, c, UserMessage{Text: "Scaffold an API", Model: "claude-sonnet-4-0", Title: "/api-scaffold users service"})
	wantKinds(t, persisted(t, effects), KindUser)
	if next.TurnModel != "claude-sonnet-4-0" || next.RequestModel() != "claude-sonnet-4-0" {
		t.Fatalf("turn model %q, request model %q; want the command's", next.TurnModel, next.RequestModel())
	}
	if next.Model != c.Model || next.Window() != c.Window() {
		t.Fatalf("model %s window %d; want the conversation's %s %d kept", next.Model, next.Window(), c.Model, c.Window())
	}
	// A tool round keeps the turn's model.
	next, _ = respond(t, next, "", bashCall("a"))
	wantState[ToolExecuting](t, next)
	next, _ = step(t, next, ToolComplete{Exec: mustExec(t, next), Result: ToolResult{CallID: "a", Name: ToolBash, Outcome: OutcomeSuccess, Content: "ok"}})
	wantState[LLMRequesting](t, next)
	if next.RequestModel() != "claude-sonnet-4-0" {
		t.Fatalf("the tool round's request goes to %s; want the turn's model", next.RequestModel())
	}
	next, effects = respond(t, next, "done")
	wantState[Idle](t, next)
	wantKinds(t, persisted(t, effects), KindAssistant)
	if next.TurnModel != "" || next.RequestModel() != c.Model || next.Model != c.Model {
		t.Fatalf("at rest: turn model %q, request model %q, model %q; want the conversation's %q back", next.TurnModel, next.RequestModel(), next.Model, c.Model)
	}
	// The next message, without a model, is sent to the conversation's.
	next, _ = step(t, next, UserMessage{Text: "and the tests"})
	if next.RequestModel() != c.Model {
		t.Fatalf("the next turn goes to %s; want %s", next.RequestModel(), c.Model)
	}
}

// However the turn ends — an error, Stop — the conversation's model is back.
func TestTransition_TurnModelEndsWithTheTurn(t *testing.T) {
	start := func(t *testing.T) Conversation {
		next, _ := step(t, newConv(t), UserMessage{Text: "go", Model: "claude-sonnet-4-0"})
		return next
	}
	tests := []struct {
		name string
		end  func(t *testing.T, c Conversation) Conversation
		want StateKind
	}{
		{"error", func(t *testing.T, c Conversation) Conversation {
			next, _ := step(t, c, LLMError{Exec: mustExec(t, c), Kind: ErrorInvalidRequest, Message: "model not found"})
			return next
		}, StateError},
		{"stop", func(t *testing.T, c Conversation) Conversation {
			next, _ := step(t, c, UserCancel{})
			return next
		}, StateIdle},
		{"restart", func(t *testing.T, c Conversation) Conversation {
			next, _ := step(t, c, RestoreAfterRestart{})
			return next
		}, StateIdle},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := tt.end(t, start(t))
			if next.State.Kind() != tt.want || next.TurnModel != "" || next.RequestModel() != "gpt-4o" {
				t.Fatalf("state %s, turn model %q, request model %q; want %s with the conversation's gpt-4o", next.State.Kind(), next.TurnModel, next.RequestModel(), tt.want)
			}
		})
	}
}

// A message that names the conversation's own model, or none, starts an ordinary turn.
func TestTransition_TurnModelOfTheConversationIsNone(t *testing.T) {
	for _, m := range []string{"", "gpt-4o", "  "} {
		next, _ := step(t, newConv(t), UserMessage{Text: "go", Model: m})
		if next.TurnModel != "" {
			t.Errorf("Model %q: turn model %q; want none", m, next.TurnModel)
		}
	}
}

// A conversation a command starts is titled by the invocation, not by the prompt's first
// line; a later message never retitles it (issue 38).
func TestTransition_TitleFromInvocation(t *testing.T) {
	next, _ := step(t, newConv(t), UserMessage{Text: "# API Scaffold Generator\n\nYou are…", Title: "/api-scaffold users service"})
	if next.Title != "/api-scaffold users service" {
		t.Fatalf("title %q; want the invocation", next.Title)
	}
	next, _ = respond(t, next, "ok")
	next, _ = step(t, next, UserMessage{Text: "more", Title: "/other"})
	if next.Title != "/api-scaffold users service" {
		t.Fatalf("a later command retitled the conversation %q", next.Title)
	}
	blank, _ := step(t, newConv(t), UserMessage{Text: "fix it\nnow", Title: " "})
	if blank.Title != "fix it" {
		t.Fatalf("a blank Title gave %q; want the text's first line", blank.Title)
	}
}

// TurnModel is stored only while a turn has one (omitempty), so records of conversations at
// rest are written as before (AGENTS.md rule 8), and a stored turn's model comes back.
func TestTurnModelIsOptionalOnDisk(t *testing.T) {
	b, err := json.Marshal(newConv(t))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "turn_model") {
		t.Fatalf("a conversation without a turn model stores one: %s", b)
	}
	busy, _ := step(t, newConv(t), UserMessage{Text: "go", Model: "claude-sonnet-4-0"})
	b, err = json.Marshal(busy)
	if err != nil {
		t.Fatal(err)
	}
	var back Conversation
	if err := json.Unmarshal(b, &back); err != nil || back.TurnModel != "claude-sonnet-4-0" {
		t.Fatalf("decoded %q (%v) from %s", back.TurnModel, err, b)
	}
}
