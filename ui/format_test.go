package ui

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/transcript"
)

func TestFormatting(t *testing.T) {
	cases := []struct{ name, got, want string }{
		{"tokens small", transcript.Tokens(950), "950"},
		{"tokens k", transcript.Tokens(12_345), "12.3k"},
		{"tokens round k", transcript.Tokens(128_000), "128k"},
		{"tokens M", transcript.Tokens(1_047_576), "1.05M"},
		{"tokens exact M", transcript.Tokens(1_000_000), "1M"},
		{"meter", meterText(domain.Usage{InputTokens: 80_000, OutputTokens: 5_000}, 100_000), "85k / 100k tokens (85%)"},
		{"today", listTime(testNow.Add(-time.Hour), testNow), "14:09"},
		{"this week", listTime(testNow.AddDate(0, 0, -2), testNow), testNow.AddDate(0, 0, -2).Format("Mon")},
		{"this year", listTime(time.Date(2025, 1, 2, 10, 0, 0, 0, time.Local), testNow), "2 Jan"},
		{"older", listTime(time.Date(2023, 1, 2, 10, 0, 0, 0, time.Local), testNow), "2 Jan 2023"},
		{"title", transcript.Title("  ", "/home/ada/src/parser"), "parser"},
		{"untitled", transcript.Title("", ""), "New conversation"},
		{"file name", fileName("Fix: the parser / test?"), "Fix-the-parser-test"},
		{"one line", transcript.OneLine("a\n  b\tc", 10), "a b c"},
		{"cut", transcript.OneLine("abcdefghij", 5), "abcd…"},
		{"short path", shortPath("/home/ada/src/parser"), "…/src/parser"},
		// Issue 28: no ellipsis where nothing was cut.
		{"short path kept", shortPath("/tmp/work"), "/tmp/work"},
		{"short path kept, slash", shortPath("/tmp/work/"), "/tmp/work/"},
		{"relative path cut", shortPath("src/a/b"), "…/a/b"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.got != c.want {
				t.Errorf("got %q, want %q", c.got, c.want)
			}
		})
	}
}

func TestSendErrorText(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"busy", fmt.Errorf("send: %w", domain.ErrAgentBusy), "The agent is busy"},
		{"exhausted REQ_BED_021", fmt.Errorf("send: %w", domain.ErrContextExhausted), "context is full"},
		{"empty", domain.ErrEmptyMessage, "Type a message"},
		{"other", errors.New("image photo.png: not a PNG"), "Could not send: image photo.png: not a PNG"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := sendErrorText(c.err); !strings.Contains(got, c.want) {
				t.Errorf("got %q, want it to contain %q", got, c.want)
			}
		})
	}
}

func TestSplitStream(t *testing.T) {
	cases := []struct{ name, in, done, tail string }{
		{"one paragraph", "Hello wor", "", "Hello wor"},
		{"two paragraphs", "First.\n\nSecond is bei", "First.", "Second is bei"},
		{"three", "A.\n\nB.\n\nC", "A.\n\nB.", "C"},
		{"inside an open fence", "Text.\n\n```go\nfunc a() {\n\n", "Text.", "```go\nfunc a() {\n\n"},
		{"after a closed fence", "```\nx\n\ny\n```\n\nAfter", "```\nx\n\ny\n```", "After"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			done, tail := splitStream(c.in)
			if done != c.done || tail != c.tail {
				t.Errorf("got (%q, %q), want (%q, %q)", done, tail, c.done, c.tail)
			}
		})
	}
}

func TestChatModel(t *testing.T) {
	m := newChatModel()
	add := func(msg domain.Message) {
		msg.Seq = m.next
		m.addMessage(msg)
	}
	add(domain.Message{Kind: domain.KindUser, Text: "hi"})
	m.setState(domain.LLMRequesting{Exec: 1, Attempt: 1})
	m.addDelta(1, "Hel")
	m.addDelta(1, "lo")
	if m.len() != 2 || m.at(1).kind != rowStreaming || m.at(1).text != "Hello" {
		t.Fatalf("streaming row: %d rows, last %+v", m.len(), m.at(1))
	}
	// Text of another request starts over (a stopped request's text is not mixed in).
	m.addDelta(2, "New")
	if m.at(1).text != "New" {
		t.Fatalf("stream after a new exec: %q", m.at(1).text)
	}
	add(domain.Message{Kind: domain.KindAssistant, Text: "Hello", ToolCalls: []domain.ToolCall{bashCall("a", "ls"), bashCall("b", "pwd")}})
	kinds := func() string {
		var b strings.Builder
		for i := 0; i < m.len(); i++ {
			fmt.Fprintf(&b, "%d ", m.at(i).kind)
		}
		return b.String()
	}
	want := fmt.Sprintf("%d %d %d %d ", rowUser, rowAssistant, rowTool, rowTool)
	if kinds() != want {
		t.Fatalf("rows %s, want %s (the stream replaced by the reply)", kinds(), want)
	}
	m.setState(domain.ToolExecuting{Exec: 3, Current: bashCall("a", "ls"), Round: domain.Round{Remaining: []domain.ToolCall{bashCall("b", "pwd")}}})
	if m.at(2).phase != toolRunning || m.at(3).phase != toolQueued {
		t.Fatalf("phases %v %v", m.at(2).phase, m.at(3).phase)
	}
	ver := m.at(2).ver
	add(domain.Message{Kind: domain.KindToolResult, ToolResult: &domain.ToolResult{CallID: "a", Name: "bash", Outcome: domain.OutcomeSuccess, Content: "x"}})
	if m.len() != 4 || m.at(2).phase != toolDone || m.at(2).ver == ver {
		t.Fatalf("the result did not complete its call's row: %+v", m.at(2))
	}
	// A duplicate from an overlapping snapshot changes nothing.
	if m.addMessage(domain.Message{Seq: 0, Kind: domain.KindUser, Text: "dup"}) {
		t.Error("a duplicate message was added")
	}
	m.setState(domain.AwaitingModeApproval{Exec: 9, Reason: "write", Call: upgradeCall("u", "write")})
	if r := m.at(m.len() - 1); r.kind != rowApproval || r.exec != 9 || r.text != "write" {
		t.Fatalf("approval row %+v", r)
	}
	m.setState(domain.Idle{})
	if r := m.at(m.len() - 1); r.kind == rowApproval {
		t.Error("the approval row stayed after the decision")
	}
	m.addNotice(actors.NoticeWarning, "restarted", testNow)
	if hits := m.find("RESTART"); len(hits) != 1 || m.at(hits[0]).kind != rowNotice {
		t.Errorf("find: %v", hits)
	}
	if hits := m.find("pwd"); len(hits) != 1 {
		t.Errorf("find in tool arguments: %v", hits)
	}
}

