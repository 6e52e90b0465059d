package ui

import (
	"fmt"
	"image/color"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/transcript"
	"github.com/phoenix-desktop/phoenix/ui/markdown"
	"github.com/phoenix-desktop/phoenix/ui/measure"
)

// Limits on what a tool row shows of a result, so one huge output cannot slow the log down.
// The full text is in the Markdown export.
const (
	maxDetailLines = 300
	maxDetailBytes = 24 << 10
)

// part draws one kind of row. A rowView keeps one part per kind it has shown, so recycled
// list items do not rebuild their widgets.
type part interface {
	object() fyne.CanvasObject
	bind(r *row)
}

// rowView is the list item of the chat log.
type rowView struct {
	widget.BaseWidget
	cv    *chatView
	root  *fyne.Container
	parts map[rowKind]part
	// bound, boundVer and boundGen say what the view shows now, so that re-binding the same
	// row is free (widget.List re-binds every visible item on each refresh).
	bound    *row
	boundVer int
	boundGen int
}

func newRowView(cv *chatView) *rowView {
	// The root insets each row a little from its neighbours.
	v := &rowView{cv: cv, root: container.New(insetBy(fyne.NewSize(2, theme.Padding()*0.75), 0)), parts: map[rowKind]part{}}
	v.ExtendBaseWidget(v)
	return v
}

func (v *rowView) CreateRenderer() fyne.WidgetRenderer { return &rowRenderer{v: v} }

// rowRenderer gives an empty item the height of a typical row: widget.List uses the template's
// height for every row it has not measured yet, and a tiny estimate would make it bind
// thousands of rows at once when a long conversation opens.
type rowRenderer struct{ v *rowView }

func (r *rowRenderer) Layout(s fyne.Size) {
	r.v.root.Resize(s)
	r.v.cv.noteWidth(s.Width)
}
func (r *rowRenderer) MinSize() fyne.Size {
	if r.v.bound == nil {
		return fyne.NewSize(80, estimatedRowHeight)
	}
	return r.v.root.MinSize()
}
func (r *rowRenderer) Refresh()                     { r.v.root.Refresh() }
func (r *rowRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.v.root} }
func (r *rowRenderer) Destroy()                     {}

// estimatedRowHeight is the height assumed for rows not measured yet.
const estimatedRowHeight = 64

// bind shows r; it does nothing when r is already shown as it is.
func (v *rowView) bind(r *row) {
	gen := v.cv.m.gen
	if v.bound == r && v.boundVer == r.ver && v.boundGen == gen {
		return
	}
	p := v.parts[r.kind]
	if p == nil {
		p = v.newPart(r.kind)
		v.parts[r.kind] = p
	}
	p.bind(r)
	if len(v.root.Objects) != 1 || v.root.Objects[0] != p.object() {
		v.root.Objects = []fyne.CanvasObject{p.object()}
	}
	v.bound, v.boundVer, v.boundGen = r, r.ver, gen
	v.root.Refresh()
}

// heightAt measures the bound row at width w.
func (v *rowView) heightAt(w float32) float32 {
	return heightAt(v.root, w)
}

func (v *rowView) newPart(k rowKind) part {
	switch k {
	case rowUser:
		return newUserPart(v.cv)
	case rowAssistant:
		return newTextPart(v.cv)
	case rowStreaming:
		return newStreamPart(v.cv)
	case rowTool:
		return newToolPart(v.cv)
	case rowAgents:
		return newAgentsPart(v.cv)
	case rowContinuation:
		return newContinuationPart(v.cv)
	case rowApproval:
		return newApprovalPart(v.cv)
	case rowThinking:
		return newThinkingPart(v.cv)
	case rowCutOff:
		return newCutOffPart(v.cv)
	case rowInterrupted:
		return newInterruptedPart(v.cv)
	}
	return newNotePart()
}

// Helpers shared by the parts.

func pad() float32 { return theme.Padding() }

