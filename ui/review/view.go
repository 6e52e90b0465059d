package review

import (
	"fmt"
	"image/color"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/review"
	"github.com/phoenix-desktop/phoenix/transcript"
	"github.com/phoenix-desktop/phoenix/ui/button"
)

// SplitMinWidth is the narrowest view that offers old and new side by side.
const SplitMinWidth float32 = 960

// Options are what the view tells its owner.
type Options struct {
	// OnScope asks for the changes of another scope.
	OnScope func(review.Scope)
	// OnRevert asks to revert a file (hunk 0) or one of its hunks, as numbered in the
	// changes shown.
	OnRevert func(path string, hunk int)
	// OnComment adds a comment to the draft that goes with the next message.
	OnComment func(review.Comment)
	// OnReviewed is told when a file is marked reviewed (diff is the fingerprint of the
	// file's diff it was marked on, DiffPrint), or no longer (diff ""): also when a mark is
	// dropped because the file changed after it.
	OnReviewed func(path, diff string)
	// Do runs f on the UI goroutine (fyne.Do when nil): the highlighter reports through it.
	Do func(func())
}

// View is the Changes view.
type View struct {
	widget.BaseWidget
	opts Options

	ch      review.Changes
	rows    []row
	fileRow []int
	split   bool
	// reviewed are the marks: a file's path and the fingerprint of the diff it was marked
	// on. A file shows as reviewed while its diff is that one.
	reviewed map[string]string
	// cursor and anchor are the rows of the selected lines (-1: none): the lines between
	// them, of one file, are what a comment is about.
	cursor, anchor int

	hl  *hunkColors
	gen int

	scope      *widget.RadioGroup
	splitCheck *widget.Check
	summary    *widget.Label
	status     *widget.Label
	files      *widget.List
	diff       *widget.List
	selLabel   *widget.Label
	entry      *widget.Entry
	commentBtn *button.Button
	draft      *widget.Label
	content    *fyne.Container
	lineH      float32
}

// Scope labels, in the order shown.
var scopeLabels = []struct {
	s     review.Scope
	label string
}{{review.Turn, "This turn"}, {review.Conversation, "This conversation"}, {review.Uncommitted, "Uncommitted"}}

// NewView makes an empty Changes view; SetChanges fills it.
func NewView(opts Options) *View {
	v := &View{opts: opts, reviewed: map[string]string{}, cursor: -1, anchor: -1}
	v.ExtendBaseWidget(v)
	if v.opts.Do == nil {
		v.opts.Do = fyne.Do
	}
	v.hl = newHunkColors(v)
	var labels []string
	for _, s := range scopeLabels {
		labels = append(labels, s.label)
	}
	v.scope = widget.NewRadioGroup(labels, func(label string) {
		for _, s := range scopeLabels {
			if s.label == label && s.s != v.ch.Scope && v.opts.OnScope != nil {
				v.opts.OnScope(s.s)
			}
		}
	})
	v.scope.Horizontal = true
	v.scope.Required = true
	v.splitCheck = widget.NewCheck("Side by side", func(on bool) { v.setSplit(on) })
	v.splitCheck.Disable()
	v.summary = widget.NewLabel("")
	v.status = widget.NewLabel("")
	v.status.Wrapping = fyne.TextWrapWord
	v.status.Hide()

	v.files = widget.NewList(func() int { return len(v.ch.Files) },
		func() fyne.CanvasObject { return newFileCell() },
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id >= len(v.ch.Files) {
				return
			}
			f := v.ch.Files[id]
			mark := "  "
			if v.Reviewed(f.Path) {
				mark = "✓ "
			}
			o.(*fileCell).setText(fmt.Sprintf("%s%s %s  +%d −%d", mark, statusLetter(f.Status), f.Path, f.Added, f.Deleted))
		})
	v.files.OnSelected = func(id widget.ListItemID) {
		if id < len(v.fileRow) {
			v.diff.ScrollToOffset(v.rowOffset(v.fileRow[id]))
		}
		v.files.UnselectAll()
	}

	mono := fyne.TextStyle{Monospace: true}
	v.lineH = fyne.MeasureText("Mg", theme.TextSize(), mono).Height + 2
	v.diff = widget.NewList(func() int { return len(v.rows) },
		func() fyne.CanvasObject { return newRowCell(v) },
		func(id widget.ListItemID, o fyne.CanvasObject) { o.(*rowCell).show(id) })
	v.diff.HideSeparators = true

	v.selLabel = widget.NewLabel("Click a line's number to comment on it (Shift+click another for a range).")
	v.selLabel.Truncation = fyne.TextTruncateEllipsis
	// One line, and Enter adds it: a review comment is a sentence or two.
	v.entry = widget.NewEntry()
	v.entry.SetPlaceHolder("Your comment on the selected lines (Enter adds it)")
	v.entry.OnSubmitted = func(string) { v.addComment() }
	v.commentBtn = button.NewWithIcon("Add comment", theme.MailComposeIcon(), v.addComment)
	v.commentBtn.Disable()
	v.draft = widget.NewLabel("")
	v.draft.Hide()
	bottom := container.NewVBox(widget.NewSeparator(), v.selLabel,
		container.NewBorder(nil, nil, nil, v.commentBtn, v.entry), v.draft)
	top := container.NewVBox(container.NewBorder(nil, nil, v.scope, v.splitCheck, v.summary), v.status)
	split := container.NewHSplit(v.files, container.NewThemeOverride(v.diff, denseTheme{base: theme.Current()}))
	split.Offset = 0.25
	v.content = container.NewBorder(top, bottom, nil, nil, split)
	return v
}

