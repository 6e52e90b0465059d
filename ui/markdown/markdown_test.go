package markdown

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// TestIdentifiersStayWhole is the issue's reply: underscores outside code are not emphasis
// marks, inline code is one monospace run, the table is a table.
func TestIdentifiersStayWhole(t *testing.T) {
	bs := parse(issueReply)
	if len(bs) != 3 || bs[0].kind != blockParagraph || bs[1].kind != blockCode || bs[2].kind != blockTable {
		t.Fatalf("blocks %+v", bs)
	}
	if got := plainText(bs[0].spans); got != "Rename read_text_file to read_file_text in foo_bar.go, and a_b_c." {
		t.Errorf("paragraph %q", got)
	}
	var code []string
	for _, s := range bs[0].spans {
		if s.kind == spanCode {
			code = append(code, s.text)
		}
	}
	if fmt.Sprint(code) != "[read_text_file read_file_text]" {
		t.Errorf("inline code runs %q", code)
	}
	if bs[1].lang != "go" || bs[1].code != "func snake_case(x int) error { return nil }\n" {
		t.Errorf("code block %q %q", bs[1].lang, bs[1].code)
	}
	tb := bs[2]
	if plainText(tb.header[0]) != "col_a" || plainText(tb.header[1]) != "col_b" || len(tb.rows) != 1 ||
		plainText(tb.rows[0][0]) != "x_1" || plainText(tb.rows[0][1]) != "y_2" {
		t.Errorf("table %+v", tb)
	}
	v, _, _ := render(t, issueReply, 500, false)
	want := "Rename read_text_file to read_file_text in foo_bar.go, and a_b_c.\n\nfunc snake_case(x int) error { return nil }\n\ncol_a\tcol_b\nx_1\ty_2"
	if v.Text() != want {
		t.Errorf("rendered text\n%q\nwant\n%q", v.Text(), want)
	}
}

func TestListsKeepTheirNumbersAndNesting(t *testing.T) {
	bs := parse("3. three\n4. four\n   - inner\n     1. deep\n- [x] done\n- [ ] open\n")
	if len(bs) != 2 || !bs[0].ordered || bs[0].start != 3 || len(bs[0].items) != 2 {
		t.Fatalf("ordered list %+v", bs[0])
	}
	inner := bs[0].items[1].content[1]
	if inner.kind != blockList || inner.ordered || inner.items[0].content[1].start != 1 {
		t.Errorf("nested lists %+v", inner)
	}
	if bs[1].items[0].task != taskDone || bs[1].items[1].task != taskOpen {
		t.Errorf("task items %+v", bs[1].items)
	}
}

// TestDiffBlockColours: a diff block is coloured like the patch rows.
func TestDiffBlockColours(t *testing.T) {
	code := "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n same"
	want := []fyne.ThemeColorName{theme.ColorNamePlaceHolder, theme.ColorNamePlaceHolder, theme.ColorNamePrimary, theme.ColorNameError, theme.ColorNameSuccess, ""}
	runs := highlight(code, "diff")
	if len(runs) != len(want) {
		t.Fatalf("%d runs", len(runs))
	}
	for i, r := range runs {
		if r.color != want[i] {
			t.Errorf("line %q coloured %q, want %q", code[r.a:r.b], r.color, want[i])
		}
	}
}

// TestHighlightKeepsTheCode: highlighted runs cover the code exactly, in every language.
func TestHighlightKeepsTheCode(t *testing.T) {
	for _, c := range []struct{ lang, code string }{
		{"go", "func main() {\n\tfmt.Println(\"hi\")\n}"},
		{"python", "def f(x):\n    return x_1 + 2"},
		{"bash", "go test ./... -run 'TestX' | tee out.txt"},
		{"nosuchlang", "plain"},
		{"", "no language"},
	} {
		runs := highlight(c.code, c.lang)
		var sb strings.Builder
		at := 0
		for _, r := range runs {
			if r.a != at {
				t.Fatalf("%s: gap before %d", c.lang, r.a)
			}
			sb.WriteString(c.code[r.a:r.b])
			at = r.b
		}
		if sb.String() != c.code {
			t.Errorf("%s: runs give %q", c.lang, sb.String())
		}
		if c.lang == "go" && len(runs) < 3 {
			t.Errorf("go code is not highlighted: %d runs", len(runs))
		}
	}
}

