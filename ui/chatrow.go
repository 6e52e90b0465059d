package ui

import (
	"image/color"
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
	"github.com/phoenix-desktop/phoenix/ui/measure"
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
	// markQ and markStrong are the find bar's highlights the row shows (findbar.go).
	markWords  []string
	markStrong bool
	marked     bool
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
	q, strong := v.cv.marksFor(r)
	if v.bound == r && v.boundVer == r.ver && v.boundGen == gen {
		v.mark(q, strong)
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
	if v.marked || len(q) > 0 {
		v.markWords = []string{"\x00"} // the part shows another text now: mark it afresh
	}
	v.mark(q, strong)
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
	bg.FillColor = withAlpha(theme.Color(accent), washAlpha)
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
	// text is plain (never read as Markdown), selectable and marked by Find like a reply.
	text    *markdown.View
	textBox *fyne.Container
	thumbs  *fyne.Container
	obj     fyne.CanvasObject
	// rewind restores the working tree as it was before this message's turn; changes opens
	// the Changes view of the turn.
	rewind  *button.Button
	changes *button.Button
	seq     uint64
}

func newUserPart(cv *chatView) *userPart {
	p := &userPart{cv: cv, bg: canvas.NewRectangle(color.Transparent), header: widget.NewRichText(), text: cv.newMarkdown(),
		thumbs: container.New(&flow{gap: pad()})}
	// The text starts where a RichText (the header) starts its own.
	ip := theme.InnerPadding()
	p.textBox = container.New(&measure.Inset{Left: ip, Right: ip, Top: ip, Bottom: ip}, p.text)
	p.rewind = restoreButton("Rewind to here", func() { cv.m.proj.rewind(cv.cs, p.seq) })
	p.changes = restoreButton("Changes", func() { cv.m.rv.openTurn(cv.cs, p.seq) }) // reviewpane.go
	more := messageMenuButton(cv, func() uint64 { return p.seq })                   // fork.go
	p.obj = card(p.bg, container.New(&column{}, container.New(&hbar{gap: pad()}, none(), p.header, container.NewHBox(p.changes, p.rewind, more)), p.textBox, p.thumbs))
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
	p.bg.FillColor = withAlpha(theme.Color(theme.ColorNamePrimary), userWashAlpha)
	p.bg.Refresh()
	setPlain(p.header, speakerAt(domain.KindUser, r.at), captionStyle())
	p.seq = r.msg.Seq
	_, canRewind := p.cv.m.proj.checkpointBefore(p.cv.cs.id, r.msg.Seq)
	p.rewind.Hidden = !canRewind || p.cv.readOnly
	p.changes.Hidden = !p.cv.m.rv.turnChanged(p.cv.cs.id, r.msg.Seq) || p.cv.readOnly
	p.textBox.Hidden = r.msg.Text == ""
	p.text.SetText(r.msg.Text)
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
	cp := button.NewWithIcon("", theme.ContentCopyIcon(), func() { copyText(p.source) })
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
		OnScroll:       cv.wheel,
		OnHeightChange: cv.remeasure,
		Do:             cv.m.do,
		Quiet:          quiet,
		Span:           cv.sel,
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
