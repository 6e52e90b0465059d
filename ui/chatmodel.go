package ui

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/transcript"
)

// rowKind says how a chat row is drawn.
type rowKind int

const (
	rowUser rowKind = iota + 1
	rowAssistant
	rowTool
	rowAgents
	rowSystem
	rowError
	rowContinuation
	rowStreaming
	rowApproval
	rowNotice
	// rowThinking is a thinking model's reasoning (thinking.go).
	rowThinking
	// rowCutOff follows a reply that ended early: why, and (for the output limit) a way to
	// ask the model to go on (issue 13).
	rowCutOff
	// rowInterrupted is the notice under a turn the app stopped in, with Retry (issue 25).
	rowInterrupted
)

// toolPhase is where a tool call stands, for its row.
type toolPhase int

const (
	toolQueued toolPhase = iota
	toolRunning
	toolDone
)

// row is one entry of the chat log. Rows are owned by the UI goroutine. A row's key never
// changes; ver grows whenever what the row shows changes, so the list re-draws and re-measures
// exactly the rows that changed.
type row struct {
	kind rowKind
	key  string
	ver  int
	// found caches findTexts for the row's version foundVer-1 (rendering a reply's Markdown
	// for every row on every keystroke of Find would be slow in a long conversation).
	found    []string
	foundVer int
	// seq is the sequence of the message the row shows (for a tool row, of the call's
	// message), and resultSeq that of its result: a search hit opens the conversation there.
	seq, resultSeq uint64

	// msg is the message a user, assistant, system, error or continuation row shows.
	msg *domain.Message
	// call and result belong to tool and sub-agent rows.
	call   domain.ToolCall
	result *domain.ToolResult
	phase  toolPhase
	// outcomes are the live sub-agent outcomes while spawn_agents waits.
	outcomes []domain.SubAgentOutcome
	// text is streamed text, an approval reason or a notice.
	text  string
	exec  domain.ExecID
	level actors.NoticeLevel
	at    time.Time
	// expanded is the person's choice to see a tool's output or a reasoning; it lives in the
	// model so that it survives the recycling of list items.
	expanded bool
	// superseded marks a cut-off (or "Not answered") notice that later messages followed:
	// Continue (Retry) would no longer continue that reply (retry that turn), so it is
	// offered only on the latest.
	superseded bool
	// answered marks a reasoning whose answer has started, which closed it once.
	answered bool
	// usage is what the reply took and cost, shown under the last row of the reply (issue
	// 27): its text, or its last tool call when it called tools.
	usage string
}

func (r *row) touch() { r.ver++ }

// chatModel turns a conversation's messages and live state into rows: committed rows in
// message order, then live rows (streamed text, the approval card) at the end. A tool result
// does not get a row of its own: it completes the row of its call.
type chatModel struct {
	rows   []*row
	byCall map[string]*row
	tail   []*row
	// next is the sequence number expected next; older messages are duplicates from a
	// snapshot and its overlapping events.
	next uint64
	// running is the row of the tool or sub-agent batch in progress, if any.
	running *row
	stream  *row
	think   *row
	approve *row
	notices int
	// cutOff is the latest cut-off notice while nothing has followed it.
	cutOff *row
	// stopped is the latest "Not answered" notice while nothing has followed it.
	stopped *row
}

func newChatModel() *chatModel {
	return &chatModel{byCall: map[string]*row{}}
}

func (m *chatModel) len() int { return len(m.rows) + len(m.tail) }

func (m *chatModel) at(i int) *row {
	if i < len(m.rows) {
		return m.rows[i]
	}
	if i-len(m.rows) < len(m.tail) {
		return m.tail[i-len(m.rows)]
	}
	return nil
}

// addMessage adds one committed message and reports whether anything changed.
func (m *chatModel) addMessage(msg domain.Message) bool {
	if msg.Seq < m.next {
		return false
	}
	m.next = msg.Seq + 1
	if m.cutOff != nil {
		m.cutOff.superseded = true
		m.cutOff.touch()
		m.cutOff = nil
	}
	if m.stopped != nil {
		m.stopped.superseded = true
		m.stopped.touch()
		m.stopped = nil
	}
	p := &msg
	key := "m" + strconv.FormatUint(msg.Seq, 10)
	switch msg.Kind {
	case domain.KindUser:
		m.rows = append(m.rows, &row{kind: rowUser, key: key, msg: p, at: msg.At, seq: msg.Seq})
	case domain.KindAssistant:
		m.addCommittedReasoning(p, key)
		first := len(m.rows)
		if strings.TrimSpace(msg.Text) != "" {
			m.rows = append(m.rows, &row{kind: rowAssistant, key: key, msg: p, at: msg.At, seq: msg.Seq})
		}
		for _, c := range msg.ToolCalls {
			kind := rowTool
			if c.Name == domain.ToolSpawnAgents {
				kind = rowAgents
			}
			r := &row{kind: kind, key: "c" + key + ":" + c.ID, call: c, at: msg.At, seq: msg.Seq}
			m.rows = append(m.rows, r)
			m.byCall[c.ID] = r
		}
		if u := msg.Usage; u != nil && u.Total() > 0 && len(m.rows) > first {
			m.rows[len(m.rows)-1].usage = transcript.UsageLine(*u)
		}
		if msg.StopReason != "" {
			m.cutOff = &row{kind: rowCutOff, key: "x" + key, msg: p, at: msg.At}
			m.rows = append(m.rows, m.cutOff)
		}
		// The reply has landed: the streamed text and reasoning it replaces go away.
		m.dropTail(&m.stream)
		m.dropTail(&m.think)
	case domain.KindToolResult:
		res := msg.ToolResult
		if r, ok := m.byCall[res.CallID]; ok {
			r.result, r.phase, r.resultSeq = res, toolDone, msg.Seq
			r.touch()
			if m.running == r {
				m.running = nil
			}
			return true
		}
		// A result whose call is not in view (it cannot happen with a valid history) is still
		// shown rather than lost.
		m.rows = append(m.rows, &row{kind: rowTool, key: key, call: domain.ToolCall{ID: res.CallID, Name: res.Name}, result: res, phase: toolDone, at: msg.At, seq: msg.Seq, resultSeq: msg.Seq})
	case domain.KindSystem:
		m.rows = append(m.rows, &row{kind: rowSystem, key: key, msg: p, at: msg.At, seq: msg.Seq})
	case domain.KindError:
		if actors.IsInterruptedNotice(msg) {
			m.stopped = &row{kind: rowInterrupted, key: key, msg: p, at: msg.At, seq: msg.Seq}
			m.rows = append(m.rows, m.stopped)
			break
		}
		m.rows = append(m.rows, &row{kind: rowError, key: key, msg: p, at: msg.At, seq: msg.Seq})
	case domain.KindContinuation:
		m.rows = append(m.rows, &row{kind: rowContinuation, key: key, msg: p, at: msg.At, seq: msg.Seq})
		m.dropTail(&m.stream)
		m.dropTail(&m.think)
	default:
		m.rows = append(m.rows, &row{kind: rowSystem, key: key, msg: p, at: msg.At, seq: msg.Seq})
	}
	return true
}