// none is an empty, hidden slot for layouts with fixed positions (containers must not hold nil).
func none() fyne.CanvasObject {
	r := canvas.NewRectangle(color.Transparent)
	r.Hide()
	return r
}

// tint colours a striped row: the stripe in the accent, the background in a wash of it.
func tint(stripe, bg *canvas.Rectangle, accent fyne.ThemeColorName) {
	stripe.FillColor = theme.Color(accent)
	bg.FillColor = withAlpha(theme.Color(accent), 0x18)
	stripe.Refresh()
	bg.Refresh()
}

func withAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: a}
}

func newWrapText() *widget.RichText {
	t := widget.NewRichText()
	t.Wrapping = fyne.TextWrapWord
	return t
}

// setPlain shows s as plain text in one style.
func setPlain(t *widget.RichText, s string, style widget.RichTextStyle) {
	t.Segments = []widget.RichTextSegment{&widget.TextSegment{Text: s, Style: style}}
	t.Refresh()
}

func captionStyle() widget.RichTextStyle {
	return widget.RichTextStyle{ColorName: theme.ColorNamePlaceHolder, SizeName: theme.SizeNameCaptionText, Inline: true}
}

func monoStyle() widget.RichTextStyle {
	return widget.RichTextStyle{TextStyle: fyne.TextStyle{Monospace: true}, Inline: true}
}

// card is a rounded rectangle behind padded content.
func card(bg *canvas.Rectangle, content fyne.CanvasObject) *fyne.Container {
	bg.CornerRadius = theme.SelectionRadiusSize() * 2
	p := pad()
	return container.New(insetBy(fyne.NewSize(p*2, p*1.5), 0), bg, content)
}

// userPart: the person's message, with image thumbnails.
type userPart struct {
	cv     *chatView
	bg     *canvas.Rectangle
	header *widget.RichText
	text   *widget.RichText
	thumbs *fyne.Container
	obj    fyne.CanvasObject
	// rewind restores the working tree as it was before this message's turn.
	rewind *widget.Button
	seq    uint64
}

func newUserPart(cv *chatView) *userPart {
	p := &userPart{cv: cv, bg: canvas.NewRectangle(color.Transparent), header: widget.NewRichText(), text: newWrapText(),
		thumbs: container.New(&flow{gap: pad()})}
	p.rewind = restoreButton("Rewind to here", func() { cv.m.proj.rewind(cv.cs, p.seq) })
	more := messageMenuButton(cv, func() uint64 { return p.seq }) // fork.go
	p.obj = card(p.bg, container.New(&column{}, container.New(&hbar{gap: pad()}, none(), p.header, container.NewHBox(p.rewind, more)), p.text, p.thumbs))
	return p
}

func (p *userPart) object() fyne.CanvasObject { return p.obj }

// speakerAt is a message's header: who wrote it and, when known, at what time ("You · 21:29").
func speakerAt(k domain.MessageKind, at time.Time) string {
	head := transcript.Speaker(k)
	if !at.IsZero() {
		head += " · " + at.Local().Format("15:04")
	}
	return head
}

func (p *userPart) bind(r *row) {
	p.bg.FillColor = withAlpha(theme.Color(theme.ColorNamePrimary), 0x24)
	p.bg.Refresh()
	setPlain(p.header, speakerAt(domain.KindUser, r.at), captionStyle())
	p.seq = r.msg.Seq
	_, canRewind := p.cv.m.proj.checkpointBefore(p.cv.cs.id, r.msg.Seq)
	p.rewind.Hidden = !canRewind || p.cv.readOnly
	p.text.Hidden = r.msg.Text == ""
	setPlain(p.text, r.msg.Text, widget.RichTextStyleParagraph)
	p.thumbs.Objects = p.thumbs.Objects[:0]
	for _, img := range r.msg.Images {
		p.thumbs.Objects = append(p.thumbs.Objects, p.cv.m.thumbnail(img.SHA256, img.Name, 96))
	}
	p.thumbs.Hidden = len(r.msg.Images) == 0
	p.thumbs.Refresh()
}