func TestGoldenMarkdown(t *testing.T) {
	for _, dark := range []bool{false, true} {
		name := "markdown-light.png"
		if dark {
			name = "markdown-dark.png"
		}
		_, _, img := render(t, everything, 640, dark)
		test.AssertImageMatches(t, name, img)
	}
}

// TestCopyCodeBlockRoundTrip: the Copy button and selecting the whole block both give
// exactly the code between the fences.
func TestCopyCodeBlockRoundTrip(t *testing.T) {
	code := "func snake_case(x int) error {\n\tif x > 0 {\n\t\treturn nil // a_b\n\t}\n\n  return errors.New(\"trailing  spaces  \")  \n}"
	src := "Before.\n\n```go\n" + code + "\n```\n\nAfter."
	v, w, _ := render(t, src, 420, false)
	if len(v.codes) != 1 {
		t.Fatalf("%d code blocks", len(v.codes))
	}
	test.Tap(v.codes[0].copyBtn)
	if got := fyne.CurrentApp().Clipboard().Content(); got != code {
		t.Errorf("Copy gave\n%q\nwant\n%q", got, code)
	}
	// Select the code block by dragging from its first character to past its end.
	u := v.codes[0].text
	start := pointOf(t, v, u, 0)
	end := pointOf(t, v, u, len(u.text)).Add(fyne.NewPos(400, 0))
	test.Drag(w.Canvas(), end, end.X-start.X, end.Y-start.Y)
	v.TypedShortcut(&fyne.ShortcutCopy{})
	if got := fyne.CurrentApp().Clipboard().Content(); got != code {
		t.Errorf("selecting the block and Ctrl+C gave\n%q\nwant\n%q", got, code)
	}
}

// TestSelectAcrossBlocks: dragging from inside one paragraph into the next copies the text
// between, with the paragraph break.
func TestSelectAcrossBlocks(t *testing.T) {
	v, w, _ := render(t, "First paragraph with foo_bar.go inside.\n\nSecond *paragraph* here.", 500, false)
	a := v.units[0]
	b := v.units[1]
	start := pointOf(t, v, a, strings.Index(a.text, "foo_bar"))
	end := pointOf(t, v, b, strings.Index(b.text, " here"))
	test.Drag(w.Canvas(), end, end.X-start.X, end.Y-start.Y)
	if got, want := v.SelectedText(), "foo_bar.go inside.\n\nSecond paragraph"; got != want {
		t.Errorf("selected %q, want %q", got, want)
	}
	w.Canvas().Focus(v)
	v.TypedShortcut(&fyne.ShortcutCopy{})
	if got := fyne.CurrentApp().Clipboard().Content(); got != "foo_bar.go inside.\n\nSecond paragraph" {
		t.Errorf("Ctrl+C copied %q", got)
	}
	// A double click selects an identifier with its underscores and extension.
	p := pointOf(t, v, a, strings.Index(a.text, "bar.go")+1)
	v.DoubleTapped(&fyne.PointEvent{Position: p.Subtract(v.Position())})
	if got := v.SelectedText(); got != "foo_bar.go" {
		t.Errorf("double click selected %q", got)
	}
	v.SelectAll()
	if v.SelectedText() != v.Text() {
		t.Errorf("select all gave %q", v.SelectedText())
	}
	// Ctrl+A, as the desktop driver delivers it to the view: Control down, then the A key.
	v.ClearSelection()
	v.TypedKey(&fyne.KeyEvent{Name: fyne.KeyA})
	if v.SelectedText() != "" {
		t.Error("A without Control selected")
	}
	v.KeyDown(&fyne.KeyEvent{Name: desktop.KeyControlLeft})
	v.TypedKey(&fyne.KeyEvent{Name: fyne.KeyA})
	v.KeyUp(&fyne.KeyEvent{Name: desktop.KeyControlLeft})
	if v.SelectedText() != v.Text() {
		t.Errorf("Ctrl+A selected %q", v.SelectedText())
	}
	v.FocusLost()
	if v.SelectedText() != "" {
		t.Error("the selection stays after the focus went")
	}
}

