package ui

import (
	"fmt"
	"testing"

	"fyne.io/fyne/v2"
)

// fakeWM is a window manager for the placement tests. Like Openbox, it frames the window a
// moment after it is asked where it is, takes a position asked before that as the window's
// own and one asked later as the frame's (icccm: both as the frame's), and frames with a left
// edge of 1 and a title bar of 20 pixels.
type fakeWM struct {
	icccm     bool
	framed    bool
	asked     int
	frame     point
	maximized bool
	maxAsked  bool
	mons      []rect
}

var fakeEdge = point{1, 20}

func (f *fakeWM) where(fyne.Window) (place, bool) {
	f.asked++
	if f.asked > 1 {
		f.framed = true
	}
	return place{frame: f.frame, client: f.frame.add(fakeEdge), framed: f.framed, maximized: f.maximized}, true
}

func (f *fakeWM) move(_ fyne.Window, at point) {
	if f.framed || f.icccm {
		f.frame = at
		return
	}
	f.frame = at.sub(fakeEdge)
}

func (f *fakeWM) maximize(fyne.Window) { f.maximized, f.maxAsked = true, true }
func (f *fakeWM) monitors() []rect {
	if f.mons != nil {
		return f.mons
	}
	return []rect{{0, 0, 1280, 800}}
}

// restoreUnder opens the window again under a window manager that first places it at 40,40,
// and waits until it has been put in its place.
func restoreUnder(t *testing.T, h *harness, wm *fakeWM) *MainWindow {
	t.Helper()
	wm.frame = point{40, 40}
	m := reopen(t, h)
	m.placer = wm
	m.restorePlace()
	h.waitFor("the window placed", func() bool { return m.placing == nil })
	return m
}

// TestWindowComesBackWhereItWas (issue 41 item 6): placed at 100,60, closed and opened three
// times, the window comes back at 100,60 each time, under an Openbox-like window manager and
// an ICCCM one (the frame's place was saved and restored as the window's own, so the window
// crept up by its title bar each time: 40, 20, 0).
func TestWindowComesBackWhereItWas(t *testing.T) {
	for _, icccm := range []bool{false, true} {
		h := newHarness(t, nil)
		wm := &fakeWM{icccm: icccm, framed: true, asked: 1, frame: point{100, 60}}
		h.m.placer = wm
		h.m.saveWindow()
		for i := 1; i <= 3; i++ {
			wm = &fakeWM{icccm: icccm}
			m := restoreUnder(t, h, wm)
			if wm.frame != (point{100, 60}) {
				t.Errorf("icccm %v, start %d: the frame is at %v, want 100,60 (saved %q)", icccm, i, wm.frame, h.app.Preferences().String(prefGeometry))
			}
			m.saveWindow()
		}
	}
}

// TestMaximizedWindowComesBackMaximized (issue 41 item 6): closed maximized, the window opens
// maximized again, over its size and place from before it was maximized (not unmaximized at
// the screen's size with its title bar off the screen).
func TestMaximizedWindowComesBackMaximized(t *testing.T) {
	t.Setenv("FYNE_SCALE", "1")
	h := newHarness(t, nil)
	h.m.win.Resize(fyne.NewSize(900, 600))
	wm := &fakeWM{framed: true, asked: 1, frame: point{100, 60}}
	h.m.placer = wm
	h.m.saveWindow()
	// Maximized: the window fills the screen, its frame at the corner.
	h.m.win.Resize(fyne.NewSize(1278, 775))
	wm.frame, wm.maximized = point{0, 0}, true
	h.m.saveWindow()
	wm = &fakeWM{}
	m := restoreUnder(t, h, wm)
	if !wm.maxAsked {
		t.Fatal("a window closed maximized did not open maximized")
	}
	if got := m.win.Canvas().Size(); got != fyne.NewSize(900, 600) {
		t.Errorf("under the maximized window its size is %v, want the 900×600 it had", got)
	}
	if wm.frame != (point{100, 60}) {
		t.Errorf("under the maximized window its place is %v, want 100,60", wm.frame)
	}
}

// TestWindowTitleBarStaysOnAScreen (issue 41 item 6): a place above the screen, or on a
// monitor no longer there, opens with the title bar on a screen.
func TestWindowTitleBarStaysOnAScreen(t *testing.T) {
	mons := []rect{{0, 0, 1280, 800}, {1280, 100, 1024, 768}}
	for _, c := range []struct {
		at   point
		want point
	}{
		{point{100, 60}, point{100, 60}},     // on the screen: kept
		{point{100, -40}, point{100, 0}},     // above it
		{point{1500, 50}, point{1500, 100}},  // above the second monitor's top
		{point{3000, 300}, point{2240, 300}}, // right of every monitor: its grip on the nearest
		{point{-1170, 300}, point{-1116, 300}},
		{point{200, 790}, point{200, 712}}, // below the bottom: the bar and a grip under it on the screen
	} {
		if got := onScreen(c.at, 1180, 20, mons); got != c.want {
			t.Errorf("onScreen(%v) = %v, want %v", c.at, got, c.want)
		}
	}
	h := newHarness(t, nil)
	h.app.Preferences().SetString(prefGeometry, "1180 736 100 -40 1 20 0")
	wm := &fakeWM{}
	restoreUnder(t, h, wm)
	if wm.frame.y < 0 {
		t.Errorf("the frame opened at %v, its title bar above the screen", wm.frame)
	}
}

// TestGeometryOfOlderVersionsIsRead: the four numbers older versions saved are still read,
// and the first four of the new ones are what they read.
func TestGeometryOfOlderVersionsIsRead(t *testing.T) {
	g, ok := parseGeometry("900 600 100 60")
	if !ok || !g.HasPos || g.X != 100 || g.Y != 60 || g.Max {
		t.Errorf("older geometry read as %+v, %v", g, ok)
	}
	s := geometry{W: 900, H: 600, X: 100, Y: 60, HasPos: true, L: 1, T: 20, Max: true}.String()
	if g, ok := parseGeometry(s); !ok || !g.Max || g.T != 20 || g.X != 100 {
		t.Errorf("%q read as %+v", s, g)
	}
	var old geometry
	if n, _ := fmtSscan(s, &old); n != 4 || old.X != 100 || old.Y != 60 {
		t.Errorf("an older version reads %q as %+v", s, old)
	}
}

// fmtSscan reads g as versions before issue 41 did.
func fmtSscan(s string, g *geometry) (int, error) {
	return fmt.Sscanf(s, "%g %g %d %d", &g.W, &g.H, &g.X, &g.Y)
}
