package markdown

import "testing"

// TestHighlightLinesSplitsAtLines: tokens stay within their line, cover it, and a comment
// over two lines is coloured as a comment on both (the lines are lexed together).
func TestHighlightLinesSplitsAtLines(t *testing.T) {
	lines := []string{"func f() int {", "\t/* one", "two */ return 1", "}"}
	toks := HighlightLines(lines, LanguageOf("x/main.go"))
	if len(toks) != len(lines) {
		t.Fatalf("%d lines of tokens, want %d", len(toks), len(lines))
	}
	for i, l := range lines {
		at := 0
		for _, tk := range toks[i] {
			if tk.A != at || tk.B > len(l) {
				t.Fatalf("line %d: token %+v does not follow on from %d in %q", i, tk, at, l)
			}
			at = tk.B
		}
		if at != len(l) {
			t.Fatalf("line %d: tokens end at %d of %d", i, at, len(l))
		}
	}
	first := toks[2][0]
	if first.tok == nil || !sameLook(first.tok.tt, toks[1][len(toks[1])-1].tok.tt) {
		t.Fatalf("the comment's second line is not coloured as its first: %+v %+v", first, toks[1])
	}
	if LanguageOf("notes.unknownext") != "" || HighlightLines(lines, "") != nil {
		t.Fatal("an unknown language is highlighted")
	}
}
