package ui

import (
	"bytes"
	"fmt"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/transcript"
)

// convState is what the window knows of one conversation. It is owned by the UI goroutine.
type convState struct {
	id string
	// progress is the latest progress report of a tool call (an MCP server's); it counts
	// only while its Exec is the running one.
	progress actors.ToolProgress
	// now is the window's clock (Deps.Now), which stamps what the events do not carry.
	now func() time.Time
	// conv is the latest known record; until the first snapshot or state event only the
	// fields of a Summary are filled and hasState is false.
	conv     domain.Conversation
	hasState bool
	// listKind is the state kind from the conversation list, until a state is known.
	listKind domain.StateKind
	// listed is true for conversations the sidebar shows: user-initiated ones.
	listed bool
	// unread says a turn ended that the person has not seen yet (attention.go).
	unread bool
	// mainView is this conversation's view in the main window, made when first opened.
	mainView *chatView
	// since is when the current state began, for elapsed times and retry countdowns.
	since time.Time

	// loaded is true once a snapshot has filled the model; events that arrive while it loads
	// wait in early and are applied after it, oldest first.
	loaded, loading bool
	// slowLoad says the load has taken long enough to say so (chatopen.go).
	slowLoad bool
	early    []actors.Event
	msgs     []domain.Message
	model    *chatModel

	draft draft
	// jumpTo is the message a search hit opened the conversation at, until it is in view.
	jumpTo *uint64
	// jumpWords are the words of the search that found it, highlighted there.
	jumpWords string
	// views are the chat views showing this conversation (the main window, a sub-agent window).
	views []*chatView
}

// draft is the composer's content for one conversation; it survives switching.
type draft struct {
	text string
	atts []*attachment
}

// find is the attachment with these bytes, or nil.
func (d *draft) find(data []byte) *attachment {
	for _, a := range d.atts {
		if bytes.Equal(a.data, data) {
			return a
		}
	}
	return nil
}

func newConvState(id string, now func() time.Time) *convState {
	return &convState{id: id, now: now, model: newChatModel()}
}

func summaryConv(s Summary) domain.Conversation {
	return domain.Conversation{ID: s.ID, Title: s.Title, Cwd: s.Cwd, Model: s.Model, Mode: s.Mode,
		Usage: s.Usage, ContextWindow: s.ContextWindow, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt,
		Archived: s.Archived, ContinuedFrom: s.ContinuedFrom}
}

// stateKind is the state's kind even when only a summary is known.
func (cs *convState) stateKind(fallback domain.StateKind) domain.StateKind {
	if cs.hasState && cs.conv.State != nil {
		return cs.conv.State.Kind()
	}
	return fallback
}

// setConv records a newer conversation record; since moves when the state changed in a way
// the status bar shows (another state, execution, tool call or retry phase).
func (cs *convState) setConv(c domain.Conversation, at time.Time) {
	if !cs.hasState || stateKey(c.State) != stateKey(cs.conv.State) {
		if at.IsZero() {
			at = c.UpdatedAt
		}
		cs.since = at
	}
	cs.conv = c
	cs.hasState = c.State != nil
	if cs.hasState {
		cs.model.setState(c.State)
	}
}

// stateKey identifies a state for elapsed-time purposes.
func stateKey(s domain.State) string {
	if s == nil {
		return ""
	}
	exec, _ := domain.CurrentExec(s)
	key := fmt.Sprintf("%s/%d", s.Kind(), exec)
	switch st := s.(type) {
	case domain.ToolExecuting:
		key += "/" + st.Current.ID
	case domain.LLMRequesting:
		key += fmt.Sprintf("/%d/%t", st.Attempt, st.RetryPending)
	case domain.AwaitingContinuation:
		key += fmt.Sprintf("/%d/%t", st.Attempt, st.RetryPending)
	}
	return key
}

// busy reports whether the agent works, so Stop applies and Send waits.
func (cs *convState) busy() bool { return cs.hasState && domain.Busy(cs.conv.State) }

// exhausted reports the read-only end state (REQ-BED-021).
func (cs *convState) exhausted() (domain.ContextExhausted, bool) {
	st, ok := cs.conv.State.(domain.ContextExhausted)
	return st, ok && cs.hasState
}

// applyEvent updates the model with one event of this conversation and reports whether the
// chat rows changed.
func (cs *convState) applyEvent(ev actors.Event) bool {
	if cs.loading && !cs.loaded {
		cs.early = append(cs.early, ev)
		return false
	}
	switch e := ev.(type) {
	case actors.StateChanged:
		cs.setConv(e.Conv, e.At)
		return cs.loaded
	case actors.MessageCommitted:
		if !cs.loaded {
			return false
		}
		if cs.model.addMessage(e.Message) {
			cs.msgs = append(cs.msgs, e.Message)
			return true
		}
	case actors.TextDelta:
		if !cs.loaded {
			return false
		}
		// Only text of the request in flight is shown (a stopped request's late text is not).
		if cur, ok := domain.CurrentExec(cs.conv.State); ok && cur == e.Exec && cs.hasState {
			if e.Reasoning {
				cs.model.addReasoning(e.Exec, e.Text)
			} else {
				cs.model.addDelta(e.Exec, e.Text)
			}
			return true
		}
	case actors.ToolProgress:
		if cur, ok := domain.CurrentExec(cs.conv.State); ok && cur == e.Exec && cs.hasState {
			cs.progress = e
		}
	case actors.Notice:
		if cs.loaded {
			cs.model.addNotice(e.Level, e.Text, cs.now())
			return true
		}
	case actors.HookRan:
		// A hook's output, refusal or failure, shown in the transcript like a notice.
		if cs.loaded {
			level := actors.NoticeInfo
			if e.Result.Blocked || e.Result.TimedOut || e.Result.Err != "" || e.Result.Exit != 0 {
				level = actors.NoticeWarning
			}
			cs.model.addNotice(level, e.Text, cs.now())
			return true
		}
	}
	return false
}

// applySnapshot fills the model from a snapshot, then replays what arrived meanwhile.
func (cs *convState) applySnapshot(s Snapshot, at time.Time) {
	cs.model = newChatModel()
	cs.msgs = cs.msgs[:0]
	for _, m := range s.Messages {
		if cs.model.addMessage(m) {
			cs.msgs = append(cs.msgs, m)
		}
	}
	if at.IsZero() {
		at = s.Conv.UpdatedAt
	}
	cs.hasState = false
	cs.setConv(s.Conv, at)
	cs.loaded, cs.loading = true, false
	early := cs.early
	cs.early = nil
	for _, ev := range early {
		cs.applyEvent(ev)
	}
}

// progressNote is the running tool call's latest progress, for the status bar, or "".
func (cs *convState) progressNote() string {
	if cur, ok := domain.CurrentExec(cs.conv.State); !ok || cur != cs.progress.Exec || cs.progress.ConvID == "" {
		return ""
	}
	if _, running := cs.conv.State.(domain.ToolExecuting); !running {
		return ""
	}
	return transcript.Progress(cs.progress.Progress, cs.progress.Total, cs.progress.Message)
}
