package ui

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/ui/button"
)

// CommandsBackend is the part of the command API behind the composer's "/" menu: the
// conversation's custom commands and skills (fixed until Reload instructions). *actors.Runtime
// satisfies it; a Backend without it has no menu.
type CommandsBackend interface {
	Commands(ctx context.Context, id string) (actors.Custom, error)
}

var _ CommandsBackend = (*actors.Runtime)(nil)

// CommandSender sends or queues a custom command's message with what it asks of its turn:
// the model its front matter names, for that turn only, and the invocation as the title of
// a conversation it starts (actors.Runtime.SendCommand, EnqueueCommand). A Backend without
// it sends the command's prompt as a plain message.
type CommandSender interface {
	SendCommand(ctx context.Context, id, text string, images []Attachment, opt actors.TurnOptions) error
	EnqueueCommand(ctx context.Context, id, text string, images []Attachment, opt actors.TurnOptions) (actors.Queue, error)
}

var _ CommandSender = (*actors.Runtime)(nil)

// maxSlashRows is how many matches the menu shows at once.
const maxSlashRows = 8

// slashItem is one line of the "/" menu.
type slashItem struct {
	// mark is what the item is typed after: "/" for commands and prompts (when empty), "@"
	// for resources (atresources.go), which complete into the draft instead of running.
	mark                     string
	name, hint, desc, origin string
	// local turns the arguments into the message at once (custom commands). remote does it
	// off the UI goroutine (an MCP prompt, fetched from its server); one of the two is set.
	local  func(args string) string
	remote func(ctx context.Context, args string) (string, error)
	// model is the model a command's front matter asks for: its turn runs on it where the
	// provider offers it (CommandSender), the conversation keeps its own.
	model string
	// prompt is the MCP prompt an item stands for (its arguments make the form of
	// promptform.go); nil for commands.
	prompt *actors.MCPPrompt
}

// slashMenu is the completion menu above the composer: typing "/" lists the conversation's
// commands, each with its one-line description; Up and Down choose, Tab or Enter completes,
// Esc closes it. Everything runs on the UI goroutine; the lists are read off it.
type slashMenu struct {
	m   *MainWindow
	b   CommandsBackend
	box *fyne.Container
	// sets holds each conversation's commands and skills once read; loading marks a read
	// under way.
	sets    map[string]actors.Custom
	loading map[string]bool
	shown   []slashItem
	sel     int
	// mcpPrompts is the hook point for MCP prompts: set it to list a conversation's prompts
	// (Runtime.Prompts(conversationID)) as items whose remote expansion calls GetPrompt.
	// nil lists none.
	mcpPrompts func(convID string) []slashItem
	// mcpResources lists a conversation's MCP resources for "@" (atresources.go); nil
	// lists none. atStart is where the "@" word being completed starts in the draft, while
	// the menu shows resources (atMode).
	mcpResources func(convID string) []slashItem
	atMode       bool
	atStart      int
}

func newSlashMenu(m *MainWindow) *slashMenu {
	s := &slashMenu{m: m, box: container.NewVBox(), sets: map[string]actors.Custom{}, loading: map[string]bool{}}
	s.b, _ = m.b.(CommandsBackend)
	s.usePrompts()
	s.useResources()
	s.box.Hide()
	return s
}

// items lists what the conversation offers, commands first, then MCP prompts.
func (s *slashMenu) items(convID string) []slashItem {
	var out []slashItem
	for _, c := range s.sets[convID].Commands {
		out = append(out, slashItem{name: c.Name, hint: c.ArgumentHint, desc: c.Description, origin: c.Label, local: c.Expand, model: c.Model})
	}
	if s.mcpPrompts != nil {
		out = append(out, s.mcpPrompts(convID)...)
	}
	return out
}

