package ui

import (
	"testing"

	"fyne.io/fyne/v2"

	"github.com/phoenix-desktop/phoenix/actors"
)

// reopen builds a second main window on the harness's app, as the next start would.
func reopen(t *testing.T, h *harness) *MainWindow {
	t.Helper()
	m := NewMainWindow(h.app, h.f, &fakeSub{ch: make(chan actors.Event)}, h.deps)
	t.Cleanup(func() { m.win.Close() })
	return m
}

// TestDefaultWindowFitsTheScreen (issue 28): the first window is never larger than the
// monitor it opens on; a 1024×640 screen gets a window that fits with room for the frame
// and the panels, a large one the default size.
func TestDefaultWindowFitsTheScreen(t *testing.T) {
	t.Setenv("FYNE_SCALE", "1")
	h := newHarness(t, nil)
	old := screenOf
	t.Cleanup(func() { screenOf = old })
	for _, c := range []struct {
		pw, ph int
		want   fyne.Size
	}{
		{1024, 640, fyne.NewSize(1024-screenRoom, 640-screenRoom)},
		{1920, 1080, defaultWindow},
	} {
		screenOf = func(_ fyne.Window, x, y int, user float32) (fyne.Size, bool) {
			if x != -1 || y != -1 {
				t.Errorf("a window with no remembered place asked for the screen at %d,%d", x, y)
			}
			return roomOnScreen(c.pw, c.ph, 0, user), true
		}
		if got := reopen(t, h).win.Canvas().Size(); got != c.want {
			t.Errorf("on a %d×%d screen the window is %v; want %v", c.pw, c.ph, got, c.want)
		}
	}
	// A remembered size larger than the screen (saved on a bigger monitor) is cut to it too,
	// on the monitor of the remembered place.
	h.app.Preferences().SetString(prefGeometry, "1600 1000 2000 100")
	screenOf = func(_ fyne.Window, x, y int, user float32) (fyne.Size, bool) {
		if x != 2000 || y != 100 {
			t.Errorf("asked for the screen at %d,%d; want the remembered place", x, y)
		}
		return roomOnScreen(1024, 640, 0, user), true
	}
	if got := reopen(t, h).win.Canvas().Size(); got.Width > 1024 || got.Height > 640 {
		t.Errorf("a remembered 1600×1000 window opens at %v on a 1024×640 screen", got)
	}
}

// TestRoomOnScreenFollowsFynesScale: a HiDPI monitor's pixels are divided by the scale Fyne
// will use (its DPI against 120, times the person's), so the window fits there too.
func TestRoomOnScreenFollowsFynesScale(t *testing.T) {
	for _, c := range []struct {
		pw, ph, mm int
		user       float32
		want       fyne.Size
	}{
		{1024, 640, 0, 1, fyne.NewSize(960, 576)},
		{1024, 640, 270, 1, fyne.NewSize(960, 576)},                              // 96 DPI: Fyne never scales below 1
		{3840, 2160, 344, 1, fyne.NewSize(3776/float32(2.4), 2096/float32(2.4))}, // 283 DPI: Fyne scales by 2.4
		{1280, 800, 0, 2, fyne.NewSize(608, 368)},
	} {
		if got := roomOnScreen(c.pw, c.ph, c.mm, c.user); got != c.want {
			t.Errorf("%d×%d px, %d mm, scale %g: room %v; want %v", c.pw, c.ph, c.mm, c.user, got, c.want)
		}
	}
}

// TestSavedSizeDoesNotGrowWithFyneScale (issue 28): the size is saved in device-independent
// units, so a window saved at one FYNE_SCALE opens just as large on the screen at another,
// and saving it again stores the same numbers.
func TestSavedSizeDoesNotGrowWithFyneScale(t *testing.T) {
	t.Setenv("FYNE_SCALE", "1")
	h := newHarness(t, nil)
	h.m.win.Resize(fyne.NewSize(900, 600))
	h.m.saveWindow()
	if got := h.app.Preferences().String(prefGeometry); got != "900 600" {
		t.Fatalf("saved %q at scale 1", got)
	}
	for _, c := range []struct {
		scale string
		units fyne.Size
	}{{"2", fyne.NewSize(450, 300)}, {"1.5", fyne.NewSize(600, 400)}, {"1", fyne.NewSize(900, 600)}} {
		t.Setenv("FYNE_SCALE", c.scale)
		m := reopen(t, h)
		if got := m.win.Canvas().Size(); got != c.units {
			t.Errorf("FYNE_SCALE=%s: the window opens at %v units; want %v (the same pixels)", c.scale, got, c.units)
		}
		m.saveWindow()
		if got := h.app.Preferences().String(prefGeometry); got != "900 600" {
			t.Errorf("FYNE_SCALE=%s: saved %q; want the same 900 600", c.scale, got)
		}
	}
}
