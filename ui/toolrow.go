package ui

import (
	"image/color"
	"strings"

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

// Rows of the chat log for tool calls and sub-agents: the parts a rowView (chatrow.go) binds.

// Limits on what a tool row shows of a result, so one huge output cannot slow the log down.
// The full text is in the Markdown export.
const (
	maxDetailLines = 300
	maxDetailBytes = 24 << 10
)

// toolPart: one tool call as a compact row that expands to its result or diff.
type toolPart struct {
	cv     *chatView
	bound  *row
	bg     *canvas.Rectangle
	icon   *widget.Icon
	name   *widget.Label
	arg    *widget.RichText
	toggle *button.Button
	// undo restores the files this call changed, after showing the diff.
	undo    *button.Button
	summary *widget.RichText
	details *markdown.View
	// detailBox insets the details to where RichText put its text.
	detailBox *fyne.Container
	usage     *usageLine
	obj       fyne.CanvasObject

	// places holds the links to the places the result names (places.go).
	places *fyne.Container
}

func newToolPart(cv *chatView) *toolPart {
	p := &toolPart{cv: cv, bg: canvas.NewRectangle(color.Transparent), icon: widget.NewIcon(nil),
		name: widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		arg:  newWrapText(), summary: widget.NewRichText(), details: cv.newMarkdown()}
	p.toggle = button.New("Show output", func() {
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
	p.places = container.NewVBox()
	p.obj = container.New(&column{}, card(p.bg, container.New(&column{}, header, p.summary, p.detailBox, p.places)), p.usage.obj)
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
	p.places.Objects = nil
	if !p.details.Hidden {
		p.places.Objects = p.cv.placeLinks(resultPlaces(res))
	}
	p.places.Hidden = len(p.places.Objects) == 0
	p.places.Refresh()
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
			if res.Display.Diagnostics != "" {
				// The errors the language server found after the edit, under its diff.
				out = append(out, markdown.Preformatted{Text: clip(res.Display.Diagnostics)})
			}
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
	open   *button.Button
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
	p.title.SetText(agentsTitle(outs))
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
			if o.Kind == domain.ErrorCancelled {
				l.icon.SetResource(theme.MediaStopIcon())
				setPlain(l.result, "stopped before it finished", captionStyle())
				break
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
	l.open = button.New("Open", func() {
		if l.id != "" {
			p.cv.m.openSubAgent(l.id, l.task0)
		}
	})
	l.obj = container.New(&hbar{gap: pad()}, l.icon, container.New(&column{}, l.task, l.result), l.open)
	return l
}