// textPart: assistant text as Markdown under an "Agent · 21:29" header like the person's,
// with a button that copies its Markdown source.
type textPart struct {
	header *widget.RichText
	text   *markdown.View
	usage  *usageLine
	source string
	obj    fyne.CanvasObject
	seq    uint64
}

func newTextPart(cv *chatView) *textPart {
	p := &textPart{header: widget.NewRichText(), text: cv.newMarkdown(),
		usage: newUsageLine(markdownInset().Width - theme.InnerPadding())}
	cp := widget.NewButtonWithIcon("", theme.ContentCopyIcon(), func() { copyText(p.source) })
	cp.Importance = widget.LowImportance
	more := messageMenuButton(cv, func() uint64 { return p.seq }) // fork.go
	// The header's text starts where the Markdown's does: a RichText pads its text by
	// InnerPadding, the Markdown view does not.
	in := markdownInset()
	p.obj = container.New(&column{},
		container.New(&measure.Inset{Left: in.Width - theme.InnerPadding(), Right: in.Width, Top: in.Height}, container.New(&hbar{gap: pad()}, none(), p.header, container.NewHBox(cp, more))),
		container.New(&measure.Inset{Left: in.Width, Right: in.Width, Bottom: in.Height}, p.text),
		p.usage.obj)
	return p
}

func (p *textPart) object() fyne.CanvasObject { return p.obj }

func (p *textPart) bind(r *row) {
	p.seq = r.msg.Seq
	setPlain(p.header, speakerAt(domain.KindAssistant, r.at), captionStyle())
	p.source = r.msg.Text
	p.text.SetMarkdown(r.msg.Text)
	p.usage.show(r.usage)
}

// markdownInset keeps rendered Markdown where the text of the other rows starts.
func markdownInset() fyne.Size {
	return fyne.NewSize(theme.InnerPadding()+pad(), theme.InnerPadding()/2)
}

// newMarkdown is a Markdown view for a chat row: the mouse wheel over its code blocks and
// tables still scrolls the chat, and a code block's Wrap toggle has its row measured again.
func (cv *chatView) newMarkdown() *markdown.View { return cv.markdownView(false) }

// newQuietMarkdown is newMarkdown in the quiet style of an aside (the model's reasoning).
func (cv *chatView) newQuietMarkdown() *markdown.View { return cv.markdownView(true) }

func (cv *chatView) markdownView(quiet bool) *markdown.View {
	return markdown.NewView(markdown.Options{
		OnScroll: func(ev *fyne.ScrollEvent) {
			cv.list.ScrollToOffset(cv.list.GetScrollOffset() - ev.Scrolled.DY)
		},
		OnHeightChange: cv.remeasure,
		Do:             cv.m.do,
		Quiet:          quiet,
	})
}

// copyText puts text on the clipboard (the copy buttons of whole messages).
func copyText(s string) { fyne.CurrentApp().Clipboard().SetContent(s) }

// streamPart shows streamed text as it grows. The finished paragraphs sit in one view that
// changes only when a paragraph ends (and then builds only the new blocks), and only the
// paragraph being written is parsed and laid out again on each repaint.
type streamPart struct {
	done, tail *markdown.View
	doneText   string
	obj        fyne.CanvasObject
}

func newStreamPart(cv *chatView) *streamPart {
	p := &streamPart{done: cv.newMarkdown(), tail: cv.newMarkdown()}
	p.done.Hide()
	p.obj = container.New(insetBy(markdownInset(), 0), container.New(&column{Gap: 2 * pad()}, p.done, p.tail))
	return p
}

func (p *streamPart) object() fyne.CanvasObject { return p.obj }

