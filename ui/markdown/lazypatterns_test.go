package markdown

import (
	"fmt"
	"testing"

	east "github.com/yuin/goldmark/extension/ast"
)

// What goldmark matches with the patterns it now compiles on first use, not in package
// initialisation (third_party/goldmark/README.md, issue 39): bare URLs and www. addresses
// (linkify), a table's delimiter row and its alignments, task list items, raw HTML.
func TestGFMPatternsCompiledOnFirstUseStillMatch_Issue39(t *testing.T) {
	bs := parse("see https://go.dev/doc and www.example.org now <b>x</b>\n\n" +
		"| a | b | c | d |\n|:--|--:|:-:|---|\n| 1 | 2 | 3 | 4 |\n\n" +
		"- [x] done\n- [ ] open\n")
	if len(bs) != 3 {
		t.Fatalf("blocks %+v, want a paragraph, a table and a list", bs)
	}
	links := linkURLs(bs[0].spans)
	if want := "[https://go.dev/doc http://www.example.org]"; fmt.Sprint(links) != want {
		t.Errorf("links %v, want %s", links, want)
	}
	if bs[1].kind != blockTable || fmt.Sprint(bs[1].align) != fmt.Sprint([]east.Alignment{east.AlignLeft, east.AlignRight, east.AlignCenter, east.AlignNone}) {
		t.Errorf("table block %+v, want alignments left, right, centre, none", bs[1])
	}
	if bs[2].kind != blockList || len(bs[2].items) != 2 || bs[2].items[0].task != taskDone || bs[2].items[1].task != taskOpen {
		t.Errorf("list block %+v, want a done and an open task", bs[2])
	}
}
