package filepick

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/ui/button"
)

// Mode is what the picker chooses.
type Mode int

const (
	// File chooses one file.
	File Mode = iota
	// Folder chooses a folder: the one shown (or typed into the path field). Files are not
	// listed.
	Folder
)

// Options say what a picker is for.
type Options struct {
	Mode Mode
	// Title is the dialog's title; Confirm the word on its confirm button ("Attach", "Choose").
	Title, Confirm string
	// Open is where the picker opens when it names a folder that can be read (a folder
	// field's text); otherwise it opens in the folder remembered for this use, else in Start,
	// else in the home folder.
	Open string
	// Start is the starting folder, offered as a place beside Home under StartLabel.
	Start, StartLabel string
	// Show says which files are listed in File mode (folders always are); nil lists all.
	Show func(name string) bool
	// Prefs and Remember keep the last folder of this use: the folder of the chosen file,
	// or the chosen folder, is stored under the key Remember.
	Prefs    fyne.Preferences
	Remember string
	// OnChosen hears the chosen path, after the picker closed. Cancel calls nothing.
	OnChosen func(path string)
	// Do runs a function on the UI goroutine without waiting; nil means fyne.Do. The picker
	// reads the disk on its own goroutine and applies what it read through Do.
	Do func(func())

	disk disk // nil is the real disk; tests put in one that blocks
}

// entry is a row of the folder's list.
type entry struct {
	name, key string // key is the name in lower case, for sorting and jumping to a letter
	dir       bool
}

// Picker is the open picker: a dialog over the window. Show it as any dialog (package ui
// shows it with its showModal, so that Escape with nothing focused closes it too).
type Picker struct {
	*dialog.CustomDialog
	opt  Options
	win  fyne.Window
	home string

	dir     string  // the folder shown
	entries []entry // its list, folders first
	cursor  int     // the list's current row, -1 for none
	hidden  bool    // names beginning with a dot are listed

	read    *reader
	opening []string // where the picker opens: the first of these that can be read
	// names are every name of the folder namesDir, which Tab completes from: the folder
	// shown, or the one the path field names, read while the person types.
	names       []entry
	namesDir    string
	namesWanted string // the folder the reader is reading names of, or ""

	path        *pathEntry
	list        *fileList
	reading     *widget.Label // "Reading <folder>…", in the list's place while a read takes long
	status      *widget.Label
	showHidden  *toggle
	confirm     *button.Button
	prevFocused fyne.Focusable
}

// New makes a picker over win; Show shows it.
func New(opt Options, win fyne.Window) *Picker {
	p := &Picker{opt: opt, win: win, cursor: -1, read: newReader(opt.Do, opt.disk)}
	p.home, _ = os.UserHomeDir()
	p.path = newPathEntry(p)
	p.list = newFileList(p)
	p.reading = widget.NewLabel("")
	p.reading.Alignment = fyne.TextAlignCenter
	p.reading.Wrapping = fyne.TextWrapWord
	p.reading.Hide()
	p.status = widget.NewLabel("")
	p.status.Wrapping = fyne.TextWrapWord
	p.status.Importance = widget.WarningImportance
	p.status.Hide()
	p.showHidden = newToggle("Hidden files", p)
	p.showHidden.OnChanged = func(on bool) {
		p.hidden = on
		p.reload(nil)
	}
	up := p.button("", theme.MoveUpIcon(), p.parent)
	places := []fyne.CanvasObject{p.button("Home", theme.HomeIcon(), func() { p.goTo(p.home, nil) })}
	if opt.Start != "" && opt.Start != p.home {
		label := opt.StartLabel
		if label == "" {
			label = filepath.Base(opt.Start)
		}
		places = append(places, p.button(label, theme.FolderIcon(), func() { p.goTo(opt.Start, nil) }))
	}
	for _, b := range places {
		b.(*button.Button).Alignment = widget.ButtonAlignLeading
	}
	places = append(places, p.showHidden)
	top := container.NewBorder(nil, nil, up, nil, p.path)
	listed := container.NewStack(p.list, container.NewCenter(p.reading))
	content := container.NewBorder(top, p.status, container.NewVBox(places...), nil, listed)
	p.CustomDialog = dialog.NewCustomWithoutButtons(opt.Title, content, win)
	cancel := p.button("Cancel", theme.CancelIcon(), p.Hide)
	word := opt.Confirm
	if word == "" {
		word = map[Mode]string{File: "Open", Folder: "Choose"}[opt.Mode]
	}
	p.confirm = p.button(word, theme.ConfirmIcon(), p.confirmPressed)
	p.confirm.Importance = widget.HighImportance
	p.SetButtons([]fyne.CanvasObject{cancel, p.confirm})

	var at []string
	for _, d := range []string{opt.Open, p.remembered(), opt.Start, p.home, string(filepath.Separator)} {
		if d != "" {
			at = append(at, expand(d, p.home, p.home))
		}
	}
	p.opening = at
	p.openFirst(at)
	return p
}

