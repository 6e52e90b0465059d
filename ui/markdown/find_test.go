package markdown

import (
	"reflect"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
)

func TestMatchesFindsEveryOccurrenceInAnyCase(t *testing.T) {
	for _, c := range []struct {
		text, q string
		want    [][2]int
	}{
		{"Parse the parser; PARSE.", "parse", [][2]int{{0, 5}, {10, 15}, {18, 23}}},
		{"aaaa", "aa", [][2]int{{0, 2}, {2, 4}}}, // no overlaps
		{"nothing here", "zzz", nil},
		{"blank query", "  ", nil},
		{"Ünïcode ünïcode", "ÜNÏ", [][2]int{{0, 5}, {10, 15}}},
	} {
		if got := Matches(c.text, c.q); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Matches(%q, %q) = %v, want %v", c.text, c.q, got, c.want)
		}
	}
}

// markRects are the rectangles a text block draws in the colour of a match.
func markRects(t *testing.T, tb *textBlock, strong bool) int {
	t.Helper()
	want, _ := MarkColors(strong)
	n := 0
	for _, o := range test.TempWidgetRenderer(t, tb).Objects() {
		if rc, ok := o.(*canvas.Rectangle); ok && rc.Visible() && sameColor(rc.FillColor, want) {
			n++
		}
	}
	return n
}

// TestMarkHighlightsMatchesAndFollowsTheText: Find's marks are drawn behind every match of
// every block, more strongly for the current one, stay on while a streamed reply grows, and
// go when the query is cleared.
func TestMarkHighlightsMatchesAndFollowsTheText(t *testing.T) {
	test.NewTempApp(t)
	q := newQueue()
	v := NewView(Options{Do: q.do})
	v.SetMarkdown("The **parser** fails.\n\n- fix the parser\n- test it")
	w := test.NewWindow(v)
	defer w.Close()
	w.Resize(fyne.NewSize(400, 300))
	q.settle(t, v)

	if n := v.Mark("PARSER", false); n != 2 {
		t.Fatalf("marked %d matches, want 2", n)
	}
	if got := markRects(t, v.units[0], false); got != 1 {
		t.Errorf("the first paragraph draws %d match backgrounds, want 1", got)
	}
	if v.Mark("parser", true); markRects(t, v.units[0], true) != 1 || markRects(t, v.units[0], false) != 0 {
		t.Error("the current match is not drawn in the strong colour")
	}
	// A re-render (the reply grew) keeps marking the query in the new text.
	v.SetMarkdown("The **parser** fails.\n\n- fix the parser\n- test it\n\nThe parser passes now.")
	if n, _ := v.Marked(); n != 3 {
		t.Errorf("after the text grew %d matches are marked, want 3", n)
	}
	v.Mark("", false)
	if n, _ := v.Marked(); n != 0 || markRects(t, v.units[0], false)+markRects(t, v.units[0], true) != 0 {
		t.Errorf("clearing the query leaves %d marks", n)
	}
}

// TestSetTextKeepsLinesAndMarks: a person's message is plain text (no Markdown read, line
// breaks kept) and takes Find's marks like a reply.
func TestSetTextKeepsLinesAndMarks(t *testing.T) {
	test.NewTempApp(t)
	v := NewView(Options{Do: func(f func()) { f() }})
	v.SetText("first **line**\nsecond line")
	w := test.NewWindow(v)
	defer w.Close()
	w.Resize(fyne.NewSize(400, 200))
	if v.Text() != "first **line**\nsecond line" {
		t.Errorf("text %q: it was read as Markdown", v.Text())
	}
	if l := v.units[0].layoutAt(400); len(l.lines) != 2 {
		t.Errorf("%d lines, want the 2 the message has", len(l.lines))
	}
	if n := v.Mark("line", true); n != 2 {
		t.Errorf("marked %d, want 2", n)
	}
}

func TestPlainTextDropsTheMarkup(t *testing.T) {
	for src, want := range map[string]string{
		"Run **`go test`** on [the parser](https://x.y) now": "Run go test on the parser now",
		"## Heading _here_":               "Heading here",
		"- first\n- second":               "first second",
		"> quoted\n> text":                "quoted text",
		"```go\nfunc f() {}\n```":         "func f() {}",
		"| a | b |\n|---|---|\n| 1 | 2 |": "a b 1 2",
		"plain words stay":                "plain words stay",
	} {
		if got := PlainText(src); got != want {
			t.Errorf("PlainText(%q) = %q, want %q", src, got, want)
		}
	}
}
