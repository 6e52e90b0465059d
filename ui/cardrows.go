package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/ui/button"
	"github.com/phoenix-desktop/phoenix/ui/markdown"
)

// Rows of the chat log that are cards: notices and errors, the continuation, a cut-off reply
// and the approval card. A rowView (chatrow.go) binds them.

// notePart: system notices (mode changes), errors and runtime notices.
type notePart struct {
	bg     *canvas.Rectangle
	stripe *canvas.Rectangle
	icon   *widget.Icon
	text   *widget.RichText
	// segs is the text as bound, before Find's highlights (findmarks.go).
	segs []widget.RichTextSegment
	obj  fyne.CanvasObject
}

func newNotePart() *notePart {
	p := &notePart{icon: widget.NewIcon(nil), text: newWrapText()}
	p.bg, p.stripe, p.obj = noticeFrame(p.icon, p.text, none())
	return p
}

// noticeFrame lays a notice row out, as notes and action notices share it: a background and a
// stripe (which tint colours), an icon, the text and what follows it (a button, or nothing).
func noticeFrame(icon *widget.Icon, text *widget.RichText, trailing fyne.CanvasObject) (bg, stripe *canvas.Rectangle, obj fyne.CanvasObject) {
	bg, stripe = canvas.NewRectangle(color.Transparent), canvas.NewRectangle(color.Transparent)
	body := container.New(&hbar{gap: pad()}, icon, text, trailing)
	return bg, stripe, container.New(insetBy(fyne.NewSize(pad(), pad()/2), 3), bg, stripe, body)
}

func (p *notePart) object() fyne.CanvasObject { return p.obj }

func (p *notePart) bind(r *row) {
	accent, icon, segs := noteLook(r)
	tint(p.stripe, p.bg, accent)
	p.icon.SetResource(icon)
	p.segs = segs
	p.text.Segments = segs
	p.text.Refresh()
}

// noteLook is how a notice row looks: its accent, its icon and its text (which Find searches,
// findmarks.go).
func noteLook(r *row) (accent fyne.ThemeColorName, icon fyne.Resource, segs []widget.RichTextSegment) {
	italic := widget.RichTextStyle{ColorName: theme.ColorNamePlaceHolder, TextStyle: fyne.TextStyle{Italic: true}, Inline: true}
	switch r.kind {
	case rowSystem:
		accent, icon = theme.ColorNamePlaceHolder, theme.InfoIcon()
		// A mode notice is stored in the model's words; the person reads their own.
		text, _ := domain.ModeChangeNoticeForPerson(r.msg.Text)
		segs = []widget.RichTextSegment{&widget.TextSegment{Text: text, Style: italic}}
	case rowError:
		accent, icon = theme.ColorNameError, theme.ErrorIcon()
		bold := widget.RichTextStyle{ColorName: theme.ColorNameError, TextStyle: fyne.TextStyle{Bold: true}, Inline: true}
		segs = []widget.RichTextSegment{
			&widget.TextSegment{Text: "Error: ", Style: bold},
			&widget.TextSegment{Text: r.msg.Text, Style: widget.RichTextStyleInline},
		}
		if hint := errorHint(r.msg.Text, r.msg.ErrorKind); hint != "" {
			segs = append(segs, &widget.TextSegment{Text: " " + hint, Style: italic})
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
	return accent, icon, segs
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
	cp := button.NewWithIcon("", theme.ContentCopyIcon(), func() { copyText(p.source) })
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
	cv *chatView
	*actionNotice
}

func newCutOffPart(cv *chatView) *cutOffPart {
	p := &cutOffPart{cv: cv}
	p.actionNotice = newActionNotice("Continue", theme.MediaPlayIcon(), func() {
		if p.cv.cs != nil {
			p.cv.m.sendPrompt(p.cv.cs, domain.GoOnPrompt)
		}
	})
	return p
}

func (p *cutOffPart) bind(r *row) {
	model := ""
	if p.cv.cs != nil {
		model = p.cv.cs.conv.Model
	}
	p.show(cutOffText(r.msg.StopReason, p.cv.m.b.OutputLimit(model)),
		r.msg.StopReason == domain.StopLength && !p.cv.readOnly && !r.superseded)
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
	project *button.Button
	full    *button.Button
	deny    *button.Button
	obj     fyne.CanvasObject
}

func newApprovalPart(cv *chatView) *approvalPart {
	p := &approvalPart{cv: cv, bg: canvas.NewRectangle(color.Transparent), reason: newWrapText(), explain: newWrapText()}
	title := widget.NewLabelWithStyle("The agent asks for write access", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	p.project = button.NewWithIcon(approveProjectLabel, theme.ConfirmIcon(), func() { p.decide(domain.ModeProject) })
	p.project.Importance = widget.HighImportance
	p.full = button.NewWithIcon(approveFullLabel, theme.WarningIcon(), func() { p.decide(domain.ModeUnrestricted) })
	p.deny = button.NewWithIcon(denyLabel, theme.CancelIcon(), func() { p.decide(actors.DenyUpgrade) })
	buttons := container.NewHBox(p.project, p.full, p.deny)
	p.obj = card(p.bg, container.New(&column{Gap: pad() / 2}, title, p.reason, p.explain, buttons))
	return p
}

// approvalText says what each answer does, in the words of the mode table.
func approvalText(current domain.Mode) string {
	text, keys := "", "Keys: Alt+D denies; Tab reaches every button."
	if current.Rank() < domain.ModeProject.Rank() {
		text += approveProjectLabel + " (recommended): " + domain.ModeProject.AllowsForPerson() + ".\n"
		keys = "Keys: Alt+A allows edits in this project, Alt+D denies; Tab reaches every button."
	}
	return text + approveFullLabel + ": " + domain.ModeUnrestricted.AllowsForPerson() + ", with no sandbox.\n" +
		denyLabel + " keeps " + current.Title() + " mode and tells the agent.\n" + keys
}

func (p *approvalPart) object() fyne.CanvasObject { return p.obj }

func (p *approvalPart) bind(r *row) {
	p.bound = r
	p.bg.FillColor = withAlpha(theme.Color(theme.ColorNameWarning), approvalWashAlpha)
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
	for _, b := range []*button.Button{p.project, p.full, p.deny} {
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
	p.cv.m.focusComposer() // the card goes; the keys go back to the composer
}
