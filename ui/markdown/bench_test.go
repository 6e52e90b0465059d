package markdown

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// longReply is a reply of about 2,000 lines with 20 code blocks, headings, paragraphs and lists.
func longReply() string {
	var sb strings.Builder
	for s := 0; s < 20; s++ {
		fmt.Fprintf(&sb, "## Step %d: update parse_%d.go\n\n", s, s)
		for p := 0; p < 3; p++ {
			for l := 0; l < 8; l++ {
				fmt.Fprintf(&sb, "Line %d of paragraph %d explains why `read_file_%d` calls **parse** on foo_bar_%d.go and what changes.\n", l, p, l, s)
			}
			sb.WriteString("\n")
		}
		for i := 0; i < 10; i++ {
			fmt.Fprintf(&sb, "- item %d mentions `x_%d` and a [link](https://example.com/%d)\n", i, i, i)
		}
		sb.WriteString("\n```go\n")
		for l := 0; l < 55; l++ {
			fmt.Fprintf(&sb, "\tif err := step_%d(ctx, %d); err != nil { return fmt.Errorf(\"step %d: %%w\", err) }\n", l, s, l)
		}
		sb.WriteString("```\n\n")
	}
	return sb.String()
}

// BenchmarkRender2000Lines is the UI goroutine's work to show a 2,000-line reply with 20 Go
// code blocks never seen before: parsed, built and laid out at a chat's width (target
// ≤ 50 ms). The colours of the code are computed in the background (BenchmarkHighlight2000Lines)
// and applied when they come; the benchmark waits for them outside its timer, so that they
// do not compete with the next round.
func BenchmarkRender2000Lines(b *testing.B) {
	src := longReply()
	if n := strings.Count(src, "\n"); n < 1900 {
		b.Fatalf("only %d lines", n)
	}
	test.NewTempApp(b)
	q := newQueue()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		forgetHighlights()
		v := NewView(Options{Do: q.do})
		v.SetMarkdown(src)
		v.Resize(fyne.NewSize(800, v.HeightAt(800)))
		b.StopTimer()
		if len(v.codes) != 20 {
			b.Fatalf("%d code blocks", len(v.codes))
		}
		q.settle(b, v)
		// The background highlighter's garbage is not this round's work.
		runtime.GC()
		b.StartTimer()
	}
}

// BenchmarkRender2000LinesSeen is the same reply shown again (another row, a theme change):
// the code's colours are known and applied at once.
func BenchmarkRender2000LinesSeen(b *testing.B) {
	src := longReply()
	test.NewTempApp(b)
	q := newQueue()
	v := NewView(Options{Do: q.do})
	v.SetMarkdown(src)
	q.settle(b, v)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v := NewView(Options{Do: q.do})
		v.SetMarkdown(src)
		v.Resize(fyne.NewSize(800, v.HeightAt(800)))
		if v.highlighting != 0 {
			b.Fatal("the colours were not reused")
		}
	}
}

// BenchmarkHighlight2000Lines is the background work of colouring the reply's 20 code blocks.
func BenchmarkHighlight2000Lines(b *testing.B) {
	var codes []*block
	for _, bl := range parse(longReply()) {
		if bl.kind == blockCode {
			codes = append(codes, bl)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, c := range codes {
			highlight(c.code, c.lang)
		}
	}
}

// BenchmarkStreamingRepaint is one repaint of a streaming reply: 50 more tokens arrive at the
// end of a reply that already holds 200 lines and two code blocks.
func BenchmarkStreamingRepaint(b *testing.B) {
	src := longReply()
	prefix := src[:strings.Index(src, "## Step 2:")]
	test.NewTempApp(b)
	q := newQueue()
	v := NewView(Options{Do: q.do})
	v.SetMarkdown(prefix)
	q.settle(b, v)
	v.Resize(fyne.NewSize(800, v.HeightAt(800)))
	chunk := strings.Repeat("word ", 50)
	text := prefix
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%4 == 0 {
			text += "\n\n"
		}
		text += chunk
		v.SetMarkdown(text)
		v.Resize(fyne.NewSize(800, v.HeightAt(800)))
	}
}