// pointOf is the window position of byte offset off of text block u, on its line's middle.
func pointOf(t *testing.T, v *View, u *textBlock, off int) fyne.Position {
	t.Helper()
	at, ok := v.unitRects()[u]
	if !ok {
		t.Fatal("text block not found in the view")
	}
	l := u.layoutAt(u.Size().Width)
	li := 0
	for i, ln := range l.lines {
		if off >= ln.a && off <= ln.b {
			li = i
			break
		}
	}
	abs := fyne.CurrentApp().Driver().AbsolutePositionForObject(v)
	return abs.Add(at).Add(fyne.NewPos(u.xAt(l, li, off)+0.5, l.lines[li].y+l.lineH/2))
}

// TestStreamingReusesFinishedBlocks: a growing text keeps the objects of the blocks that
// did not change, so a repaint builds only the growing one.
func TestStreamingReusesFinishedBlocks(t *testing.T) {
	v, _, _ := render(t, "# Title\n\nFirst paragraph.\n\n```go\nx := 1\n```\n\nGrowing", 500, false)
	before := append([]fyne.CanvasObject(nil), v.content.Objects...)
	v.SetMarkdown("# Title\n\nFirst paragraph.\n\n```go\nx := 1\n```\n\nGrowing text")
	after := v.content.Objects
	if len(after) != 4 {
		t.Fatalf("%d blocks", len(after))
	}
	for i := 0; i < 3; i++ {
		if after[i] != before[i] {
			t.Errorf("block %d was built again", i)
		}
	}
	if after[3] == before[3] {
		t.Error("the growing block was not rebuilt")
	}
	if !strings.HasSuffix(v.Text(), "Growing text") {
		t.Errorf("text %q", v.Text())
	}
}

// TestLongCodeScrollsSidewaysAndWraps: a long line makes the block scroll sideways, not
// wider than the view; the wheel's vertical motion goes to the chat; Wrap folds the line
// under its indentation.
func TestLongCodeScrollsSidewaysAndWraps(t *testing.T) {
	long := "\tx := \"" + strings.Repeat("word_", 60) + "\""
	var scrolled float32
	test.NewTempApp(t)
	q := newQueue()
	v := NewView(Options{Do: q.do, OnScroll: func(ev *fyne.ScrollEvent) { scrolled += ev.Scrolled.DY }})
	v.SetMarkdown("```go\nfunc f() {\n" + long + "\n}\n```")
	w := test.NewWindow(v)
	defer w.Close()
	w.Resize(fyne.NewSize(400, 300))
	q.settle(t, v)
	c := v.codes[0]
	if !c.scroll.overflows(c.scroll.Size().Width) {
		t.Fatal("the long line does not overflow")
	}
	h0 := v.HeightAt(400)
	c.scroll.Scrolled(&fyne.ScrollEvent{Scrolled: fyne.Delta{DY: -10}})
	if scrolled != -10 || c.scroll.offset != 0 {
		t.Errorf("vertical wheel: chat got %v, block offset %v", scrolled, c.scroll.offset)
	}
	c.scroll.Scrolled(&fyne.ScrollEvent{Scrolled: fyne.Delta{DX: -50}})
	if c.scroll.offset != 50 {
		t.Errorf("sideways wheel: offset %v", c.scroll.offset)
	}
	test.Tap(c.wrapBtn)
	h1 := v.HeightAt(400)
	if h1 <= h0 {
		t.Errorf("wrapping did not make the block taller: %v then %v", h0, h1)
	}
	l := c.text.layoutAt(c.text.Size().Width)
	if len(l.lines) < 5 {
		t.Fatalf("wrapped into %d lines", len(l.lines))
	}
	// The continuation of the long line starts under its indentation, not at the margin.
	if l.lines[2].indent < l.charW*tabCols {
		t.Errorf("continuation line starts at %v", l.lines[2].indent)
	}
}