// setState updates the live parts from the conversation's state: the running tool, the
// sub-agent outcomes, the approval card. Streamed text is cleared when no request is in
// flight any more.
func (m *chatModel) setState(st domain.State) {
	var running *row
	switch s := st.(type) {
	case domain.ToolExecuting:
		running = m.byCall[s.Current.ID]
	case domain.AwaitingSubAgents:
		running = m.byCall[s.Call.ID]
		if running != nil && !slices.Equal(running.outcomes, s.Outcomes) {
			running.outcomes = slices.Clone(s.Outcomes)
			running.touch()
		}
	case domain.AwaitingModeApproval:
		running = m.byCall[s.Call.ID]
	}
	if m.running != running {
		if m.running != nil && m.running.phase == toolRunning {
			m.running.phase = toolQueued
			m.running.touch()
		}
		m.running = running
	}
	if running != nil && running.phase != toolRunning {
		running.phase = toolRunning
		running.touch()
	}

	if a, ok := st.(domain.AwaitingModeApproval); ok {
		if m.approve == nil || m.approve.exec != a.Exec {
			m.dropTail(&m.approve)
			m.approve = &row{kind: rowApproval, key: "approval:" + strconv.FormatUint(uint64(a.Exec), 10), text: a.Reason, exec: a.Exec}
			m.tail = append(m.tail, m.approve)
		}
	} else {
		m.dropTail(&m.approve)
	}

	switch st.(type) {
	case domain.LLMRequesting, domain.AwaitingContinuation:
	default:
		m.dropTail(&m.stream)
		m.dropTail(&m.think)
	}
}

// addDelta appends streamed text of the request exec; text of another request starts over.
func (m *chatModel) addDelta(exec domain.ExecID, text string) {
	if m.stream != nil && m.stream.exec != exec {
		m.dropTail(&m.stream)
	}
	if m.stream == nil {
		m.stream = &row{kind: rowStreaming, key: "stream:" + strconv.FormatUint(uint64(exec), 10), exec: exec}
		// Streamed text goes after the reasoning and before the approval card, which is
		// always last.
		at := 0
		if m.think != nil && m.think.exec == exec {
			at = 1
		}
		m.tail = slices.Insert(m.tail, at, m.stream)
	}
	m.answerStarted(exec)
	m.stream.text += text
	m.stream.touch()
}

// addNotice shows a runtime notice that is not part of the history.
func (m *chatModel) addNotice(level actors.NoticeLevel, text string, at time.Time) {
	m.notices++
	m.rows = append(m.rows, &row{kind: rowNotice, key: "n" + strconv.Itoa(m.notices), text: text, level: level, at: at})
}

func (m *chatModel) dropTail(p **row) {
	if *p == nil {
		return
	}
	if i := slices.Index(m.tail, *p); i >= 0 {
		m.tail = slices.Delete(m.tail, i, i+1)
	}
	*p = nil
}

// rowOf returns the index of the row that shows message seq: its own row, the tool row that
// holds it as a result, or else the last row before it (a message without a row of its own,
// such as an assistant reply that only called tools).
func (m *chatModel) rowOf(seq uint64) int {
	best := -1
	for i, r := range m.rows {
		if r.kind == rowNotice {
			continue
		}
		if r.seq == seq || (r.result != nil && r.resultSeq == seq) {
			return i
		}
		if r.seq <= seq {
			best = i
		}
	}
	return best
}

// find returns the indices of the rows that show q, in any case (findmarks.go says which
// texts count).
func (m *chatModel) find(q string) []int {
	q = strings.TrimSpace(q)
	if q == "" {
		return nil
	}
	var hits []int
	for i := 0; i < m.len(); i++ {
		if matchesIn(m.at(i).findTexts(), q) {
			hits = append(hits, i)
		}
	}
	return hits
}