// button is one of the picker's buttons: Escape on it cancels, as everywhere in the picker.
func (p *Picker) button(label string, icon fyne.Resource, tapped func()) *button.Button {
	b := button.NewWithIcon(label, icon, tapped)
	b.OnEscape = p.Hide
	return b
}

// Show shows the picker with the focus in its path field, sized to the window.
func (p *Picker) Show() {
	p.prevFocused = p.win.Canvas().Focused()
	p.CustomDialog.Show()
	cs := p.win.Canvas().Size()
	p.Resize(fyne.NewSize(min(760, cs.Width-24), min(520, cs.Height-24)))
	p.win.Canvas().Focus(p.path)
}

// Hide closes the picker without a choice (Cancel, Escape) and gives the focus back to what
// had it before the picker opened. A read under way is cancelled and its result dropped.
func (p *Picker) Hide() {
	p.read.close()
	p.CustomDialog.Hide()
	if p.prevFocused != nil {
		p.win.Canvas().Focus(p.prevFocused)
	}
}

// Dismiss is Hide.
func (p *Picker) Dismiss() { p.Hide() }

// Folder is the folder shown: "" until the first folder has been read.
func (p *Picker) Folder() string { return p.dir }

// Busy reports whether the picker is reading the disk for what it shows or chooses.
func (p *Picker) Busy() bool { return p.read.busy(laneFolder) }

// Names are the names the list shows, in its order.
func (p *Picker) Names() []string {
	out := make([]string, len(p.entries))
	for i, e := range p.entries {
		out[i] = e.name
	}
	return out
}

// Problem is the line the picker shows about what went wrong, or "".
func (p *Picker) Problem() string {
	if p.status.Hidden {
		return ""
	}
	return p.status.Text
}

func (p *Picker) remembered() string {
	if p.opt.Prefs == nil || p.opt.Remember == "" {
		return ""
	}
	return p.opt.Prefs.String(p.opt.Remember)
}

// say shows a line about a problem ("" hides it).
func (p *Picker) say(s string) {
	p.status.SetText(s)
	if s == "" {
		p.status.Hide()
	} else {
		p.status.Show()
	}
}

// openFirst shows the first folder of at that can be read (the picker's opening).
func (p *Picker) openFirst(at []string) {
	if len(at) == 0 {
		return
	}
	opt, d, hidden, before := p.opt, p.read.disk, p.hidden, p.path.Text
	p.folderJob(at[0], func(ctx context.Context) func() {
		for _, dir := range at {
			l, err := readFolder(ctx, d, dir, opt.Mode, opt.Show, hidden)
			if err == nil {
				return func() { p.show(dir, l, before) }
			}
			if ctx.Err() != nil {
				break
			}
		}
		return func() {}
	})
}

// folderJob runs work in the folder lane; if it takes long, the list says it is reading
// what (a folder, or a path being checked) until it ends or something else supersedes it.
func (p *Picker) folderJob(what string, work func(ctx context.Context) func()) {
	p.read.run(laneFolder, func() {
		p.reading.SetText(fmt.Sprintf("Reading %s…\nHome or another folder goes there instead; Escape closes the picker.", what))
		p.reading.Show()
		p.list.Hide()
	}, work)
}

// notReading puts the list back in place of "Reading …".
func (p *Picker) notReading() {
	if !p.reading.Hidden {
		p.reading.Hide()
		p.list.Show()
	}
}