func (v *View) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(v.content) }

// Resize offers side by side only where both sides fit.
func (v *View) Resize(s fyne.Size) {
	v.BaseWidget.Resize(s)
	wide := s.Width >= SplitMinWidth
	if wide {
		v.splitCheck.Enable()
	} else {
		v.splitCheck.Disable()
		if v.split {
			v.splitCheck.SetChecked(false)
		}
	}
}

// SetChanges shows ch. When ch is the scope already shown, read again (the conversation
// changed: a turn ended, a revert, a Rewind, an Undo), the scroll place and the selected
// lines stay where those lines still are, and a file marked reviewed whose diff changed
// loses its mark; another scope starts at the top with nothing selected.
func (v *View) SetChanges(ch review.Changes) {
	same := ch.Scope == v.ch.Scope && ch.Turn == v.ch.Turn && len(v.rows) > 0
	var keep place
	if same {
		keep = v.place()
	}
	v.ch = ch
	v.gen++
	v.hl.reset()
	v.cursor, v.anchor = -1, -1
	if same {
		v.dropChangedMarks()
	}
	for _, s := range scopeLabels {
		if s.s == ch.Scope && v.scope.Selected != s.label {
			v.scope.Selected = s.label
			v.scope.Refresh()
		}
	}
	added, deleted := 0, 0
	for _, f := range ch.Files {
		added += f.Added
		deleted += f.Deleted
	}
	switch {
	case len(ch.Files) == 0:
		v.summary.SetText("No changes in this scope.")
	default:
		v.summary.SetText(fmt.Sprintf("%s  +%d −%d", transcript.Count(len(ch.Files), "file", "files"), added, deleted))
	}
	v.relayout()
	if same {
		v.restore(keep)
	} else {
		v.diff.ScrollToTop()
	}
	v.files.Refresh()
	v.refreshSelection()
}

// Changes is what the view shows.
func (v *View) Changes() review.Changes { return v.ch }

// SetStatus shows a line above the diff ("" hides it): a failure, or what a revert did.
func (v *View) SetStatus(text string) {
	v.status.SetText(text)
	v.status.Hidden = text == ""
	v.content.Refresh()
}

// SetDraft shows how many comments wait for the next message.
func (v *View) SetDraft(n int) {
	switch n {
	case 0:
		v.draft.Hide()
	case 1:
		v.draft.SetText("1 comment will go with your next message.")
		v.draft.Show()
	default:
		v.draft.SetText(fmt.Sprintf("%d comments will go with your next message.", n))
		v.draft.Show()
	}
}

