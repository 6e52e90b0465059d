package syntax

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sync"
	"sync/atomic"

	"github.com/alecthomas/chroma/v2"
)

// The copied definitions. The list of languages is the directory: a file added there (by
// scripts/update-syntax.sh) is a language registered.
//
//go:embed chroma/lexers/embedded/*.xml chroma/styles/*.xml
var embedded embed.FS

const (
	lexerGlob  = "chroma/lexers/embedded/*.xml"
	styleDir   = "chroma/styles"
	lightStyle = "github"
	darkStyle  = "github-dark"
)

// opened counts the definition files read: the tests check that package initialisation
// reads none.
var opened atomic.Int64

// countingFS is the embedded files, counted as they are opened.
type countingFS struct{ fs.FS }

func (c countingFS) Open(name string) (fs.File, error) {
	opened.Add(1)
	return c.FS.Open(name)
}

var files fs.FS = countingFS{embedded}

// lazy is what the first use builds. It is one value so that a benchmark can start cold.
type lazy struct {
	lexersOnce sync.Once
	registry   *chroma.LexerRegistry
	// broken lists definitions that did not parse (none: a test checks), so that a bad copy
	// costs its own language, not every language.
	broken []error

	styleOnce [2]sync.Once
	styles    [2]*chroma.Style
	styleErrs [2]error
}

var state = &lazy{}

// LexerFor is the lexer for a code fence's language: a name, an alias or a file extension
// ("Go", "golang", "py", "C++", "cpp", "ts", "sh", "Dockerfile"), looked up as chroma's
// registry looks it up. It is nil for a language the app does not highlight.
func LexerFor(lang string) chroma.Lexer {
	if lang == "" {
		return nil
	}
	return state.lexers().Get(lang)
}

func (s *lazy) lexers() *chroma.LexerRegistry {
	s.lexersOnce.Do(func() { s.registry, s.broken = register() })
	return s.registry
}

// register builds the registry in the order chroma's lexers package does: the XML
// definitions in name order, then the lexers written in Go. Where two claim one alias, the
// later one wins, in both.
func register() (*chroma.LexerRegistry, []error) {
	reg := chroma.NewLexerRegistry()
	var broken []error
	paths, err := fs.Glob(embedded, lexerGlob)
	if err != nil {
		return reg, []error{fmt.Errorf("list the embedded lexers %s: %w", lexerGlob, err)}
	}
	for _, p := range paths {
		l, err := chroma.NewXMLLexer(files, p)
		if err != nil {
			broken = append(broken, fmt.Errorf("parse the lexer %s: %w", p, err))
			continue
		}
		reg.Register(l)
	}
	more, errs := goCodeLexers(reg)
	for _, l := range more {
		reg.Register(l)
	}
	return reg, append(broken, errs...)
}

// lookup finds another lexer of the set (the Markdown lexer's front matter is YAML).
func lookup(name string) chroma.Lexer { return LexerFor(name) }

// StyleFor is chroma's "github" style, or "github-dark" for a dark background. A style that
// cannot be read (a test makes sure both can) is an empty one: code in the text colour.
func StyleFor(dark bool) *chroma.Style {
	i, name := 0, lightStyle
	if dark {
		i, name = 1, darkStyle
	}
	s := state
	s.styleOnce[i].Do(func() {
		s.styles[i], s.styleErrs[i] = readStyle(name)
		if s.styleErrs[i] != nil {
			s.styles[i] = chroma.MustNewStyle(name, chroma.StyleEntries{})
		}
	})
	return s.styles[i]
}

func readStyle(name string) (*chroma.Style, error) {
	p := path.Join(styleDir, name+".xml")
	f, err := files.Open(p)
	if err != nil {
		return nil, fmt.Errorf("open the style %s: %w", p, err)
	}
	defer f.Close()
	st, err := chroma.NewXMLStyle(f)
	if err != nil {
		return nil, fmt.Errorf("parse the style %s: %w", p, err)
	}
	return st, nil
}