// goTo starts going to the folder dir; once it is shown, then runs (if not nil). When it
// cannot be read, the picker stays where it was and says why. The read is the picker
// reader's: the window goes on while it lasts, and a later goTo supersedes it.
func (p *Picker) goTo(dir string, then func()) {
	opt, d, hidden, before := p.opt, p.read.disk, p.hidden, p.path.Text
	p.folderJob(dir, func(ctx context.Context) func() {
		l, err := readFolder(ctx, d, dir, opt.Mode, opt.Show, hidden)
		return func() {
			if err != nil {
				p.notReading()
				p.say(fmt.Sprintf("Could not open %s: %s. Choose another folder.", dir, reason(err)))
				return
			}
			p.show(dir, l, before)
			if then != nil {
				then()
			}
		}
	})
}

// show puts the listing l of dir in the picker. The path field gets the folder unless the
// person typed there while it was read (it held before when the read started).
func (p *Picker) show(dir string, l listing, before string) {
	p.notReading()
	p.dir, p.entries, p.cursor = dir, l.shown, -1
	p.names, p.namesDir = l.all, dir
	p.list.UnselectAll()
	p.list.Refresh()
	p.list.ScrollToTop()
	if p.path.Text == before {
		p.setPath(withSeparator(dir))
	}
	p.say("")
}

// reload lists the folder shown again (hidden files toggled, a file vanished), then runs
// then (if not nil).
func (p *Picker) reload(then func()) {
	if p.dir == "" {
		p.openFirst(p.opening) // nothing shown yet: open again, with the settings as they are now
		return
	}
	name := ""
	if p.cursor >= 0 && p.cursor < len(p.entries) {
		name = p.entries[p.cursor].name
	}
	p.goTo(p.dir, func() {
		if name != "" {
			p.moveToName(name)
		}
		if then != nil {
			then()
		}
	})
}

// parent goes to the folder above, with the list's cursor on the folder it came from.
func (p *Picker) parent() {
	up := filepath.Dir(p.dir)
	if up == p.dir || p.dir == "" {
		return
	}
	from := filepath.Base(p.dir)
	p.goTo(up, func() { p.moveToName(from) })
}

func (p *Picker) setPath(s string) {
	p.path.SetText(s)
	p.path.CursorColumn = len([]rune(s))
	p.path.Refresh()
}

// moveTo puts the list's cursor on row i (kept within the list) and shows it.
func (p *Picker) moveTo(i int) {
	if len(p.entries) == 0 {
		return
	}
	i = max(0, min(i, len(p.entries)-1))
	p.list.Select(i)
	p.selected(i)
}

func (p *Picker) moveToName(name string) {
	for i, e := range p.entries {
		if e.name == name {
			p.moveTo(i)
			return
		}
	}
}

// selected follows the list's selection (keys or a click): in File mode a file's path goes
// into the path field, so Enter there or the confirm button chooses it.
func (p *Picker) selected(i int) {
	p.cursor = i
	if p.opt.Mode == File && i < len(p.entries) && !p.entries[i].dir {
		p.setPath(filepath.Join(p.dir, p.entries[i].name))
	}
}

// activate is Enter or a double click on row i: a folder opens, a file is chosen.
func (p *Picker) activate(i int) {
	if i < 0 || i >= len(p.entries) {
		return
	}
	e := p.entries[i]
	path := filepath.Join(p.dir, e.name)
	if e.dir {
		p.goTo(path, nil)
		return
	}
	if p.opt.Mode == File {
		p.choose(path)
	}
}

// submitPath is Enter in the path field: a folder other than the one shown is gone to; the
// folder shown is chosen in Folder mode; a file is chosen in File mode.
func (p *Picker) submitPath() {
	path := p.typed()
	p.stat(path, func(st fs.FileInfo, err error) {
		switch {
		case err != nil:
			p.say(fmt.Sprintf("Could not find %s: %s. Check the name, or pick from the list.", path, reason(err)))
		case st.IsDir() && (path != p.dir || p.opt.Mode == File):
			if path == p.dir {
				p.activate(p.cursor) // the folder's path with a folder row selected: open it
				return
			}
			p.goTo(path, nil)
		case st.IsDir(), p.opt.Mode == File:
			p.done(path)
		default:
			p.say(path + " is a file. Choose a folder.")
		}
	})
}

