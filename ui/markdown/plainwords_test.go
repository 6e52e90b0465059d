package markdown

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
)

// PlainText (a search hit's line, cheap: no widgets) and TextOf (what a view shows, for a
// selection across messages) are two walks of one block tree: they must agree on the words.
func TestPlainTextHasTheWordsAViewShows(t *testing.T) {
	test.NewTempApp(t)
	for _, src := range []string{
		"Rename `read_text_file` to **read_file_text** in foo_bar.go.",
		"# Title\n\nA paragraph with [a link](https://example.com) and *emphasis*.\n\n- one\n- two\n  1. nested\n\n> quoted\n> text",
		"```go\nfunc main() {}\n```\n\n| col_a | col_b |\n|---|---|\n| x_1 | y_2 |",
		"line one\nline two\n\n- [x] done\n- [ ] open",
	} {
		if got, want := PlainText(src), strings.Join(strings.Fields(TextOf(src)), " "); got != want {
			t.Errorf("for %q:\nPlainText %q\nthe view's words %q", src, got, want)
		}
	}
}