func (p *streamPart) bind(r *row) {
	done, tail := splitStream(r.text)
	if done != p.doneText {
		p.doneText = done
		p.done.SetMarkdown(done)
		p.done.Hidden = done == ""
	}
	p.tail.SetMarkdown(tail + " ▍")
}

// splitStream splits streamed Markdown before its last paragraph, never inside a code fence.
func splitStream(s string) (done, tail string) {
	for end := len(s); ; {
		i := strings.LastIndex(s[:end], "\n\n")
		if i <= 0 {
			return "", s
		}
		if strings.Count(s[:i], "```")%2 == 0 {
			return s[:i], strings.TrimLeft(s[i:], "\n")
		}
		end = i
	}
}

// toolPart: one tool call as a compact row that expands to its result or diff.
type toolPart struct {
	cv     *chatView
	bound  *row
	bg     *canvas.Rectangle
	icon   *widget.Icon
	name   *widget.Label
	arg    *widget.RichText
	toggle *widget.Button
	// undo restores the files this call changed, after showing the diff.
	undo    *widget.Button
	summary *widget.RichText
	details *markdown.View
	// detailBox insets the details to where RichText put its text.
	detailBox *fyne.Container
	usage     *usageLine
	obj       fyne.CanvasObject
}

func newToolPart(cv *chatView) *toolPart {
	p := &toolPart{cv: cv, bg: canvas.NewRectangle(color.Transparent), icon: widget.NewIcon(nil),
		name: widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		arg:  newWrapText(), summary: widget.NewRichText(), details: cv.newMarkdown()}
	p.toggle = widget.NewButton("Show output", func() {
		if p.bound != nil {
			p.bound.expanded = !p.bound.expanded
			p.bound.touch()
			p.cv.rowChanged()
		}
	})
	p.toggle.Importance = widget.LowImportance
	p.undo = restoreButton("Undo", func() {
		if p.bound != nil {
			cv.m.proj.undo(cv.cs, p.bound.call.ID)
		}
	})
	header := container.New(&hbar{gap: pad()}, container.NewHBox(p.icon, p.name), p.arg, container.NewHBox(p.undo, p.toggle))
	p.detailBox = container.New(insetBy(markdownInset(), 0), p.details)
	// The usage line is under the card, its words where the card's start.
	p.usage = newUsageLine(pad() * 2)
	p.obj = container.New(&column{}, card(p.bg, container.New(&column{}, header, p.summary, p.detailBox)), p.usage.obj)
	return p
}

func (p *toolPart) object() fyne.CanvasObject { return p.obj }

func (p *toolPart) bind(r *row) {
	p.bound = r
	p.bg.FillColor = withAlpha(theme.Color(theme.ColorNameForeground), 0x0d)
	p.bg.Refresh()
	p.name.SetText(r.call.Name)
	setPlain(p.arg, transcript.ToolCallSummary(r.call), monoStyle())
	icon, sum := toolStatus(r)
	p.icon.SetResource(icon)
	setPlain(p.summary, sum, captionStyle())
	p.usage.show(r.usage)

	res := r.result
	cp, canUndo := p.cv.m.proj.checkpointForCall(p.cv.cs.id, r.call.ID)
	// A call that changed no file (ls, git status, a test run) has nothing to undo.
	p.undo.Hidden = !canUndo || cp.ChangedNothing() || res == nil || p.cv.readOnly
	if p.cv.m.proj.of(p.cv.cs.id).undone[r.call.ID] {
		p.undo.Disable()
	} else {
		p.undo.Enable()
	}
	hasDetails := res != nil && (strings.TrimSpace(res.Content) != "" || (res.Display != nil && res.Display.Diff != ""))
	p.toggle.Hidden = !hasDetails
	switch {
	case r.expanded:
		p.toggle.SetText("Hide")
	case res != nil && res.Display != nil && res.Display.Diff != "":
		p.toggle.SetText("Show diff")
	default:
		p.toggle.SetText("Show output")
	}
	p.details.Hidden = !(hasDetails && r.expanded)
	p.detailBox.Hidden = p.details.Hidden
	if !p.details.Hidden {
		p.details.SetPreformatted(detailTexts(res)...)
	}
}