// TestCommonMarkSpecExamples renders every example of the CommonMark specification that
// goldmark's module ships (_test/spec.json): none may panic, and every word of the expected
// HTML's text must be in the rendered text.
func TestCommonMarkSpecExamples(t *testing.T) {
	examples := specExamples(t)
	if len(examples) < 600 {
		t.Fatalf("only %d examples in the spec file", len(examples))
	}
	test.NewTempApp(t)
	q := newQueue()
	v := NewView(Options{Do: q.do})
	w := test.NewWindow(v)
	defer w.Close()
	w.Resize(fyne.NewSize(420, 200))
	tag := regexp.MustCompile(`<[^>]*>`)
	failed := 0
	for _, ex := range examples {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("example %d (%s) panics: %v\n%s", ex.Example, ex.Section, r, ex.Markdown)
				}
			}()
			v.SetMarkdown(ex.Markdown)
			v.Resize(fyne.NewSize(420, v.HeightAt(420)))
			q.settle(t, v)
			got := v.Text()
			plain := html.UnescapeString(tag.ReplaceAllString(ex.HTML, " "))
			for _, word := range strings.Fields(plain) {
				if !strings.Contains(got, word) {
					failed++
					t.Errorf("example %d (%s): %q is missing\nmarkdown: %q\nrendered: %q", ex.Example, ex.Section, word, ex.Markdown, got)
					break
				}
			}
		}()
	}
	t.Logf("%d examples, %d with a missing word", len(examples), failed)
}

type specExample struct {
	Markdown string `json:"markdown"`
	HTML     string `json:"html"`
	Example  int    `json:"example"`
	Section  string `json:"section"`
}