func (v *View) setSplit(on bool) {
	if on == v.split {
		return
	}
	v.split = on
	v.cursor, v.anchor = -1, -1
	v.relayout()
	v.refreshSelection()
}

// relayout builds the rows. Every row is a line high: the list sums no heights.
func (v *View) relayout() {
	v.rows, v.fileRow = buildRows(v.ch.Files, v.split)
	v.diff.Refresh()
}

// rowOffset is the distance of row id from the top of the diff: rows are a line high, with
// the dense theme's padding between them.
func (v *View) rowOffset(id int) float32 {
	return float32(id) * (v.lineH + densePadding)
}

// Rows is the number of rows of the diff (for tests and the bench).
func (v *View) Rows() int { return len(v.rows) }

// ScrollToRow scrolls the diff to show row id at the top.
func (v *View) ScrollToRow(id int) { v.diff.ScrollToOffset(v.rowOffset(id)) }

// SetReviewed marks a file shown reviewed, or no longer.
func (v *View) SetReviewed(path string, on bool) {
	f, shown := v.ch.File(path)
	if on == v.Reviewed(path) || (on && !shown) {
		return
	}
	diff := ""
	if on {
		diff = DiffPrint(f)
		v.reviewed[path] = diff
	} else {
		delete(v.reviewed, path)
	}
	if v.opts.OnReviewed != nil {
		v.opts.OnReviewed(path, diff)
	}
	v.files.Refresh()
	v.diff.Refresh()
}

// Reviewed says whether a file shown is marked reviewed (on the diff shown).
func (v *View) Reviewed(path string) bool {
	d, ok := v.reviewed[path]
	if !ok {
		return false
	}
	f, shown := v.ch.File(path)
	return shown && DiffPrint(f) == d
}

// SetMarks puts back the marks kept for the conversation (path → DiffPrint), as
// OnReviewed reported them; a mark whose file's diff is another shows nothing.
func (v *View) SetMarks(marks map[string]string) {
	v.reviewed = map[string]string{}
	for p, d := range marks {
		v.reviewed[p] = d
	}
	v.files.Refresh()
	v.diff.Refresh()
}

// lineOf is the line a row shows for comments: the new side where it has one.
func (v *View) lineOf(r row) (review.Line, bool) {
	if r.kind != rowLine {
		return review.Line{}, false
	}
	h := v.ch.Files[r.file].Hunks[r.hunk]
	if r.right >= 0 {
		return h.Lines[r.right], true
	}
	return h.Lines[r.left], true
}

// Select selects the lines of rows from anchor to cursor (one file only; a row of another
// file starts a new selection).
func (v *View) Select(anchor, cursor int) {
	if cursor < 0 || cursor >= len(v.rows) || v.rows[cursor].kind != rowLine {
		return
	}
	if anchor < 0 || anchor >= len(v.rows) || v.rows[anchor].kind != rowLine || v.rows[anchor].file != v.rows[cursor].file {
		anchor = cursor
	}
	v.anchor, v.cursor = anchor, cursor
	v.refreshSelection()
	v.diff.Refresh()
}

// SelectLine selects the row of line n of path (the new side's numbering, or the old one's
// when old), for tests and the keyboard; false when no row shows it.
func (v *View) SelectLine(path string, n int, old bool) bool {
	for i, r := range v.rows {
		if r.kind != rowLine || v.ch.Files[r.file].Path != path {
			continue
		}
		h := v.ch.Files[r.file].Hunks[r.hunk]
		for _, li := range []int{r.left, r.right} {
			if li < 0 {
				continue
			}
			l := h.Lines[li]
			if (!old && l.New == n && l.Kind != review.Delete) || (old && l.Old == n && l.Kind != review.Add) {
				v.Select(i, i)
				v.diff.ScrollTo(i)
				return true
			}
		}
	}
	return false
}

