package syntax

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/alecthomas/chroma/v2"
)

const benchGo = "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfor i := 0; i < 3; i++ {\n\t\tfmt.Println(`hi`, i) // say it\n\t}\n}\n"

func highlightOnce(b *testing.B) {
	it, err := chroma.Coalesce(LexerFor("go")).Tokenise(nil, benchGo)
	if err != nil {
		b.Fatal(err)
	}
	it.Tokens()
	StyleFor(false).Get(chroma.Keyword)
	StyleFor(true).Get(chroma.Keyword)
}

// BenchmarkFirstUse is what the first Go code block costs now that nothing is parsed at
// start: registering the set, compiling the Go lexer's rules, reading both styles, lexing
// the block (cold), beside the same block once all that is done (warm) and, as the baseline
// measured in the same run, the work chroma's lexers and styles packages did at every
// process start before (all of the module's lexer and style definitions).
func BenchmarkFirstUse(b *testing.B) {
	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		saved := state
		defer func() { state = saved }()
		for i := 0; i < b.N; i++ {
			state = &lazy{}
			highlightOnce(b)
		}
	})
	// registry is the part of cold that the UI goroutine pays when the first code block
	// asks whether its language is highlighted.
	b.Run("registry", func(b *testing.B) {
		b.ReportAllocs()
		saved := state
		defer func() { state = saved }()
		for i := 0; i < b.N; i++ {
			state = &lazy{}
			LexerFor("go")
		}
	})
	b.Run("warm", func(b *testing.B) {
		b.ReportAllocs()
		highlightOnce(b)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			highlightOnce(b)
		}
	})
	b.Run("chroma-init-baseline", func(b *testing.B) {
		dir := moduleDir(b)
		lexers := os.DirFS(filepath.Join(dir, "lexers"))
		styles := os.DirFS(filepath.Join(dir, "styles"))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			reg := chroma.NewLexerRegistry()
			paths, _ := fs.Glob(lexers, "embedded/*.xml")
			for _, p := range paths {
				reg.Register(chroma.MustNewXMLLexer(lexers, p))
			}
			names, _ := fs.Glob(styles, "*.xml")
			for _, n := range names {
				f, err := styles.Open(n)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := chroma.NewXMLStyle(f); err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
		}
	})
}