// stat looks path up on the reader, then runs then on the UI goroutine with what it found
// (unless something the person did since supersedes it).
func (p *Picker) stat(path string, then func(fs.FileInfo, error)) {
	d := p.read.disk
	p.folderJob(path, func(context.Context) func() {
		st, err := d.Stat(path)
		return func() {
			p.notReading()
			then(st, err)
		}
	})
}

// confirmPressed is the confirm button: in Folder mode it chooses the folder typed (the one
// shown, unless another was typed); in File mode it does what Enter in the path field does.
func (p *Picker) confirmPressed() {
	if p.opt.Mode == File {
		if p.typed() == p.dir && (p.cursor < 0 || !p.entries[p.cursor].dir) {
			p.say("Choose a file from the list, or type its name.")
			return
		}
		p.submitPath()
		return
	}
	path := p.typed()
	p.stat(path, func(st fs.FileInfo, err error) {
		if err != nil {
			p.say(fmt.Sprintf("Could not find %s: %s. Check the name, or pick from the list.", path, reason(err)))
		} else if !st.IsDir() {
			p.say(path + " is a file. Choose a folder.")
		} else {
			p.done(path)
		}
	})
}

// typed is the path field's text as a full path (~ is the home folder; a relative path is
// under the folder shown).
func (p *Picker) typed() string {
	return expand(p.path.Text, p.dir, p.home)
}

// choose closes the picker with path, checking first that it is still there.
func (p *Picker) choose(path string) {
	p.stat(path, func(_ fs.FileInfo, err error) {
		if err != nil {
			problem := fmt.Sprintf("Could not choose %s: %s. Choose another.", path, reason(err))
			p.say(problem)
			p.reload(func() { p.say(problem) })
			return
		}
		p.done(path)
	})
}

// done closes the picker with path, which was just found on the disk.
func (p *Picker) done(path string) {
	folder := path
	if p.opt.Mode == File {
		folder = filepath.Dir(path)
	}
	if p.opt.Prefs != nil && p.opt.Remember != "" {
		p.opt.Prefs.SetString(p.opt.Remember, folder)
	}
	p.Hide()
	if p.opt.OnChosen != nil {
		p.opt.OnChosen(path)
	}
}

// toggleHidden is Ctrl+H.
func (p *Picker) toggleHidden() { p.showHidden.SetChecked(!p.showHidden.Checked) }

// shortcut runs the picker's shortcuts, whichever of its parts has the focus, and reports
// whether s was one.
func (p *Picker) shortcut(s fyne.Shortcut) bool {
	cs, ok := s.(*desktop.CustomShortcut)
	if !ok {
		return false
	}
	switch {
	case cs.Modifier == fyne.KeyModifierAlt && cs.KeyName == fyne.KeyUp:
		p.parent()
	case cs.Modifier == fyne.KeyModifierAlt && cs.KeyName == fyne.KeyHome:
		p.goTo(p.home, nil)
	case cs.Modifier == fyne.KeyModifierShortcutDefault && cs.KeyName == fyne.KeyH:
		p.toggleHidden()
	case cs.Modifier == fyne.KeyModifierShortcutDefault && cs.KeyName == fyne.KeyL:
		p.win.Canvas().Focus(p.path)
	default:
		return false
	}
	return true
}

// completion is the path field's text with its last name completed as far as the names in
// its folder agree, or the text itself when there is nothing to add. It reads no disk: the
// names are the folder shown's, or those the reader read as the person typed (pathChanged);
// until they are there, Tab moves the focus on as usual.
func (p *Picker) completion() string {
	text := p.path.Text
	if text == "" || strings.HasSuffix(text, string(filepath.Separator)) {
		return text
	}
	full := p.typed()
	dir, prefix := filepath.Dir(full), filepath.Base(full)
	if dir != p.namesDir {
		return text
	}
	var match []string
	onlyDir := false
	for _, e := range p.names {
		name := e.name
		if !strings.HasPrefix(name, prefix) || (strings.HasPrefix(name, ".") && !strings.HasPrefix(prefix, ".") && !p.hidden) {
			continue
		}
		if p.opt.Mode == Folder && !e.dir {
			continue
		}
		match = append(match, name)
		onlyDir = e.dir
	}
	if len(match) == 0 {
		return text
	}
	common := match[0]
	for _, m := range match[1:] {
		n := 0
		for n < len(common) && n < len(m) && common[n] == m[n] {
			n++
		}
		common = common[:n]
	}
	add := common[len(prefix):]
	if len(match) == 1 && onlyDir {
		add += string(filepath.Separator)
	}
	return text + add
}