func TestPumpCoalescesDeltasAndKeepsOrder_REQ_BED_011(t *testing.T) {
	q := newQueue()
	var batches [][]actors.Event
	src := &fakeSub{ch: make(chan actors.Event, 1000)}
	p := newPump(src, q.push, func(b []actors.Event) { batches = append(batches, b) })
	p.interval = time.Hour // only a state change flushes
	for i := 0; i < 500; i++ {
		p.push(actors.TextDelta{ConvID: "c", Exec: 1, Text: "x"})
	}
	p.push(actors.MessageCommitted{ConvID: "c", Message: domain.Message{Seq: 1, Kind: domain.KindAssistant, Text: "done"}})
	p.push(actors.StateChanged{Conv: domain.Conversation{ID: "c", State: domain.Idle{}}})
	q.drain()
	if len(batches) != 1 {
		t.Fatalf("%d batches, want 1", len(batches))
	}
	b := batches[0]
	if len(b) != 3 {
		t.Fatalf("batch of %d events, want the joined delta, the message and the state", len(b))
	}
	if d, ok := b[0].(actors.TextDelta); !ok || len(d.Text) != 500 {
		t.Errorf("first event %T %v", b[0], b[0])
	}
	if _, ok := b[1].(actors.MessageCommitted); !ok {
		t.Errorf("second event %T", b[1])
	}
	// Deltas alone wait for the interval: they do not each cause a repaint.
	p.interval = 20 * time.Millisecond
	for i := 0; i < 100; i++ {
		p.push(actors.TextDelta{ConvID: "c", Exec: 2, Text: "y"})
	}
	deadline := time.After(5 * time.Second)
	for len(batches) < 2 {
		select {
		case <-q.signal:
			q.drain()
		case <-deadline:
			t.Fatal("the delta batch never flushed")
		}
	}
	if len(batches) != 2 || len(batches[1]) != 1 {
		t.Fatalf("batches %d, last of %d events", len(batches), len(batches[len(batches)-1]))
	}
	src.Close()
	go p.run()
	<-p.done
}

// Issue 39 (the round in the window): a state change after a quiet moment is applied at once,
// but those that follow it within deltaInterval (tool rounds a few milliseconds apart) wait and
// go together, so the window is redrawn about ten times a second however fast the rounds are.
func TestPumpAppliesABurstOfStateChangesTogether(t *testing.T) {
	q := newQueue()
	var batches [][]actors.Event
	src := &fakeSub{ch: make(chan actors.Event, 1000)}
	p := newPump(src, q.push, func(b []actors.Event) { batches = append(batches, b) })
	p.interval = time.Hour
	p.push(actors.StateChanged{Conv: domain.Conversation{ID: "c", State: domain.LLMRequesting{Exec: 1}}})
	q.drain()
	if len(batches) != 1 {
		t.Fatalf("the first state change after a quiet moment waited: %d batches", len(batches))
	}
	for i := range 40 {
		p.push(actors.StateChanged{Conv: domain.Conversation{ID: "c", State: domain.LLMRequesting{Exec: domain.ExecID(i + 2)}}})
	}
	q.drain()
	if len(batches) != 1 {
		t.Fatalf("state changes right after a flush were applied at once: %d batches", len(batches))
	}
	// When the interval has passed (its timer, here called by hand) they go together.
	p.mu.Lock()
	gen := p.coolGen
	p.mu.Unlock()
	p.push(actors.StateChanged{Conv: domain.Conversation{ID: "c", State: domain.Idle{}}})
	q.drain()
	if len(batches) != 1 {
		t.Fatalf("a state change during the cool-down was applied at once: %d batches", len(batches))
	}
	p.cooled(gen)
	q.drain()
	if len(batches) != 2 || len(batches[1]) != 41 {
		t.Fatalf("%d batches, the second of %d events; want 2, the second of 41", len(batches), len(batches[len(batches)-1]))
	}
	src.Close()
	go p.run()
	<-p.done
}
