package filepick

import (
	"strings"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// pathEntry is the path field: Enter goes or chooses, Tab completes a name (and moves the
// focus on as usual when there is nothing to complete), Down goes to the list, Escape cancels.
type pathEntry struct {
	widget.Entry
	p     *Picker
	shift bool
}

func newPathEntry(p *Picker) *pathEntry {
	e := &pathEntry{p: p}
	e.Wrapping = fyne.TextWrap(fyne.TextTruncateClip)
	e.SetPlaceHolder("Type a path, or pick from the list")
	e.OnChanged = func(string) { p.pathChanged() }
	e.ExtendBaseWidget(e)
	return e
}

// AcceptsTab keeps Tab in the field only while it completes something, so that Tab still
// moves a keyboard user on to the list and the buttons.
func (e *pathEntry) AcceptsTab() bool {
	return !e.shift && e.p.completion() != e.Text
}

// TypedKey handles the picker's keys before the field's own.
func (e *pathEntry) TypedKey(k *fyne.KeyEvent) {
	switch k.Name {
	case fyne.KeyEscape:
		e.p.Hide()
	case fyne.KeyReturn, fyne.KeyEnter:
		e.p.submitPath()
	case fyne.KeyTab:
		if c := e.p.completion(); c != e.Text {
			e.p.setPath(c)
		}
	case fyne.KeyDown:
		e.p.win.Canvas().Focus(e.p.list)
	default:
		e.Entry.TypedKey(k)
	}
}

// KeyDown follows Shift, so that Shift+Tab always moves the focus back.
func (e *pathEntry) KeyDown(k *fyne.KeyEvent) {
	if k.Name == "LeftShift" || k.Name == "RightShift" {
		e.shift = true
	}
	e.Entry.KeyDown(k)
}

// KeyUp follows Shift.
func (e *pathEntry) KeyUp(k *fyne.KeyEvent) {
	if k.Name == "LeftShift" || k.Name == "RightShift" {
		e.shift = false
	}
	e.Entry.KeyUp(k)
}

// TypedShortcut runs the picker's shortcuts, else the field's own (copy, paste…).
func (e *pathEntry) TypedShortcut(s fyne.Shortcut) {
	if !e.p.shortcut(s) {
		e.Entry.TypedShortcut(s)
	}
}

// fileList is the folder's list. Its current row is the selected one: widget.List's own
// keyboard focus row cannot be moved or reset from outside, so the list draws no focus row of
// its own and the keys move the selection.
type fileList struct {
	widget.List
	p *Picker
}

func newFileList(p *Picker) *fileList {
	l := &fileList{p: p}
	l.Length = func() int { return len(p.entries) }
	l.CreateItem = func() fyne.CanvasObject { return newRow(p) }
	l.UpdateItem = func(id widget.ListItemID, o fyne.CanvasObject) {
		if id < len(p.entries) {
			o.(*row).set(id, p.entries[id])
		}
	}
	l.OnSelected = func(id widget.ListItemID) {
		if id != p.cursor {
			p.selected(id)
		}
	}
	l.ExtendBaseWidget(l)
	return l
}

// FocusGained puts the cursor on the first row when none is current.
func (l *fileList) FocusGained() {
	if l.p.cursor < 0 {
		l.p.moveTo(0)
	}
}

// FocusLost leaves the selection where it is.
func (l *fileList) FocusLost() {}

// page is how many rows PageUp and PageDown move.
const page = 10

// TypedKey moves through the list and acts on its current row.
func (l *fileList) TypedKey(k *fyne.KeyEvent) {
	p := l.p
	switch k.Name {
	case fyne.KeyUp:
		p.moveTo(p.cursor - 1)
	case fyne.KeyDown:
		p.moveTo(p.cursor + 1)
	case fyne.KeyPageUp:
		p.moveTo(p.cursor - page)
	case fyne.KeyPageDown:
		p.moveTo(p.cursor + page)
	case fyne.KeyHome:
		p.moveTo(0)
	case fyne.KeyEnd:
		p.moveTo(len(p.entries) - 1)
	case fyne.KeyReturn, fyne.KeyEnter:
		p.activate(p.cursor)
	case fyne.KeyBackspace:
		p.parent()
	case fyne.KeyEscape:
		p.Hide()
	}
}

// TypedRune jumps to the next name that begins with the letter typed.
func (l *fileList) TypedRune(r rune) {
	p := l.p
	n := len(p.entries)
	want := string(unicode.ToLower(r))
	for i := 1; i <= n; i++ {
		j := (p.cursor + i + n) % n
		if strings.HasPrefix(p.entries[j].key, want) {
			p.moveTo(j)
			return
		}
	}
}

// TypedShortcut runs the picker's shortcuts.
func (l *fileList) TypedShortcut(s fyne.Shortcut) { l.p.shortcut(s) }

// row is one name of the list: a click selects it, a double click opens or chooses it.
type row struct {
	widget.BaseWidget
	p     *Picker
	id    int
	icon  *widget.Icon
	label *widget.Label
}

func newRow(p *Picker) *row {
	r := &row{p: p, icon: widget.NewIcon(theme.FileIcon()), label: widget.NewLabel("")}
	r.label.Truncation = fyne.TextTruncateEllipsis
	r.ExtendBaseWidget(r)
	return r
}

func (r *row) set(id int, e entry) {
	r.id = id
	if e.dir {
		r.icon.SetResource(theme.FolderIcon())
	} else {
		r.icon.SetResource(theme.FileIcon())
	}
	r.label.SetText(e.name)
}

func (r *row) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewBorder(nil, nil, r.icon, nil, r.label))
}

// Tapped selects the row, as the list does for rows that take no taps themselves.
func (r *row) Tapped(*fyne.PointEvent) { r.p.moveTo(r.id) }

// DoubleTapped opens a folder or chooses a file.
func (r *row) DoubleTapped(*fyne.PointEvent) { r.p.activate(r.id) }

// toggle is the hidden files check box: Escape on it cancels, Ctrl+H toggles it anywhere.
type toggle struct {
	widget.Check
	p *Picker
}

func newToggle(label string, p *Picker) *toggle {
	t := &toggle{p: p}
	t.Text = label
	t.ExtendBaseWidget(t)
	return t
}

// TypedKey cancels the picker on Escape.
func (t *toggle) TypedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyEscape {
		t.p.Hide()
		return
	}
	t.Check.TypedKey(k)
}

// TypedShortcut runs the picker's shortcuts.
func (t *toggle) TypedShortcut(s fyne.Shortcut) { t.p.shortcut(s) }
