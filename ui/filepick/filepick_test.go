package filepick

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"go.uber.org/goleak"
)

// queue is the UI goroutine of the tests: the pickers' readers hand their results to it, and
// the test goroutine runs them (drain), which keeps the race detector quiet.
type queue struct {
	mu     sync.Mutex
	fns    []func()
	signal chan struct{}
}

func (q *queue) do(f func()) {
	q.mu.Lock()
	q.fns = append(q.fns, f)
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

func (q *queue) drain() {
	for {
		q.mu.Lock()
		fns := q.fns
		q.fns = nil
		q.mu.Unlock()
		if len(fns) == 0 {
			return
		}
		for _, f := range fns {
			f()
		}
	}
}

// scene is a window with a field that has the focus, and a folder to pick from:
// photos/ (a folder), a.png, b.txt and .secret.png.
type scene struct {
	t       *testing.T
	w       fyne.Window
	field   *widget.Entry
	dir     string
	prefs   fyne.Preferences
	chosen  []string
	q       *queue
	disk    disk // nil: the real disk
	pickers []*Picker
}

func newScene(t *testing.T) *scene {
	t.Helper()
	a := test.NewTempApp(t)
	s := &scene{t: t, field: widget.NewEntry(), dir: t.TempDir(), prefs: a.Preferences(), q: &queue{signal: make(chan struct{}, 1)}}
	s.w = test.NewTempWindow(t, s.field)
	s.w.Resize(fyne.NewSize(800, 600))
	s.w.Canvas().Focus(s.field)
	for _, d := range []string{"photos"} {
		if err := os.Mkdir(filepath.Join(s.dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"a.png", "b.txt", ".secret.png", "photos/c.png"} {
		if err := os.WriteFile(filepath.Join(s.dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// open shows a picker and waits until it lists its first folder.
func (s *scene) open(mode Mode, openAt string) *Picker {
	p := s.picker(Options{
		Mode: mode, Title: "Pick", Open: openAt, Start: s.dir, StartLabel: "Project folder",
		Show:  func(n string) bool { return strings.HasSuffix(n, ".png") },
		Prefs: s.prefs, Remember: "pick.test",
		OnChosen: func(path string) { s.chosen = append(s.chosen, path) },
	})
	p.Show()
	s.settle()
	return p
}

// picker makes a picker with the scene's queue and disk.
func (s *scene) picker(opt Options) *Picker {
	opt.Do, opt.disk = s.q.do, s.disk
	p := New(opt, s.w)
	s.pickers = append(s.pickers, p)
	return p
}

// settle runs the pickers' results on the test goroutine until none of them is reading.
func (s *scene) settle() {
	s.t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		s.q.drain()
		if !slices.ContainsFunc(s.pickers, func(p *Picker) bool {
			return p.read.ctx.Err() == nil && (p.Busy() || p.read.busy(laneNames))
		}) {
			return
		}
		select {
		case <-s.q.signal:
		case <-deadline.C:
			s.t.Fatal("a picker is still reading after 10s")
		}
	}
}

// waitFor runs the pickers' results until cond holds.
func (s *scene) waitFor(what string, cond func() bool) {
	s.t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		s.q.drain()
		if cond() {
			return
		}
		select {
		case <-s.q.signal:
		case <-deadline.C:
			s.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// key presses k on what has the focus, as the driver does, and lets the picker finish what
// it started.
func (s *scene) key(k fyne.KeyName) {
	s.t.Helper()
	s.press(k)
	s.settle()
}

// press presses k on what has the focus, as the driver does, and returns at once.
func (s *scene) press(k fyne.KeyName) {
	s.t.Helper()
	f := s.w.Canvas().Focused()
	if f == nil {
		s.t.Fatalf("nothing has the focus to press %s on", k)
	}
	if tab, ok := f.(fyne.Tabbable); k == fyne.KeyTab && (!ok || !tab.AcceptsTab()) {
		s.w.Canvas().FocusNext() // the driver moves the focus when the widget does not take Tab
		return
	}
	f.TypedKey(&fyne.KeyEvent{Name: k})
}

func (s *scene) shortcut(mod fyne.KeyModifier, k fyne.KeyName) {
	s.w.Canvas().Focused().(fyne.Shortcutable).TypedShortcut(&desktop.CustomShortcut{KeyName: k, Modifier: mod})
	s.settle()
}

func (s *scene) open_() bool { return s.w.Canvas().Overlays().Top() != nil }

// TestKeyboardChoosesAFile (issue 36): Down from the path field into the list, Enter opens a
// folder, Backspace goes back to its parent with the cursor on it, Enter on a file chooses it;
// the focus returns to the field that had it, and the folder is remembered for this use.
func TestKeyboardChoosesAFile(t *testing.T) {
	s := newScene(t)
	p := s.open(File, s.dir)
	if got, want := p.Names(), []string{"photos", "a.png"}; !slices.Equal(got, want) {
		t.Fatalf("the list shows %q, want %q (folders first, no hidden files, only the files shown)", got, want)
	}
	if s.w.Canvas().Focused() != p.path {
		t.Fatal("the picker did not open with the focus in its path field")
	}
	s.key(fyne.KeyDown) // into the list, on its first row
	s.key(fyne.KeyReturn)
	if p.Folder() != filepath.Join(s.dir, "photos") {
		t.Fatalf("Enter on the folder row shows %s", p.Folder())
	}
	s.key(fyne.KeyBackspace)
	if p.Folder() != s.dir || p.cursor != 0 {
		t.Fatalf("Backspace shows %s with row %d current, want %s with photos (row 0)", p.Folder(), p.cursor, s.dir)
	}
	s.key(fyne.KeyDown)
	s.key(fyne.KeyReturn)
	if want := filepath.Join(s.dir, "a.png"); !slices.Equal(s.chosen, []string{want}) {
		t.Fatalf("chosen %q, want %s", s.chosen, want)
	}
	if s.open_() {
		t.Fatal("the picker is still open after a file was chosen")
	}
	if s.w.Canvas().Focused() != s.field {
		t.Fatal("the focus did not return to the field that had it")
	}
	if got := s.prefs.String("pick.test"); got != s.dir {
		t.Fatalf("remembered folder %q, want %s", got, s.dir)
	}
	// The next picker of this use opens there, even when asked to start elsewhere.
	p = s.picker(Options{Mode: File, Start: os.TempDir(), Prefs: s.prefs, Remember: "pick.test"})
	s.settle()
	if p.Folder() != s.dir {
		t.Fatalf("the next picker opens in %s, want the remembered %s", p.Folder(), s.dir)
	}
}

// TestTypedPathTabAndEnter (issue 36): Tab completes a folder's name, Enter goes there, Enter
// again on the folder shown chooses it in Folder mode; ~ is the home folder; Tab with nothing
// to complete moves the focus on.
func TestTypedPathTabAndEnter(t *testing.T) {
	s := newScene(t)
	p := s.open(Folder, s.dir)
	if got := p.Names(); !slices.Equal(got, []string{"photos"}) {
		t.Fatalf("Folder mode lists %q, want only the folders", got)
	}
	p.setPath(filepath.Join(s.dir, "ph"))
	if !p.path.AcceptsTab() {
		t.Fatal("the path field does not take Tab to complete \"ph\"")
	}
	s.key(fyne.KeyTab)
	if want := filepath.Join(s.dir, "photos") + "/"; p.path.Text != want {
		t.Fatalf("Tab completed to %q, want %q", p.path.Text, want)
	}
	s.key(fyne.KeyTab) // nothing left to complete: the focus moves on
	if s.w.Canvas().Focused() == p.path {
		t.Fatal("Tab with nothing to complete kept the focus in the path field")
	}
	s.w.Canvas().Focus(p.path)
	s.key(fyne.KeyReturn)
	if p.Folder() != filepath.Join(s.dir, "photos") || len(s.chosen) != 0 {
		t.Fatalf("Enter on a typed folder shows %s and chose %q; want it shown, nothing chosen", p.Folder(), s.chosen)
	}
	s.key(fyne.KeyReturn)
	if want := filepath.Join(s.dir, "photos"); !slices.Equal(s.chosen, []string{want}) {
		t.Fatalf("Enter on the folder shown chose %q, want %s", s.chosen, want)
	}

	// ~ and the confirm button: Folder mode chooses the folder shown.
	home := t.TempDir()
	t.Setenv("HOME", home)
	s.chosen = nil
	p = s.open(Folder, s.dir)
	p.setPath("~")
	s.key(fyne.KeyReturn)
	if p.Folder() != home {
		t.Fatalf("~ went to %s, want %s", p.Folder(), home)
	}
	p.confirm.Tapped(nil)
	s.settle()
	if !slices.Equal(s.chosen, []string{home}) {
		t.Fatalf("Choose chose %q, want the folder shown %s", s.chosen, home)
	}
}

// TestEscapeCancels (issue 36): Escape from the path field, the list, the hidden files toggle
// or a button closes the picker without a choice and gives the focus back.
func TestEscapeCancels(t *testing.T) {
	s := newScene(t)
	for _, where := range []string{"path", "list", "toggle", "Cancel"} {
		p := s.open(File, s.dir)
		switch where {
		case "list":
			s.key(fyne.KeyDown)
		case "toggle":
			s.w.Canvas().Focus(p.showHidden)
		case "Cancel":
			s.w.Canvas().Focus(p.confirm)
		}
		s.key(fyne.KeyEscape)
		if s.open_() || len(s.chosen) != 0 {
			t.Fatalf("Escape in the %s: picker open %v, chosen %q", where, s.open_(), s.chosen)
		}
		if s.w.Canvas().Focused() != s.field {
			t.Fatalf("Escape in the %s did not give the focus back", where)
		}
	}
}

// TestProblemsAreLinesNotCrashes (issue 36): a file that vanished before Enter, a path that
// is not there and a file where a folder was asked for each give a line; nothing is chosen and
// the picker stays open. A hidden file appears with Ctrl+H.
func TestProblemsAreLinesNotCrashes(t *testing.T) {
	s := newScene(t)
	p := s.open(File, s.dir)
	s.key(fyne.KeyDown)
	s.key(fyne.KeyDown) // a.png
	if err := os.Remove(filepath.Join(s.dir, "a.png")); err != nil {
		t.Fatal(err)
	}
	s.key(fyne.KeyReturn)
	if len(s.chosen) != 0 || !strings.Contains(p.Problem(), "a.png") || !strings.Contains(p.Problem(), "not there") {
		t.Fatalf("a vanished file: chosen %q, line %q", s.chosen, p.Problem())
	}
	if slices.Contains(p.Names(), "a.png") {
		t.Fatal("the list still shows the vanished file")
	}
	s.shortcut(fyne.KeyModifierShortcutDefault, fyne.KeyH)
	if !slices.Contains(p.Names(), ".secret.png") {
		t.Fatalf("Ctrl+H did not show hidden files: %q", p.Names())
	}
	s.shortcut(fyne.KeyModifierAlt, fyne.KeyUp)
	if p.Folder() != filepath.Dir(s.dir) {
		t.Fatalf("Alt+Up shows %s, want the parent", p.Folder())
	}

	s.w.Canvas().Focus(p.path)
	p.setPath(filepath.Join(s.dir, "nothing-here"))
	s.key(fyne.KeyReturn)
	if !strings.Contains(p.Problem(), "nothing-here") || !s.open_() {
		t.Fatalf("a missing path: line %q, open %v", p.Problem(), s.open_())
	}
	f := s.open(Folder, s.dir)
	f.setPath(filepath.Join(s.dir, "b.txt"))
	f.confirm.Tapped(nil)
	s.settle()
	if !strings.Contains(f.Problem(), "is a file") || len(s.chosen) != 0 {
		t.Fatalf("a file in Folder mode: line %q, chosen %q", f.Problem(), s.chosen)
	}
	f.goTo(filepath.Join(s.dir, "b.txt"), nil)
	s.settle()
	if !strings.Contains(f.Problem(), "not a folder") || f.Folder() != s.dir {
		t.Fatalf("opening a file as a folder: line %q, shown %s", f.Problem(), f.Folder())
	}
	if os.Geteuid() != 0 { // root reads every folder
		locked := filepath.Join(s.dir, "locked")
		if err := os.Mkdir(locked, 0); err != nil {
			t.Fatal(err)
		}
		f.goTo(locked, nil)
		s.settle()
		if !strings.Contains(f.Problem(), "permission") {
			t.Fatalf("an unreadable folder: line %q", f.Problem())
		}
	}
}

// TestTenThousandEntries (issue 36): a large folder lists every name, folders first, and End
// reaches the last row.
func TestTenThousandEntries(t *testing.T) {
	s := newScene(t)
	big := makeBig(t, 10000)
	p := s.open(File, big)
	p.opt.Show = nil
	p.reload(nil)
	s.settle()
	names := p.Names()
	if len(names) != 10000 || names[0] != "dir-0000" || names[99] != "dir-0099" || names[100] != "file-0000" {
		t.Fatalf("%d names beginning %q", len(names), names[:3])
	}
	s.key(fyne.KeyDown)
	s.key(fyne.KeyEnd)
	if p.cursor != 9999 || !strings.HasSuffix(p.path.Text, "file-9899") {
		t.Fatalf("End: row %d, path %q", p.cursor, p.path.Text)
	}
	s.key(fyne.KeyEscape)
}

func makeBig(t testing.TB, n int) string {
	dir := t.TempDir()
	for i := range n {
		var err error
		if i < 100 {
			err = os.Mkdir(filepath.Join(dir, fmt.Sprintf("dir-%04d", i)), 0o755)
		} else {
			err = os.WriteFile(filepath.Join(dir, fmt.Sprintf("file-%04d", i-100)), nil, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// BenchmarkReadFolder10000 is listing a folder of 10,000 entries (read, filtered, sorted
// folders first): what opening it costs before the list draws its visible rows.
func BenchmarkReadFolder10000(b *testing.B) {
	dir := makeBig(b, 10000)
	b.ResetTimer()
	for b.Loop() {
		if _, err := readFolder(context.Background(), osDisk{}, dir, File, nil, false); err != nil {
			b.Fatal(err)
		}
	}
}

// hungDisk is the real disk, except that a read of a path in hung waits, as a read on a mount
// whose server went away does, until the test closes its channel; like the kernel's, the wait
// does not end when the reader cancels. Each read that waits says its path on started first.
type hungDisk struct {
	osDisk
	hung    map[string]chan struct{}
	started chan string
}

// newHungDisk makes a hungDisk whose paths wait until release; a test that fails early
// releases them as it ends.
func newHungDisk(t *testing.T, paths ...string) (h *hungDisk, release func()) {
	gate := make(chan struct{})
	h = &hungDisk{hung: map[string]chan struct{}{}, started: make(chan string, 8)}
	for _, p := range paths {
		h.hung[p] = gate
	}
	var once sync.Once
	release = func() { once.Do(func() { close(gate) }) }
	t.Cleanup(release)
	return h, release
}

func (h *hungDisk) wait(path string) {
	if gate, ok := h.hung[path]; ok {
		h.started <- path
		<-gate
	}
}

func (h *hungDisk) ReadDir(ctx context.Context, dir string) ([]fs.DirEntry, error) {
	h.wait(dir)
	return h.osDisk.ReadDir(ctx, dir)
}

func (h *hungDisk) Stat(path string) (fs.FileInfo, error) {
	h.wait(path)
	return h.osDisk.Stat(path)
}

// within runs f, as the UI goroutine would, and fails the test if it has not returned after
// a few seconds: the window would be frozen.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("the window froze: %s did not return", what)
	}
}

// TestHungFolderKeepsTheWindowResponsive (issue 36): a folder on a mount that stopped
// answering is read off the UI goroutine: Enter on it returns at once, the list says
// "Reading <folder>…", the keys still work (typing, Tab), Escape closes the picker and
// gives the focus back, and what the hung read returns after the picker closed is dropped,
// its goroutine ending with it.
func TestHungFolderKeepsTheWindowResponsive(t *testing.T) {
	s := newScene(t)
	nfs := filepath.Join(s.dir, "nfs")
	if err := os.Mkdir(nfs, 0o755); err != nil {
		t.Fatal(err)
	}
	hd, release := newHungDisk(t, nfs)
	s.disk = hd
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	p := s.open(File, s.dir)

	within(t, "Enter on a folder that does not answer", func() {
		p.setPath(nfs)
		s.press(fyne.KeyReturn)
	})
	s.waitFor("the list to say it is reading the folder", func() bool {
		return !p.reading.Hidden && strings.Contains(p.reading.Text, "Reading "+nfs+"…")
	})
	if !p.Busy() || p.Folder() != s.dir || !p.list.Hidden {
		t.Fatalf("while reading: busy %v, shown %s, list hidden %v", p.Busy(), p.Folder(), p.list.Hidden)
	}
	within(t, "typing a name inside it and Tab", func() {
		test.Type(p.path, "/do")
		if p.path.AcceptsTab() {
			t.Error("Tab completes from a folder that was never read")
		}
	})
	if p.path.Text != nfs+"/do" {
		t.Fatalf("typing while the folder is read gave %q", p.path.Text)
	}
	within(t, "Tab on to the next part", func() { s.press(fyne.KeyTab) })
	if s.w.Canvas().Focused() == p.path {
		t.Fatal("Tab with nothing to complete kept the focus in the path field while a folder was read")
	}
	within(t, "Escape", func() { s.press(fyne.KeyEscape) })
	if s.open_() || s.w.Canvas().Focused() != s.field || len(s.chosen) != 0 {
		t.Fatalf("after Escape: open %v, focus on %T, chosen %q", s.open_(), s.w.Canvas().Focused(), s.chosen)
	}

	release() // the server answers at last
	p.read.wg.Wait()
	s.q.drain()
	if p.Folder() != s.dir || slices.Contains(p.Names(), "nfs") == false {
		t.Fatalf("the late read changed the closed picker: it shows %s listing %q", p.Folder(), p.Names())
	}
}

// TestFifoIsNotAFolder (issue 36): a FIFO typed as a folder, or in a path Tab completes, is
// "not a folder" at once: the reader's open does not wait for a writer that never comes.
func TestFifoIsNotAFolder(t *testing.T) {
	s := newScene(t)
	fifo := filepath.Join(s.dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	p := s.open(Folder, s.dir)
	p.setPath(filepath.Join(fifo, "x"))
	s.settle()
	if p.path.AcceptsTab() {
		t.Error("Tab completes in a FIFO")
	}
	p.goTo(fifo, nil)
	s.settle()
	if !strings.Contains(p.Problem(), "not a folder") || p.Folder() != s.dir {
		t.Fatalf("a FIFO as a folder: line %q, shown %s", p.Problem(), p.Folder())
	}
	s.key(fyne.KeyEscape)
	p.read.wg.Wait()
}

// TestLatestFolderWins (issue 36): a folder that answers slowly, then another: the other is
// shown, and the slow one's listing, when it comes, does not replace it. A file being checked
// before it is chosen, then Home: Home is shown and the late check chooses nothing.
func TestLatestFolderWins(t *testing.T) {
	s := newScene(t)
	slow := filepath.Join(s.dir, "slow")
	if err := os.Mkdir(slow, 0o755); err != nil {
		t.Fatal(err)
	}
	late := filepath.Join(s.dir, "a.png")
	home := t.TempDir()
	t.Setenv("HOME", home)
	hd, release := newHungDisk(t, slow, late)
	s.disk = hd
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	p := s.open(File, s.dir)

	p.setPath(slow)
	s.press(fyne.KeyReturn)
	s.waitFor("the slow folder's read", func() bool { return len(hd.started) == 1 })
	photos := filepath.Join(s.dir, "photos")
	p.setPath(photos)
	s.press(fyne.KeyReturn)
	s.settle()
	if p.Folder() != photos {
		t.Fatalf("the folder chosen after a slow one: shown %s, want %s", p.Folder(), photos)
	}

	p.setPath(late)
	s.press(fyne.KeyReturn) // checks a.png before choosing it: waits
	s.waitFor("the file's check", func() bool { return len(hd.started) == 2 })
	s.shortcut(fyne.KeyModifierAlt, fyne.KeyHome)
	if p.Folder() != home {
		t.Fatalf("Alt+Home while a file was checked: shown %s", p.Folder())
	}

	release()
	p.read.wg.Wait()
	s.q.drain()
	if p.Folder() != home || p.path.Text != home+"/" || len(s.chosen) != 0 || !s.open_() {
		t.Fatalf("after the late answers: shown %s, path %q, chosen %q, open %v; want Home, nothing chosen", p.Folder(), p.path.Text, s.chosen, s.open_())
	}
	s.key(fyne.KeyEscape)
}

// TestTabCompletesInAnotherFolder (issue 36): a path typed into a folder other than the one
// shown has its names read as it is typed; Tab then completes from them.
func TestTabCompletesInAnotherFolder(t *testing.T) {
	s := newScene(t)
	p := s.open(File, filepath.Join(s.dir, "photos"))
	p.setPath(filepath.Join(s.dir, "pho"))
	s.settle()
	if !p.path.AcceptsTab() {
		t.Fatal("Tab does not complete a name in another folder once its names are read")
	}
	s.key(fyne.KeyTab)
	if want := filepath.Join(s.dir, "photos") + "/"; p.path.Text != want {
		t.Fatalf("Tab completed to %q, want %q", p.path.Text, want)
	}
	s.key(fyne.KeyEscape)
}
