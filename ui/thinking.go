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

// addCommittedReasoning adds the closed block of a committed reply, when its reasoning has
// anything to read (an encrypted-only reasoning has not).
func (m *chatModel) addCommittedReasoning(msg *domain.Message, key string) {
	if msg.Reasoning == nil || strings.TrimSpace(msg.Reasoning.Text) == "" {
		return
	}
	m.rows = append(m.rows, &row{kind: rowThinking, key: "r" + key, msg: msg, text: msg.Reasoning.Text, at: msg.At, answered: true})
}

// reasoningTokens is the size of a block's reasoning: what the provider reported for a
// committed reply, else an estimate from the text.
func reasoningTokens(r *row) int {
	if r.msg != nil && r.msg.Usage != nil && r.msg.Usage.ReasoningTokens > 0 {
		return r.msg.Usage.ReasoningTokens
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
// in small, dimmed italics. Like streamPart, the finished paragraphs sit in one RichText so
// that a long reasoning is not wrapped again on every delta.
type thinkingPart struct {
	cv         *chatView
	bound      *row
	toggle     *widget.Button
	done, tail *widget.RichText
	doneText   string
	stripe     *canvas.Rectangle
	body       *fyne.Container
	obj        fyne.CanvasObject
}

func newThinkingPart(cv *chatView) *thinkingPart {
	p := &thinkingPart{cv: cv, done: newWrapText(), tail: newWrapText(), stripe: canvas.NewRectangle(color.Transparent)}
	p.toggle = widget.NewButtonWithIcon("", theme.MenuDropDownIcon(), func() {
		if p.bound != nil {
			p.bound.expanded = !p.bound.expanded
			p.bound.touch()
			p.cv.rowChanged()
		}
	})
	p.toggle.Importance = widget.LowImportance
	p.toggle.Alignment = widget.ButtonAlignLeading
	// A thin bar on the left marks the reasoning as an aside of the reply below it.
	p.body = container.New(insetBy(fyne.NewSize(pad()*2, 0), 2), none(), p.stripe, container.New(&column{}, p.done, p.tail))
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
		setQuietMarkdown(p.done, done)
		p.done.Hidden = done == ""
	}
	if r.msg == nil && !r.answered {
		tail += " ▍"
	}
	setQuietMarkdown(p.tail, tail)
}

// thinkingHeader is the block's title: what the model is doing or did, and how much.
func thinkingHeader(r *row) string {
	n := transcript.Tokens(reasoningTokens(r))
	if r.msg == nil && !r.answered {
		return "Thinking… (" + n + " tokens)"
	}
	return "Thought (" + n + " tokens)"
}

// setQuietMarkdown shows reasoning, which models write in Markdown ("**Planning**", lists),
// smaller, dimmer and in italics, so that it never competes with the answer.
func setQuietMarkdown(t *widget.RichText, s string) {
	t.ParseMarkdown(s)
	quieten(t.Segments)
	t.Refresh()
}

func quieten(segs []widget.RichTextSegment) {
	for _, seg := range segs {
		switch x := seg.(type) {
		case *widget.TextSegment:
			x.Style.ColorName = theme.ColorNamePlaceHolder
			x.Style.SizeName = theme.SizeNameCaptionText
			x.Style.TextStyle.Italic = !x.Style.TextStyle.Monospace
		case *widget.ListSegment:
			quieten(x.Items)
		case *widget.ParagraphSegment:
			quieten(x.Texts)
		}
	}
}
