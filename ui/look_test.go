package ui

import (
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2/theme"
)

// TestLook writes screenshots to $UI_LOOK_DIR for a person to look at; it is skipped
// otherwise.
func TestLook(t *testing.T) {
	dir := os.Getenv("UI_LOOK_DIR")
	if dir == "" {
		t.Skip("set UI_LOOK_DIR to write screenshots")
	}
	shot := func(h *harness, name string) {
		h.settle()
		fh, err := os.Create(filepath.Join(dir, name+".png"))
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		if err := png.Encode(fh, h.m.win.Canvas().Capture()); err != nil {
			t.Fatal(err)
		}
	}
	var id string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) { id = richConversation(t, f) })
	h.open(id)
	for _, r := range h.rows() {
		if r.kind == rowTool && r.call.Name == "patch" {
			r.expanded = true
			r.touch()
		}
	}
	h.m.cv.rowChanged()
	h.settle()
	h.m.cv.list.ScrollToTop()
	shot(h, "main-top")
	h.m.cv.list.ScrollToBottom()
	shot(h, "main-bottom")
	h.app.Settings().SetTheme(fixedVariant{theme.DefaultTheme(), theme.VariantDark})
	shot(h, "main-dark")
}
