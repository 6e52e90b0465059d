package markdown

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// issueReply is the reply of issue 17 that Fyne's own Markdown got wrong.
const issueReply = "Rename `read_text_file` to `read_file_text` in foo_bar.go, and a_b_c.\n" +
	"```go\nfunc snake_case(x int) error { return nil }\n```\n" +
	"| col_a | col_b |\n|---|---|\n| x_1 | y_2 |\n"

// everything holds every kind of block and inline the renderer draws.
const everything = `# Parser fix
## What changed
Rename ` + "`read_text_file`" + ` to ` + "`read_file_text`" + ` in foo_bar.go, and a_b_c. Run ` + "`go test ./...`" + ` after **bold**, *italic*, ~~gone~~ and a [link](https://example.com) or https://go.dev.

1. first step
2. second step with a longer sentence that has to wrap somewhere near the right edge of the view
   - nested bullet
   - [x] done task
   - [ ] open task

> A quote with ` + "`code`" + ` inside.

---

` + "```go" + `
// snake_case returns nil.
func snake_case(x int) error {
	if x > 0 { return fmt.Errorf("x_%d is positive and this line is long enough to need scrolling sideways", x) }
	return nil
}
` + "```" + `

` + "```diff" + `
--- a/parse.go
+++ b/parse.go
@@ -12,2 +12,2 @@
-	return strconv.Atoi(s[1:])
+	return strconv.Atoi(s)
` + "```" + `

| col_a | right | centre |
|---|--:|:-:|
| x_1 | 12 | y_2 |
| a longer cell | 3 | z |
`

type fixedVariant struct {
	fyne.Theme
	v fyne.ThemeVariant
}

func (f fixedVariant) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return f.Theme.Color(n, f.v)
}

// render shows src in a test window of the given width and returns the window's image.
func render(t testing.TB, src string, width float32, dark bool) (*View, fyne.Window, image.Image) {
	return renderWith(t, Options{}, src, width, dark)
}

// renderWith is render with options (the queue that stands for the UI goroutine is added).
func renderWith(t testing.TB, opts Options, src string, width float32, dark bool) (*View, fyne.Window, image.Image) {
	a := test.NewTempApp(t)
	v := theme.VariantLight
	if dark {
		v = theme.VariantDark
	}
	a.Settings().SetTheme(fixedVariant{theme.DefaultTheme(), v})
	q := newQueue()
	opts.Do = q.do
	view := NewView(opts)
	view.SetMarkdown(src)
	w := test.NewWindow(container.NewPadded(view))
	w.Resize(fyne.NewSize(width, 10))
	w.Resize(fyne.NewSize(width, view.HeightAt(width-2*theme.Padding())+2*theme.Padding()))
	t.Cleanup(w.Close)
	q.settle(t, view)
	return view, w, w.Canvas().Capture()
}

// uiQueue stands for the UI goroutine: the background highlighter hands its results to it,
// and the test runs them on its own goroutine.
type uiQueue chan func()

func newQueue() uiQueue { return make(uiQueue, 64) }

func (q uiQueue) do(f func()) { q <- f }

// settle runs queued work until no code block of v waits for its colours.
func (q uiQueue) settle(t testing.TB, v *View) {
	t.Helper()
	for v.highlighting > 0 {
		select {
		case f := <-q:
			f()
		case <-time.After(time.Minute):
			t.Fatal("the code colours never came")
		}
	}
}

func TestLookMarkdown(t *testing.T) {
	dir := os.Getenv("UI_LOOK_DIR")
	if dir == "" {
		t.Skip("set UI_LOOK_DIR to write screenshots")
	}
	for _, dark := range []bool{false, true} {
		_, _, img := render(t, everything, 640, dark)
		name := "markdown-light.png"
		if dark {
			name = "markdown-dark.png"
		}
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := png.Encode(f, img); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
}

// A code block streaming in is re-rendered many times while one highlight runs: the runs in
// between are never started, only the newest source is coloured (one worker per view).
func TestStreamingCodeHighlightsOnlyTheNewest(t *testing.T) {
	test.NewTempApp(t)
	forgetHighlights()
	t.Cleanup(forgetHighlights)
	q := newQueue()
	v := NewView(Options{Do: q.do})
	var runs atomic.Int32
	entered, release := make(chan struct{}), make(chan struct{})
	v.hl.run = func(code, lang string) []run {
		if runs.Add(1) == 1 {
			close(entered)
			<-release
		}
		return highlight(code, lang)
	}
	src := "```go\n"
	grow := func(i int) {
		src += fmt.Sprintf("func streamed%d() int { return %d }\n", i, i)
		v.SetMarkdown(src)
	}
	grow(0)
	(<-q)() // the UI loop's next turn starts the worker
	<-entered
	const renders = 50
	for i := 1; i <= renders; i++ {
		grow(i)
	}
	close(release)
	q.settle(t, v)
	if n := runs.Load(); n > 2 {
		t.Fatalf("%d renders of a growing code block ran %d highlights, want at most 2 (the running one and the newest)", renders+1, n)
	}
	if len(v.codes) != 1 {
		t.Fatalf("%d code blocks", len(v.codes))
	}
	c := v.codes[0]
	want := highlight(c.code, "go")
	if len(want) < 2 || !reflect.DeepEqual(c.text.runs, want) {
		t.Fatalf("the newest source was not coloured: %d runs, want %d", len(c.text.runs), len(want))
	}
}