// toolStatus is the icon and the one-line summary of a tool row.
func toolStatus(r *row) (fyne.Resource, string) {
	switch r.phase {
	case toolRunning:
		if r.call.Name == domain.ToolRequestModeUpgrade {
			return theme.WarningIcon(), "waiting for your approval"
		}
		return theme.MediaPlayIcon(), "running…"
	case toolQueued:
		return theme.HistoryIcon(), "waiting its turn"
	}
	res := r.result
	sum := ""
	if res.Display != nil {
		sum = res.Display.Summary
	}
	if sum == "" {
		sum = transcript.OneLine(firstLine(res.Content), 140)
	}
	switch res.Outcome {
	case domain.OutcomeSuccess:
		return theme.ConfirmIcon(), sum
	case domain.OutcomeCancelled:
		return theme.CancelIcon(), "cancelled" + suffix(sum)
	case domain.OutcomeSkipped:
		return theme.MediaSkipNextIcon(), "skipped" + suffix(sum)
	case domain.OutcomeInterrupted:
		return theme.CancelIcon(), "interrupted" + suffix(sum)
	}
	return theme.ErrorIcon(), "failed" + suffix(sum)
}

func suffix(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// detailTexts shows a tool result: the diff coloured line by line for patch, then the text
// the model read, both cut to the display limits.
func detailTexts(res *domain.ToolResult) []markdown.Preformatted {
	var out []markdown.Preformatted
	if res.Display != nil && res.Display.Diff != "" {
		out = append(out, markdown.Preformatted{Text: clip(res.Display.Diff), Diff: true})
		if res.Outcome == domain.OutcomeSuccess {
			return out
		}
	}
	return append(out, markdown.Preformatted{Text: clip(res.Content)})
}

// clip cuts long output to the display limits and says how much was left out.
func clip(s string) string {
	s = strings.TrimRight(s, "\n")
	cut := false
	if len(s) > maxDetailBytes {
		s, cut = s[:maxDetailBytes], true
	}
	lines := strings.Split(s, "\n")
	if len(lines) > maxDetailLines {
		lines, cut = lines[:maxDetailLines], true
	}
	s = strings.Join(lines, "\n")
	if cut {
		s += "\n… (cut here; export the conversation with Ctrl+E to see all of it)"
	}
	return s
}

// agentsPart: a spawn_agents call as a card listing each sub-agent.
type agentsPart struct {
	cv    *chatView
	bg    *canvas.Rectangle
	title *widget.Label
	list  *fyne.Container
	lines []*agentLine
	usage *usageLine
	obj   fyne.CanvasObject
}

type agentLine struct {
	icon   *widget.Icon
	task   *widget.RichText
	result *widget.RichText
	open   *widget.Button
	id     string
	task0  string
	obj    fyne.CanvasObject
}

func newAgentsPart(cv *chatView) *agentsPart {
	p := &agentsPart{cv: cv, bg: canvas.NewRectangle(color.Transparent),
		title: widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		list:  container.New(&column{Gap: pad()}), usage: newUsageLine(pad() * 2)}
	p.obj = container.New(&column{}, card(p.bg, container.New(&column{}, p.title, p.list)), p.usage.obj)
	return p
}

func (p *agentsPart) object() fyne.CanvasObject { return p.obj }

func (p *agentsPart) bind(r *row) {
	p.bg.FillColor = withAlpha(theme.Color(theme.ColorNameForeground), 0x0d)
	p.bg.Refresh()
	outs := r.outcomes
	if r.result != nil && r.result.Display != nil && len(r.result.Display.SubAgents) > 0 {
		outs = r.result.Display.SubAgents
	}
	if len(outs) == 0 {
		for _, t := range transcript.SpawnTasks(r.call) {
			outs = append(outs, domain.SubAgentOutcome{Task: t, Status: domain.SubAgentPending})
		}
	}
	done := 0
	for _, o := range outs {
		if o.Status != domain.SubAgentPending {
			done++
		}
	}
	p.title.SetText(fmt.Sprintf("Sub-agents: %d of %d finished", done, len(outs)))
	p.usage.show(r.usage)
	for len(p.lines) < len(outs) {
		p.lines = append(p.lines, p.newLine())
	}
	p.list.Objects = p.list.Objects[:0]
	for i, o := range outs {
		l := p.lines[i]
		l.id, l.task0 = o.AgentID, o.Task
		setPlain(l.task, o.Task, widget.RichTextStyleParagraph)
		switch o.Status {
		case domain.SubAgentSucceeded:
			l.icon.SetResource(theme.ConfirmIcon())
			setPlain(l.result, transcript.OneLine(o.Result, 300), captionStyle())
		case domain.SubAgentFailed:
			l.icon.SetResource(theme.ErrorIcon())
			msg := o.Error
			if msg == "" {
				msg = o.Kind.Describe()
			}
			setPlain(l.result, "failed: "+transcript.OneLine(msg, 300), captionStyle())
		default:
			l.icon.SetResource(theme.MediaPlayIcon())
			if r.result != nil {
				setPlain(l.result, "did not report", captionStyle())
			} else {
				setPlain(l.result, "working…", captionStyle())
			}
		}
		if o.AgentID == "" {
			l.open.Disable()
		} else {
			l.open.Enable()
		}
		p.list.Objects = append(p.list.Objects, l.obj)
	}
	p.list.Refresh()
}

func (p *agentsPart) newLine() *agentLine {
	l := &agentLine{icon: widget.NewIcon(nil), task: newWrapText(), result: newWrapText()}
	l.open = widget.NewButton("Open", func() {
		if l.id != "" {
			p.cv.m.openSubAgent(l.id, l.task0)
		}
	})
	l.obj = container.New(&hbar{gap: pad()}, l.icon, container.New(&column{}, l.task, l.result), l.open)
	return l
}

// notePart: system notices (mode changes), errors and runtime notices.
type notePart struct {
	bg     *canvas.Rectangle
	stripe *canvas.Rectangle
	icon   *widget.Icon
	text   *widget.RichText
	obj    fyne.CanvasObject
}

func newNotePart() *notePart {
	p := &notePart{bg: canvas.NewRectangle(color.Transparent), stripe: canvas.NewRectangle(color.Transparent),
		icon: widget.NewIcon(nil), text: newWrapText()}
	body := container.New(&hbar{gap: pad()}, p.icon, p.text, none())
	p.obj = container.New(insetBy(fyne.NewSize(pad(), pad()/2), 3), p.bg, p.stripe, body)
	return p
}

func (p *notePart) object() fyne.CanvasObject { return p.obj }

func (p *notePart) bind(r *row) {
	var (
		accent fyne.ThemeColorName
		icon   fyne.Resource
		segs   []widget.RichTextSegment
	)
	italic := widget.RichTextStyle{ColorName: theme.ColorNamePlaceHolder, TextStyle: fyne.TextStyle{Italic: true}, Inline: true}
	switch r.kind {
	case rowSystem:
		accent, icon = theme.ColorNamePlaceHolder, theme.InfoIcon()
		segs = []widget.RichTextSegment{&widget.TextSegment{Text: r.msg.Text, Style: italic}}
	case rowError:
		accent, icon = theme.ColorNameError, theme.ErrorIcon()
		bold := widget.RichTextStyle{ColorName: theme.ColorNameError, TextStyle: fyne.TextStyle{Bold: true}, Inline: true}
		segs = []widget.RichTextSegment{
			&widget.TextSegment{Text: "Error: ", Style: bold},
			&widget.TextSegment{Text: r.msg.Text, Style: widget.RichTextStyleInline},
		}
		if r.msg.ErrorKind != "" {
			segs = append(segs, &widget.TextSegment{Text: " " + r.msg.ErrorKind.Describe() + ".", Style: italic})
		}
	default:
		accent, icon = theme.ColorNamePrimary, theme.InfoIcon()
		switch r.level {
		case actors.NoticeWarning:
			accent, icon = theme.ColorNameWarning, theme.WarningIcon()
		case actors.NoticeError:
			accent, icon = theme.ColorNameError, theme.ErrorIcon()
		}
		segs = []widget.RichTextSegment{&widget.TextSegment{Text: r.text, Style: widget.RichTextStyleInline}}
	}
	tint(p.stripe, p.bg, accent)
	p.icon.SetResource(icon)
	p.text.Segments = segs
	p.text.Refresh()
}

// continuationPart: the continuation summary, shown prominently (REQ-BED-020, REQ-BED-021).
type continuationPart struct {
	bg, stripe *canvas.Rectangle
	text       *markdown.View
	source     string
	obj        fyne.CanvasObject
}

func newContinuationPart(cv *chatView) *continuationPart {
	p := &continuationPart{bg: canvas.NewRectangle(color.Transparent), stripe: canvas.NewRectangle(color.Transparent), text: cv.newMarkdown()}
	cp := widget.NewButtonWithIcon("", theme.ContentCopyIcon(), func() { copyText(p.source) })
	cp.Importance = widget.LowImportance
	title := container.New(&hbar{}, none(), widget.NewLabelWithStyle("Continuation summary", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), cp)
	p.obj = container.New(insetBy(fyne.NewSize(pad()*2, pad()), 4), p.bg, p.stripe, container.New(&column{}, title, container.New(insetBy(fyne.NewSize(theme.InnerPadding(), 0), 0), p.text)))
	return p
}

func (p *continuationPart) object() fyne.CanvasObject { return p.obj }

func (p *continuationPart) bind(r *row) {
	tint(p.stripe, p.bg, theme.ColorNamePrimary)
	p.source = r.msg.Text
	p.text.SetMarkdown(r.msg.Text)
}

// cutOffPart: a reply that ended early is never shown as if it were complete (REQ-BED-003,
// issue 13). It says why the reply stopped and, for the output limit, which limit, with a
// Continue button that asks the model to go on.
type cutOffPart struct {
	cv     *chatView
	bg     *canvas.Rectangle
	stripe *canvas.Rectangle
	text   *widget.RichText
	goOn   *widget.Button
	obj    fyne.CanvasObject
}

func newCutOffPart(cv *chatView) *cutOffPart {
	p := &cutOffPart{cv: cv, bg: canvas.NewRectangle(color.Transparent), stripe: canvas.NewRectangle(color.Transparent), text: newWrapText()}
	p.goOn = widget.NewButtonWithIcon("Continue", theme.MediaPlayIcon(), func() {
		if p.cv.cs != nil {
			p.cv.m.sendPrompt(p.cv.cs, domain.GoOnPrompt)
		}
	})
	body := container.New(&hbar{gap: pad()}, widget.NewIcon(theme.WarningIcon()), p.text, p.goOn)
	p.obj = container.New(insetBy(fyne.NewSize(pad(), pad()/2), 3), p.bg, p.stripe, body)
	return p
}

func (p *cutOffPart) object() fyne.CanvasObject { return p.obj }

func (p *cutOffPart) bind(r *row) {
	tint(p.stripe, p.bg, theme.ColorNameWarning)
	model := ""
	if p.cv.cs != nil {
		model = p.cv.cs.conv.Model
	}
	setPlain(p.text, cutOffText(r.msg.StopReason, p.cv.m.b.OutputLimit(model)), widget.RichTextStyleInline)
	if r.msg.StopReason == domain.StopLength && !p.cv.readOnly && !r.superseded {
		p.goOn.Show()
	} else {
		p.goOn.Hide()
	}
}

// The approval card's buttons (REQ-BED-015, issue 24): the recommended level first.
const (
	approveProjectLabel = "Allow edits in this project"
	approveFullLabel    = "Allow everything"
	denyLabel           = "Deny"
)

// approvalPart: the mode-upgrade request with "Allow edits in this project" (Project mode,
// the recommended answer: first and highlighted), "Allow everything" (Unrestricted) and Deny
// (REQ-BED-015). Nothing proceeds until one is clicked; all are buttons, so Tab reaches them
// and Space presses them. A conversation already in Project mode is offered only the rest.
type approvalPart struct {
	cv      *chatView
	bound   *row
	bg      *canvas.Rectangle
	reason  *widget.RichText
	explain *widget.RichText
	project *widget.Button
	full    *widget.Button
	deny    *widget.Button
	obj     fyne.CanvasObject
}

func newApprovalPart(cv *chatView) *approvalPart {
	p := &approvalPart{cv: cv, bg: canvas.NewRectangle(color.Transparent), reason: newWrapText(), explain: newWrapText()}
	title := widget.NewLabelWithStyle("The agent asks for write access", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	p.project = widget.NewButtonWithIcon(approveProjectLabel, theme.ConfirmIcon(), func() { p.decide(domain.ModeProject) })
	p.project.Importance = widget.HighImportance
	p.full = widget.NewButtonWithIcon(approveFullLabel, theme.WarningIcon(), func() { p.decide(domain.ModeUnrestricted) })
	p.deny = widget.NewButtonWithIcon(denyLabel, theme.CancelIcon(), func() { p.decide(actors.DenyUpgrade) })
	buttons := container.NewHBox(p.project, p.full, p.deny)
	p.obj = card(p.bg, container.New(&column{Gap: pad() / 2}, title, p.reason, p.explain, buttons))
	return p
}

// approvalText says what each answer does, in the words of the mode table.
func approvalText(current domain.Mode) string {
	text := ""
	if current.Rank() < domain.ModeProject.Rank() {
		text += approveProjectLabel + " (recommended): " + domain.ModeProject.Allows() + ".\n"
	}
	return text + approveFullLabel + ": " + domain.ModeUnrestricted.Allows() + ", with no sandbox.\n" +
		denyLabel + " keeps " + current.Title() + " mode and tells the agent."
}

func (p *approvalPart) object() fyne.CanvasObject { return p.obj }

func (p *approvalPart) bind(r *row) {
	p.bound = r
	p.bg.FillColor = withAlpha(theme.Color(theme.ColorNameWarning), 0x30)
	p.bg.StrokeColor = theme.Color(theme.ColorNameWarning)
	p.bg.StrokeWidth = 1.5
	p.bg.Refresh()
	p.reason.Segments = []widget.RichTextSegment{
		&widget.TextSegment{Text: "Reason: ", Style: widget.RichTextStyle{TextStyle: fyne.TextStyle{Bold: true}, Inline: true}},
		&widget.TextSegment{Text: r.text, Style: widget.RichTextStyleInline},
	}
	p.reason.Refresh()
	mode := p.cv.cs.conv.Mode
	setPlain(p.explain, approvalText(mode), widget.RichTextStyleParagraph)
	p.project.Hidden = mode.Rank() >= domain.ModeProject.Rank()
	p.setEnabled(!p.cv.readOnly)
}

func (p *approvalPart) setEnabled(on bool) {
	for _, b := range []*widget.Button{p.project, p.full, p.deny} {
		if on {
			b.Enable()
		} else {
			b.Disable()
		}
	}
}

func (p *approvalPart) decide(grant domain.Mode) {
	if p.bound == nil {
		return
	}
	p.setEnabled(false)
	p.cv.m.decide(p.cv.cs, p.bound.exec, grant, func() { p.setEnabled(true) })
}
