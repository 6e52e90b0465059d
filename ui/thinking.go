package ui

import (
	"image/color"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/transcript"
	"github.com/phoenix-desktop/phoenix/ui/button"
	"github.com/phoenix-desktop/phoenix/ui/markdown"
)

// This file is the "Thinking" block: a thinking model's reasoning, shown above its answer in
// a quieter style. While the model thinks the block is open and grows; once the answer
// starts it closes, and a click opens it again. A committed reply with reasoning gets a
// closed block of its own above its text.

// addReasoning appends streamed reasoning of the request exec.
func (m *chatModel) addReasoning(exec domain.ExecID, text string) {
	if m.think != nil && m.think.exec != exec {
		m.dropTail(&m.think)
	}
	if m.think == nil {
		// Reasoning that comes after the answer has begun starts closed, like any other.
		answered := m.stream != nil && m.stream.exec == exec
		m.think = &row{kind: rowThinking, key: "think:" + strconv.FormatUint(uint64(exec), 10), exec: exec,
			expanded: !answered, answered: answered}
		// Reasoning comes before the answer, and before the approval card.
		m.tail = append([]*row{m.think}, m.tail...)
	}
	m.think.text += text
	m.think.touch()
}

// answerStarted closes the live block the first time the answer of exec streams in. Later
// text leaves it as the person set it.
func (m *chatModel) answerStarted(exec domain.ExecID) {
	if t := m.think; t != nil && t.exec == exec && !t.answered {
		t.answered, t.expanded = true, false
		t.touch()
	}
}

// hiddenReasoningNote is the body of a block whose provider sent its reasoning encrypted
// only (OpenAI's and Gemini's thinking models through a gateway): there is nothing to read,
// but the person should know the model thought, and for how long.
const hiddenReasoningNote = "*The provider keeps this model's reasoning hidden. It goes back, encrypted, with the next request, so the model keeps its train of thought.*"

// hiddenReasoning reports whether a reply's reasoning came encrypted only: there is some,
// but no text to read.
func hiddenReasoning(msg *domain.Message) bool {
	return !msg.Reasoning.Empty() && strings.TrimSpace(msg.Reasoning.Text) == ""
}

// addCommittedReasoning adds the closed block of a committed reply that has reasoning: its
// text, or a note when the provider sent it encrypted only.
func (m *chatModel) addCommittedReasoning(msg *domain.Message, key string) {
	if msg.Reasoning == nil || msg.Reasoning.Empty() {
		return
	}
	text := msg.Reasoning.Text
	if hiddenReasoning(msg) {
		text = hiddenReasoningNote
	}
	m.rows = append(m.rows, &row{kind: rowThinking, key: "r" + key, msg: msg, text: text, at: msg.At, answered: true})
}

// reasoningTokens is the size of a block's reasoning: what the provider reported for a
// committed reply, else an estimate from the text.
func reasoningTokens(r *row) int {
	if r.msg != nil && r.msg.Usage != nil && r.msg.Usage.ReasoningTokens > 0 {
		return r.msg.Usage.ReasoningTokens
	}
	if r.msg != nil && hiddenReasoning(r.msg) {
		return 0
	}
	return domain.EstimateTokens(r.text, 0)
}

// status is the status bar of the conversation: transcript.Status, with the size of the
// reasoning while the model is still thinking (before its answer starts).
func (cs *convState) status(now time.Time) string {
	s := transcript.Status(cs.conv, cs.since, now)
	st, ok := cs.conv.State.(domain.LLMRequesting)
	if t := cs.model.think; ok && !st.RetryPending && st.Attempt <= 1 && t != nil && t.exec == st.Exec && !t.answered {
		return transcript.Thinking(reasoningTokens(t))
	}
	return s
}

// thinkingPart draws a Thinking block: a header that opens and closes it, and the reasoning
// in the chat's Markdown, quiet (small, dimmed italics) and selectable like a reply. Like
// streamPart, the finished paragraphs sit in one view so that a long reasoning is not parsed
// and wrapped again on every delta.
type thinkingPart struct {
	cv         *chatView
	bound      *row
	toggle     *button.Button
	done, tail *markdown.View
	doneText   string
	stripe     *canvas.Rectangle
	body       *fyne.Container
	obj        fyne.CanvasObject
}

func newThinkingPart(cv *chatView) *thinkingPart {
	p := &thinkingPart{cv: cv, done: cv.newQuietMarkdown(), tail: cv.newQuietMarkdown(), stripe: canvas.NewRectangle(color.Transparent)}
	p.toggle = button.NewWithIcon("", theme.MenuDropDownIcon(), func() {
		if p.bound != nil {
			p.bound.expanded = !p.bound.expanded
			p.bound.touch()
			p.cv.rowChanged()
		}
	})
	p.toggle.Importance = widget.LowImportance
	p.toggle.Alignment = widget.ButtonAlignLeading
	// A thin bar on the left marks the reasoning as an aside of the reply below it.
	// The text keeps the distance from the bar that a label keeps from its edge, and its
	// paragraphs the gap of the Markdown's own blocks (the streamed part splits them).
	text := container.New(insetBy(fyne.NewSize(theme.InnerPadding(), theme.InnerPadding()/2), 0),
		container.New(&column{Gap: 2 * pad()}, p.done, p.tail))
	p.body = container.New(insetBy(fyne.NewSize(pad()*2, 0), 2), none(), p.stripe, text)
	p.obj = container.New(insetBy(fyne.NewSize(pad(), 0), 0), container.New(&column{}, p.toggle, p.body))
	return p
}

func (p *thinkingPart) object() fyne.CanvasObject { return p.obj }

func (p *thinkingPart) bind(r *row) {
	p.bound = r
	p.toggle.SetText(thinkingHeader(r))
	if r.expanded {
		p.toggle.SetIcon(theme.MenuDropDownIcon())
	} else {
		p.toggle.SetIcon(theme.MenuExpandIcon())
	}
	p.body.Hidden = !r.expanded
	if !r.expanded {
		return
	}
	p.stripe.FillColor = withAlpha(theme.Color(theme.ColorNamePlaceHolder), 0x60)
	p.stripe.Refresh()
	done, tail := splitStream(r.text)
	if done != p.doneText {
		p.doneText = done
		p.done.SetMarkdown(done)
		p.done.Hidden = done == ""
	}
	if r.msg == nil && !r.answered {
		tail += " ▍"
	}
	p.tail.SetMarkdown(tail)
}

// thinkingHeader is the block's title: what the model is doing or did, and how much.
func thinkingHeader(r *row) string {
	tokens := reasoningTokens(r)
	n := transcript.Tokens(tokens)
	if r.msg == nil && !r.answered {
		return "Thinking… (" + n + " tokens)"
	}
	if r.msg != nil && hiddenReasoning(r.msg) {
		if tokens == 0 {
			return "Thought (hidden by the provider)"
		}
		return "Thought (" + n + " tokens, hidden by the provider)"
	}
	return "Thought (" + n + " tokens)"
}