// load reads a conversation's commands once, off the UI goroutine.
func (s *slashMenu) load(convID string) {
	if s.b == nil || s.loading[convID] {
		return
	}
	if _, ok := s.sets[convID]; ok {
		return
	}
	s.loading[convID] = true
	go func() {
		ctx, cancel := context.WithTimeout(s.m.ctx, callTimeout)
		defer cancel()
		set, err := s.b.Commands(ctx, convID)
		s.m.do(func() {
			delete(s.loading, convID)
			if err != nil || s.m.closed {
				return
			}
			s.sets[convID] = set
			if cs := s.m.current; cs != nil && cs.id == convID {
				s.update(s.m.composer.entry.Text)
				s.m.proj.refresh()
			}
		})
	}()
}

// onCustomChanged takes the list a reload read.
func (s *slashMenu) onCustomChanged(e actors.CustomChanged) {
	s.sets[e.ConvID] = e.Custom
	if cs := s.m.current; cs != nil && cs.id == e.ConvID {
		s.update(s.m.composer.entry.Text)
	}
}

// prefix is what follows the slash while the draft is a command name being typed: "/rev"
// gives "rev"; anything with a blank in it (arguments) or not starting with "/" closes the
// menu.
func slashPrefix(text string) (string, bool) {
	if !strings.HasPrefix(text, "/") || strings.ContainsAny(text, " \t\r\n") {
		return "", false
	}
	return text[1:], true
}

// update shows the items matching the draft.
func (s *slashMenu) update(text string) {
	cs := s.m.current
	if cs == nil {
		s.hide()
		return
	}
	s.shown = s.shown[:0]
	if prefix, ok := slashPrefix(text); ok {
		s.atMode = false
		s.load(cs.id)
		if _, read := s.sets[cs.id]; read && prefix == "" && len(s.items(cs.id)) == 0 {
			s.showHint(noCommandsHint())
			return
		}
		for _, it := range s.items(cs.id) {
			if strings.HasPrefix(it.name, prefix) {
				s.shown = append(s.shown, it)
			}
		}
	} else if start, typed, ok := atPrefix(text); ok && s.mcpResources != nil {
		s.atMode, s.atStart = true, start
		for _, it := range s.mcpResources(cs.id) {
			if matchesResource(it, typed) {
				s.shown = append(s.shown, it)
			}
		}
	}
	if len(s.shown) == 0 {
		s.hide()
		return
	}
	s.sel = min(s.sel, len(s.shown)-1)
	s.draw()
}

// showHint shows a line in the menu's place, with nothing to choose (keys go to the
// composer as usual).
func (s *slashMenu) showHint(text string) {
	s.shown, s.sel = s.shown[:0], 0
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.LowImportance
	s.box.Objects = []fyne.CanvasObject{l}
	s.box.Show()
	s.box.Refresh()
}

func (s *slashMenu) visible() bool { return s.box.Visible() && len(s.shown) > 0 }

func (s *slashMenu) hide() {
	s.shown, s.sel = s.shown[:0], 0
	if s.box.Visible() {
		s.box.Hide()
		s.box.Objects = nil
		s.box.Refresh()
	}
}

func (s *slashMenu) draw() {
	s.box.Objects = s.box.Objects[:0]
	first := max(0, min(s.sel-maxSlashRows+1, len(s.shown)-maxSlashRows))
	for i := first; i < len(s.shown) && i < first+maxSlashRows; i++ {
		it := s.shown[i]
		label := cmp.Or(it.mark, "/") + it.name
		if it.hint != "" {
			label += " " + it.hint
		}
		if it.desc != "" {
			label += " — " + it.desc
		}
		if it.origin != "" {
			label += "  (" + it.origin + ")"
		}
		s.box.Objects = append(s.box.Objects, newMenuRow(label, i == s.sel, func() { s.sel = i; s.complete() }))
	}
	if n := len(s.shown); n > maxSlashRows {
		what := "commands"
		if s.atMode {
			what = "resources"
		}
		more := widget.NewLabel(fmt.Sprintf("%d %s match; keep typing to narrow", n, what))
		more.SizeName = theme.SizeNameCaptionText
		s.box.Objects = append(s.box.Objects, more)
	}
	s.box.Show()
	s.box.Refresh()
}

