package ui

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/phoenix-desktop/phoenix/actors"
)

// testNow is the fixed clock of the UI tests, so that times and images are reproducible.
var testNow = time.Date(2025, 3, 14, 15, 9, 26, 0, time.Local)

// queue stands in for fyne.Do in tests: functions meant for the UI goroutine wait here until
// the test goroutine runs them, so the test goroutine is the only one that touches widgets.
type queue struct {
	mu     sync.Mutex
	fns    []func()
	signal chan struct{}
}

func newQueue() *queue { return &queue{signal: make(chan struct{}, 1)} }

func (q *queue) push(f func()) {
	q.mu.Lock()
	q.fns = append(q.fns, f)
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

// drain runs queued functions until none is left.
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

// harness is a main window on Fyne's headless test driver with a fake backend.
type harness struct {
	t    testing.TB
	app  fyne.App
	f    *fakeBackend
	q    *queue
	m    *MainWindow
	deps Deps
}

func newHarness(t testing.TB, setup func(f *fakeBackend, d *Deps)) *harness {
	t.Helper()
	f := newFakeBackend()
	h := &harness{t: t, f: f, q: newQueue()}
	h.deps = Deps{Do: h.q.push, Now: func() time.Time { return testNow }}
	if setup != nil {
		setup(f, &h.deps)
	}
	h.start(f, f.sub)
	t.Cleanup(func() {
		f.mu.Lock()
		f.closed = true
		f.mu.Unlock()
	})
	return h
}

// start opens the main window on a backend and waits for the conversation list.
func (h *harness) start(b Backend, events EventSource) {
	h.t.Helper()
	h.app = test.NewTempApp(h.t)
	h.app.Settings().SetTheme(fixedVariant{Theme(), theme.VariantLight})
	h.m = NewMainWindow(h.app, b, events, h.deps)
	h.m.win.Resize(fyne.NewSize(1100, 720))
	h.t.Cleanup(func() {
		h.m.win.Close()
		h.q.drain()
	})
	h.waitFor("the conversation list", func() bool { return h.m.listLoaded })
	// As Run does once the window is on the screen.
	h.m.probeSandbox()
	if f, ok := b.(*fakeBackend); !ok || f.sandboxGate == nil {
		h.waitFor("the sandbox's description", func() bool { return h.m.sandboxKnown })
	}
}

// waitFor runs queued UI work until cond holds, or fails the test after a deadline.
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		h.q.drain()
		if cond() {
			return
		}
		select {
		case <-h.q.signal:
		case <-time.After(20 * time.Millisecond):
			// Background goroutines (the pump, commands) push work; poll briefly for it.
		case <-deadline.C:
			h.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// settle runs UI work until nothing has arrived for a short while (the pump's delta timer
// included).
func (h *harness) settle() {
	h.t.Helper()
	quiet := 0
	for quiet < 3 {
		h.q.drain()
		select {
		case <-h.q.signal:
			quiet = 0
		case <-time.After(2 * deltaInterval):
			quiet++
		}
	}
}

// open opens a conversation as a click in the sidebar would, and waits for its history.
func (h *harness) open(id string) {
	h.t.Helper()
	h.waitFor("conversation "+id+" in the sidebar", func() bool {
		return slices.ContainsFunc(h.m.sidebar.convs, func(cs *convState) bool { return cs.id == id })
	})
	i := slices.IndexFunc(h.m.sidebar.convs, func(cs *convState) bool { return cs.id == id })
	h.m.sidebar.list.Select(i)
	h.waitFor("conversation "+id+" to load", func() bool { return h.m.current != nil && h.m.current.id == id && h.m.current.loaded })
	h.settle()
}

// rows returns the kinds of the open conversation's rows.
func (h *harness) rows() []*row {
	var out []*row
	for i := 0; i < h.m.current.model.len(); i++ {
		out = append(out, h.m.current.model.at(i))
	}
	return out
}

func (h *harness) lastRow() *row {
	n := h.m.current.model.len()
	if n == 0 {
		return nil
	}
	return h.m.current.model.at(n - 1)
}

// visibleRowViews returns the row widgets the chat list shows now.
func (h *harness) visibleRowViews() []*rowView {
	var out []*rowView
	walk(h.m.cv.list, func(o fyne.CanvasObject) {
		if v, ok := o.(*rowView); ok && v.Visible() && v.bound != nil {
			out = append(out, v)
		}
	})
	return out
}

// walk visits the rendered object tree under o.
func walk(o fyne.CanvasObject, f func(fyne.CanvasObject)) {
	f(o)
	switch x := o.(type) {
	case *fyne.Container:
		for _, c := range x.Objects {
			walk(c, f)
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(x).Objects() {
			walk(c, f)
		}
	}
}

// typeAndSend types into the composer and presses Enter.
func (h *harness) typeAndSend(text string) {
	h.m.win.Canvas().Focus(h.m.composer.entry)
	test.Type(h.m.composer.entry, text)
	h.m.composer.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
}

// pngFile writes a small PNG of one colour and returns its URI.
func pngFile(t testing.TB, dir, name string, w, h int, c color.Color) fyne.URI {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return fileURI(p)
}

func pngBytes(t testing.TB, w, h int, c color.Color) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func fileURI(p string) fyne.URI { return storage.NewFileURI(p) }

// fixedVariant is a theme that always draws one variant, for reproducible images.
type fixedVariant struct {
	fyne.Theme
	v fyne.ThemeVariant
}

func (f fixedVariant) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return f.Theme.Color(n, f.v)
}

func themeVariant(v uint) fyne.ThemeVariant { return fyne.ThemeVariant(v) }

// sandboxStatus is a sandbox report with the given availability, Landlock ABI and reason, and
// one layer, so that the badge's details have something to show.
func sandboxStatus(available bool, abi int, reason string) SandboxStatus {
	var s SandboxStatus
	s.Available, s.ABI, s.Reason = available, abi, reason
	s.Layers = append(s.Layers, actors.SandboxLayer{Name: "Landlock", Active: available, Detail: fmt.Sprintf("ABI %d", abi)})
	return s
}
