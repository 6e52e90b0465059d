package domain

import (
	"errors"
	"fmt"
	"slices"
)

// ErrForkMidRound refuses a fork whose history would end with tool calls that have no
// results yet: the provider would refuse every request of the fork.
var ErrForkMidRound = errors.New("the tool calls of that reply have no results yet")

// Fork makes a new conversation that continues src from one of its messages, keeping src as
// it is (issue 27): "continue from here in a new conversation". The new conversation is made
// from p like any other (so it starts Restricted where the sandbox works: write access is
// never inherited) and links back through ForkedFrom; it gets the history up to and
// including message at, renumbered from 0, and the usage of the last reply in it, so its
// context meter starts where the history is. A reply whose tool calls were answered takes
// its results along; one still waiting for them is refused (ErrForkMidRound). Sub-agents are
// not forked: they belong to their parent's round. Copied counts the messages it was given:
// their replies stay the source's, never spent a second time (issue 33).
func Fork(src Conversation, history []Message, at uint64, p NewConversationParams) (Conversation, []Message, error) {
	if src.IsSubAgent() {
		return Conversation{}, nil, fmt.Errorf("fork %s: a sub-agent's conversation cannot be forked; fork its parent", src.ID)
	}
	i := slices.IndexFunc(history, func(m Message) bool { return m.Seq == at })
	if i < 0 {
		return Conversation{}, nil, fmt.Errorf("fork %s: it has no message %d", src.ID, at)
	}
	cut := i + 1
	for cut < len(history) && history[cut].Kind == KindToolResult && len(UnansweredCalls(history[:cut])) > 0 {
		cut++
	}
	if open := UnansweredCalls(history[:cut]); len(open) > 0 {
		return Conversation{}, nil, fmt.Errorf("fork %s from message %d: %w (%s): fork from a message before that reply, or after its round ends",
			src.ID, at, ErrForkMidRound, open[0].Name)
	}
	p.ParentID, p.ParentExec, p.Task, p.ContinuedFrom = "", 0, "", ""
	if p.Title == "" {
		p.Title = "Fork of " + src.Title
	}
	c, err := NewConversation(p)
	if err != nil {
		return Conversation{}, nil, fmt.Errorf("fork %s: %w", src.ID, err)
	}
	c.ForkedFrom = src.ID
	msgs := make([]Message, cut)
	for j, m := range history[:cut] {
		m.Seq = uint64(j)
		msgs[j] = m
		if m.Kind == KindAssistant && m.Usage != nil && m.Usage.Total() > 0 {
			c.Usage = *m.Usage
		}
	}
	c.NextSeq, c.Copied = uint64(cut), uint64(cut)
	if err := ValidateHistory(msgs, false); err != nil {
		return Conversation{}, nil, fmt.Errorf("fork %s from message %d: %w", src.ID, at, err)
	}
	return c, msgs, nil
}