// specExamples reads spec.json from goldmark's module directory, where the go command put it.
func specExamples(t *testing.T) []specExample {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-json", "github.com/yuin/goldmark").Output()
	if err != nil {
		t.Fatalf("go list -m github.com/yuin/goldmark: %v (the go command must be on PATH)", err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("goldmark's module directory is unknown (%v): run go mod download github.com/yuin/goldmark", err)
	}
	b, err := os.ReadFile(filepath.Join(mod.Dir, "_test", "spec.json"))
	if err != nil {
		t.Fatalf("reading the CommonMark examples: %v", err)
	}
	var ex []specExample
	if err := json.Unmarshal(b, &ex); err != nil {
		t.Fatalf("spec.json: %v", err)
	}
	return ex
}

// TestQuietStyle: a quiet view (the chat's reasoning) draws every piece of text in the
// caption size and the placeholder colour, prose in italics and code upright, links in their
// own colour, list markers quiet too; and it selects and copies the same text as a normal
// view. The normal view of the same source is the control.
func TestQuietStyle(t *testing.T) {
	src := "**Planning** the fix in foo_bar.go\n\n- read `parse.go`\n- see [docs](https://go.dev)\n"
	for _, quiet := range []bool{false, true} {
		v, _, _ := renderWith(t, Options{Quiet: quiet}, src, 500, false)
		if got, want := v.Text(), "Planning the fix in foo_bar.go\n\nread parse.go\nsee docs"; got != want {
			t.Errorf("quiet %v: text %q, want %q", quiet, got, want)
		}
		wantSize, wantFG := theme.Size(theme.SizeNameText), theme.Color(theme.ColorNameForeground)
		if quiet {
			wantSize, wantFG = theme.Size(theme.SizeNameCaptionText), theme.Color(theme.ColorNamePlaceHolder)
		}
		var texts, code, links int
		for _, u := range v.units {
			r := test.WidgetRenderer(u).(*textRenderer)
			for _, tx := range r.texts[:len(u.lay.frags)] {
				texts++
				if tx.TextSize != wantSize {
					t.Errorf("quiet %v: %q drawn at size %v, want %v", quiet, tx.Text, tx.TextSize, wantSize)
				}
				switch {
				case tx.TextStyle.Monospace:
					code++
					if tx.TextStyle.Italic {
						t.Errorf("quiet %v: code %q in italics", quiet, tx.Text)
					}
				case tx.Text == "docs":
					links++
					if !sameColor(tx.Color, theme.Color(theme.ColorNameHyperlink)) {
						t.Errorf("quiet %v: the link lost its colour", quiet)
					}
				default:
					if tx.TextStyle.Italic != quiet || !sameColor(tx.Color, wantFG) {
						t.Errorf("quiet %v: %q italic %v colour %v, want italic %v colour %v", quiet, tx.Text, tx.TextStyle.Italic, tx.Color, quiet, wantFG)
					}
				}
			}
		}
		if texts < 5 || code != 1 || links != 1 {
			t.Fatalf("quiet %v: %d texts, %d code, %d links drawn; want the bold title, prose, one code span and one link", quiet, texts, code, links)
		}
		var markers int
		var walk func(fyne.CanvasObject)
		walk = func(o fyne.CanvasObject) {
			switch o := o.(type) {
			case *fyne.Container:
				for _, c := range o.Objects {
					walk(c)
				}
			case *canvas.Text:
				markers++
				if o.TextSize != wantSize || !sameColor(o.Color, wantFG) {
					t.Errorf("quiet %v: list marker size %v colour %v", quiet, o.TextSize, o.Color)
				}
			}
		}
		walk(v.content)
		if markers != 2 {
			t.Errorf("quiet %v: %d list markers, want 2", quiet, markers)
		}
	}
}

// A reply is written by the model: only http, https and mailto links can be clicked; any
// other scheme shows as text with its URL, so it is seen and opens nothing.
func TestOnlyWebAndMailLinksOpen(t *testing.T) {
	src := "[docs](https://example.com/d) [plain](http://example.com) [mail](mailto:a@b.c) <https://x.org> <a@b.c>\n\n" +
		"[secret](file:///etc/passwd) [share](smb://host/s) [app](vscode://open?x) [rel](notes.md) ![img](file:///i.png) <ssh://h> [](javascript:alert(1)) [https://safe.example](file:///x) [file:///y](file:///y)"
	bs := parse(src)
	if len(bs) != 2 {
		t.Fatalf("blocks %+v", bs)
	}
	links := linkURLs(bs[0].spans)
	if want := "[https://example.com/d http://example.com mailto:a@b.c https://x.org mailto:a@b.c]"; fmt.Sprint(links) != want {
		t.Errorf("links %v, want %s", links, want)
	}
	for _, s := range bs[1].spans {
		if s.kind == spanLink || s.url != "" {
			t.Errorf("%q (%s) can be clicked", s.text, s.url)
		}
	}
	want := "secret (file:///etc/passwd) share (smb://host/s) app (vscode://open?x) rel (notes.md) img (file:///i.png) ssh://h  (javascript:alert(1)) https://safe.example (file:///x) file:///y"
	if got := plainText(bs[1].spans); got != want {
		t.Errorf("text %q\nwant %q", got, want)
	}
	// What the view draws holds no clickable run outside the allowed schemes either.
	v, _, _ := render(t, src, 500, false)
	for _, u := range v.units {
		for _, r := range u.runs {
			if r.kind == spanLink && !openable(r.url) {
				t.Errorf("rendered link to %s", r.url)
			}
		}
	}
}

// TestCopyButtonSaysCopiedForAMoment: after a click the code block's button says "Copied",
// then "Copy" again, through the UI goroutine (the timer's work waits on the queue here).
func TestCopyButtonSaysCopiedForAMoment(t *testing.T) {
	test.NewTempApp(t)
	was := copiedFor
	copiedFor = time.Millisecond
	t.Cleanup(func() { copiedFor = was })
	q := newQueue()
	v := NewView(Options{Do: q.do})
	v.SetMarkdown("```go\nx := 1\n```")
	w := test.NewWindow(v)
	t.Cleanup(w.Close)
	q.settle(t, v)
	if len(v.codes) != 1 {
		t.Fatalf("%d code blocks", len(v.codes))
	}
	b := v.codes[0].copyBtn
	test.Tap(b)
	if b.Text != copiedLabel {
		t.Fatalf("after a click the button says %q", b.Text)
	}
	select {
	case f := <-q:
		f()
	case <-time.After(time.Minute):
		t.Fatal("the button never went back to Copy")
	}
	if b.Text != copyLabel {
		t.Errorf("a moment after the click the button says %q", b.Text)
	}
}

// TestSingleLineBreaksStay (issue 28): a single line break in a reply is a line break, as in
// a GitHub comment, not a space; a blank line still starts a paragraph, and two spaces or a
// backslash before the break still make one.
func TestSingleLineBreaksStay(t *testing.T) {
	bs := parse("First line\nsecond line  \nthird line\\\nfourth *line*\nfifth\n\nNew paragraph\n")
	if len(bs) != 2 || bs[0].kind != blockParagraph || bs[1].kind != blockParagraph {
		t.Fatalf("blocks %+v", bs)
	}
	if got, want := plainText(bs[0].spans), "First line\nsecond line\nthird line\nfourth line\nfifth"; got != want {
		t.Errorf("paragraph %q, want %q", got, want)
	}
	v, _, _ := render(t, "Step one\nStep two\n\nDone.", 500, false)
	if got, want := v.Text(), "Step one\nStep two\n\nDone."; got != want {
		t.Errorf("rendered %q, want %q", got, want)
	}
}

// TestScrollSidewaysFindsTheBlockUnderThePointer: a layer over the chat that takes the wheel
// hands a sideways scroll to the code block under the pointer, and only to it.
func TestScrollSidewaysFindsTheBlockUnderThePointer(t *testing.T) {
	long := strings.Repeat("word_", 80)
	test.NewTempApp(t)
	q := newQueue()
	v := NewView(Options{Do: q.do})
	v.SetMarkdown("Some words first.\n\n```\n" + long + "\n```\n\nSome words after.")
	w := test.NewWindow(v)
	defer w.Close()
	w.Resize(fyne.NewSize(400, 300))
	q.settle(t, v)
	c := v.codes[0]
	at := fyne.CurrentApp().Driver().AbsolutePositionForObject(c.scroll).Add(fyne.NewPos(20, 5))
	cv := w.Canvas()
	if !ScrollSideways(cv, &fyne.ScrollEvent{PointEvent: fyne.PointEvent{AbsolutePosition: at}, Scrolled: fyne.Delta{DX: -40}}) || c.scroll.offset != 40 {
		t.Fatalf("over the block: offset %v", c.scroll.offset)
	}
	above := fyne.NewPos(at.X, 1)
	if ScrollSideways(cv, &fyne.ScrollEvent{PointEvent: fyne.PointEvent{AbsolutePosition: above}, Scrolled: fyne.Delta{DX: -40}}) || c.scroll.offset != 40 {
		t.Errorf("above the block: offset %v", c.scroll.offset)
	}
	if ScrollSideways(cv, &fyne.ScrollEvent{PointEvent: fyne.PointEvent{AbsolutePosition: at}, Scrolled: fyne.Delta{DY: -40}}) {
		t.Error("a vertical scroll was taken sideways")
	}
}

// linkURLs are the URLs of the spans that can be clicked, in order.
func linkURLs(spans []span) []string {
	var links []string
	for _, s := range spans {
		if s.kind == spanLink {
			links = append(links, s.url)
		}
	}
	return links
}