// MoveCursor moves the selection by delta line rows, extending it when extend is set.
func (v *View) MoveCursor(delta int, extend bool) {
	i := v.cursor
	if i < 0 {
		i = -1
		if delta < 0 {
			i = len(v.rows)
		}
	}
	for {
		i += delta
		if i < 0 || i >= len(v.rows) {
			return
		}
		if v.rows[i].kind == rowLine {
			break
		}
	}
	anchor := i
	if extend {
		anchor = v.anchor
	}
	v.Select(anchor, i)
	v.diff.ScrollTo(i)
}

// selection is the selected rows in order, and the comment they would get (without words).
func (v *View) selection() (review.Comment, bool) {
	if v.cursor < 0 || v.anchor < 0 {
		return review.Comment{}, false
	}
	a, b := min(v.anchor, v.cursor), max(v.anchor, v.cursor)
	c := review.Comment{Path: v.ch.Files[v.rows[a].file].Path}
	var olds, news []int
	for i := a; i <= b; i++ {
		l, ok := v.lineOf(v.rows[i])
		if !ok {
			continue
		}
		c.Lines = append(c.Lines, l.Text)
		if l.Kind == review.Delete {
			olds = append(olds, l.Old)
		} else {
			news = append(news, l.New)
		}
	}
	nums := news
	if len(news) == 0 {
		nums, c.Old = olds, true
	}
	if len(nums) == 0 {
		return review.Comment{}, false
	}
	c.Start, c.End = nums[0], nums[len(nums)-1]
	return c, true
}

func (v *View) refreshSelection() {
	c, ok := v.selection()
	if !ok {
		v.selLabel.SetText("Click a line's number to comment on it (Shift+click another for a range).")
		v.commentBtn.Disable()
		return
	}
	v.selLabel.SetText("Comment on " + c.Where())
	v.commentBtn.Enable()
}

// Comment adds the entry's words as a comment on the selected lines.
func (v *View) addComment() {
	c, ok := v.selection()
	words := strings.TrimSpace(v.entry.Text)
	if !ok || words == "" {
		v.SetStatus("Select lines and write a comment first.")
		return
	}
	c.Text = words
	v.entry.SetText("")
	v.SetStatus("")
	if v.opts.OnComment != nil {
		v.opts.OnComment(c)
	}
}

// Comment adds text as a comment on the selected lines, as the Add comment button does.
func (v *View) Comment(text string) {
	v.entry.SetText(text)
	v.addComment()
}

// FocusComment puts the keyboard in the comment box.
func (v *View) FocusComment(c fyne.Canvas) {
	if c != nil {
		c.Focus(v.entry)
	}
}

// RevertAtCursor asks to revert the hunk of the selected line.
func (v *View) RevertAtCursor() {
	if v.cursor < 0 || v.cursor >= len(v.rows) {
		return
	}
	r := v.rows[v.cursor]
	v.revert(r.file, r.hunk+1)
}

func (v *View) revert(file, hunk int) {
	if v.opts.OnRevert != nil && file < len(v.ch.Files) {
		v.opts.OnRevert(v.ch.Files[file].Path, hunk)
	}
}

func statusLetter(s review.Status) string {
	switch s {
	case review.Added:
		return "A"
	case review.Deleted:
		return "D"
	}
	return "M"
}

// densePadding is the space between the diff's rows.
const densePadding = 1

// denseTheme packs the diff's rows: almost no padding between lines of code. base is the
// app's theme when the view was made (inside the override, theme.Current is the override).
type denseTheme struct{ base fyne.Theme }

func (d denseTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	return d.base.Color(n, v)
}
func (d denseTheme) Font(s fyne.TextStyle) fyne.Resource     { return d.base.Font(s) }
func (d denseTheme) Icon(n fyne.ThemeIconName) fyne.Resource { return d.base.Icon(n) }
func (d denseTheme) Size(n fyne.ThemeSizeName) float32 {
	if n == theme.SizeNamePadding {
		return densePadding
	}
	return d.base.Size(n)
}

// Selection is the comment the selected lines would get (without words), false when no
// line is selected.
func (v *View) Selection() (review.Comment, bool) { return v.selection() }