// pathChanged follows the path field: when its text is in a folder other than the one whose
// names Tab completes from, the reader reads that folder's names.
func (p *Picker) pathChanged() {
	text := p.path.Text
	if text == "" || p.dir == "" {
		return
	}
	dir := p.typed()
	if !strings.HasSuffix(text, string(filepath.Separator)) {
		dir = filepath.Dir(dir)
	}
	if dir == p.namesDir || dir == p.namesWanted {
		return
	}
	p.namesWanted = dir
	d := p.read.disk
	p.read.run(laneNames, nil, func(ctx context.Context) func() {
		// A folder that cannot be read lists no names (Tab moves on), and is not read again
		// at each key typed after it.
		l, _ := readFolder(ctx, d, dir, Folder, nil, true)
		return func() {
			p.namesWanted = ""
			p.names, p.namesDir = l.all, dir
		}
	})
}

// listing is a folder read: every name (Tab completes from them) and those the list shows,
// each folders first, by name ignoring case.
type listing struct {
	all, shown []entry
}

// readFolder reads dir for the picker (on its reader, never on the UI goroutine). The list
// shows names beginning with a dot only when hidden is set; only folders in Folder mode, and
// only the files show accepts in File mode.
func readFolder(ctx context.Context, d disk, dir string, mode Mode, show func(string) bool, hidden bool) (listing, error) {
	des, err := d.ReadDir(ctx, dir)
	if err != nil && (len(des) == 0 || ctx.Err() != nil) {
		return listing{}, err
	}
	all := make([]entry, 0, len(des))
	for i, de := range des {
		if i%readBatch == 0 && ctx.Err() != nil {
			return listing{}, ctx.Err()
		}
		name := de.Name()
		all = append(all, entry{name: name, key: strings.ToLower(name), dir: isFolder(d, dir, de)})
	}
	slices.SortFunc(all, func(a, b entry) int {
		switch {
		case a.dir != b.dir:
			if a.dir {
				return -1
			}
			return 1
		case a.key != b.key:
			return strings.Compare(a.key, b.key)
		}
		return strings.Compare(a.name, b.name)
	})
	shown := make([]entry, 0, len(all))
	for _, e := range all {
		if !hidden && strings.HasPrefix(e.name, ".") {
			continue
		}
		if !e.dir && (mode == Folder || (show != nil && !show(e.name))) {
			continue
		}
		shown = append(shown, e)
	}
	return listing{all: all, shown: shown}, nil
}

// isFolder reports whether de is a folder or a link to one.
func isFolder(d disk, dir string, de fs.DirEntry) bool {
	if de.Type()&fs.ModeSymlink == 0 {
		return de.IsDir()
	}
	st, err := d.Stat(filepath.Join(dir, de.Name()))
	return err == nil && st.IsDir()
}

// expand makes s a clean full path: ~ is home, a relative path is under dir.
func expand(s, dir, home string) string {
	s = strings.TrimSpace(s)
	switch {
	case s == "~":
		s = home
	case strings.HasPrefix(s, "~"+string(filepath.Separator)):
		s = filepath.Join(home, s[2:])
	case !filepath.IsAbs(s):
		s = filepath.Join(dir, s)
	}
	return filepath.Clean(s)
}

func withSeparator(dir string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return dir
	}
	return dir + string(filepath.Separator)
}

// reason says in words why a file or folder could not be read.
func reason(err error) string {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return "you do not have permission to read it"
	case errors.Is(err, fs.ErrNotExist):
		return "it is not there (moved, renamed or deleted)"
	case errors.Is(err, syscall.ENOTDIR):
		return "it is not a folder"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