// complete puts the chosen command in the draft, followed by a blank for its arguments.
func (s *slashMenu) complete() {
	if len(s.shown) == 0 {
		return
	}
	text := "/" + s.shown[s.sel].name + " "
	if s.atMode {
		// The reference replaces the "@" word being typed; what came before stays.
		draft := s.m.composer.entry.Text
		text = draft[:min(s.atStart, len(draft))] + "@" + s.shown[s.sel].name + " "
	}
	s.hide()
	s.m.composer.entry.SetText(text)
	s.m.composer.entry.CursorColumn = len([]rune(text))
	s.m.composer.entry.Refresh()
	if s.m.win != nil {
		s.m.win.Canvas().Focus(s.m.composer.entry)
	}
}

// onKey handles the composer's keys while the menu is open; it reports whether it took the
// key. Enter on a command typed in full (nothing left to complete) is left to send it.
func (s *slashMenu) onKey(k *fyne.KeyEvent) bool {
	if !s.visible() {
		return false
	}
	switch k.Name {
	case fyne.KeyDown:
		s.sel = (s.sel + 1) % len(s.shown)
		s.draw()
	case fyne.KeyUp:
		s.sel = (s.sel - 1 + len(s.shown)) % len(s.shown)
		s.draw()
	case fyne.KeyTab:
		s.complete()
	case fyne.KeyReturn, fyne.KeyEnter:
		if p, _ := slashPrefix(s.m.composer.entry.Text); !s.atMode && p == s.shown[s.sel].name {
			s.hide()
			return false
		}
		s.complete()
	case fyne.KeyEscape:
		s.hide()
	default:
		return false
	}
	return true
}

// lookup finds the command a draft invokes ("/name args"); ok is false for any other text,
// an unknown name included, which is sent as written.
func (s *slashMenu) lookup(convID, text string) (it slashItem, args string, ok bool) {
	t := strings.TrimLeft(text, " \t")
	if !strings.HasPrefix(t, "/") {
		return slashItem{}, "", false
	}
	name, args, _ := strings.Cut(strings.TrimPrefix(t, "/"), " ")
	if i := strings.IndexAny(name, "\t\r\n"); i >= 0 {
		name, args = name[:i], name[i:]+" "+args
	}
	for _, it := range s.items(convID) {
		if it.name == name {
			return it, strings.TrimSpace(args), true
		}
	}
	return slashItem{}, "", false
}

// skillsLabel names the conversation's skills for the header, beside its instructions; nil
// when it has none.
func (s *slashMenu) skillsLabel(convID string) fyne.CanvasObject {
	text := s.skillsText(convID)
	if text == "" {
		return nil
	}
	l := widget.NewLabel(text)
	l.SizeName = theme.SizeNameCaptionText
	l.Truncation = fyne.TextTruncateEllipsis
	return l
}

// skillsText is what skillsLabel says, "" when the conversation has no skills.
func (s *slashMenu) skillsText(convID string) string {
	s.load(convID)
	set := s.sets[convID]
	if len(set.Skills) == 0 {
		return ""
	}
	return "Skills: " + strings.Join(set.SkillNames(), ", ")
}

// menuRow is one line of the "/" and "@" menus: a button under its words, which are cut with
// an ellipsis where the composer ends. A button's own label never shrinks, so a long
// description widened the window and crushed the sidebar (issue 41).
type menuRow struct {
	*fyne.Container
	btn  *button.Button
	text *widget.RichText
}

func newMenuRow(label string, selected bool, tap func()) *menuRow {
	r := &menuRow{btn: button.New("", tap)}
	r.btn.Importance = widget.LowImportance
	style := widget.RichTextStyle{Inline: true, ColorName: theme.ColorNameForeground}
	if selected {
		r.btn.Importance = widget.HighImportance
		style.ColorName = theme.ColorNameForegroundOnPrimary
	}
	r.text = widget.NewRichText(&widget.TextSegment{Text: label, Style: style})
	r.text.Truncation = fyne.TextTruncateEllipsis
	r.Container = container.NewStack(r.btn, r.text)
	return r
}

// label is the row's words, whole.
func (r *menuRow) label() string { return r.text.String() }
