package syntax

import (
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	// Only to compare with: the app must not import it (TestTheAppLeavesChromasRegistriesOut).
	"github.com/alecthomas/chroma/v2/lexers"
)

// TestMain checks, before any test has touched the package, that initialising it read no
// definition: the cost of the languages and styles is paid on first use, not by every
// process (issue 28).
func TestMain(m *testing.M) {
	if n := opened.Load(); n != 0 {
		fmt.Fprintf(os.Stderr, "package initialisation read %d definition files; it must read none (parse them on first use)\n", n)
		os.Exit(1)
	}
	if state.registry != nil || state.styles[0] != nil || state.styles[1] != nil {
		fmt.Fprintln(os.Stderr, "package initialisation built the registry or a style; it must build them on first use")
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// TestNamesFindTheirLanguage: the names a code fence carries find their lexer, by name,
// alias, extension or file name, in any case; unknown languages find none (drawn plain).
func TestNamesFindTheirLanguage(t *testing.T) {
	for name, want := range map[string]string{
		"go": "Go", "golang": "Go", "GO": "Go",
		"py": "Python", "python": "Python", "python3": "Python",
		"js": "JavaScript", "javascript": "JavaScript", "mjs": "JavaScript",
		"ts": "TypeScript", "tsx": "TypeScript", "jsx": "react",
		"rust": "Rust", "rs": "Rust",
		"c": "C", "h": "C", "C++": "C++", "cpp": "C++", "cc": "C++", "c#": "C#", "csharp": "C#", "cs": "C#",
		"java": "Java", "kotlin": "Kotlin", "kt": "Kotlin", "swift": "Swift", "ruby": "Ruby", "rb": "Ruby", "php": "PHP",
		"sh": "Bash", "bash": "Bash", "shell": "Bash", "zsh": "Bash", "console": "Bash Session",
		"powershell": "PowerShell", "ps1": "PowerShell", "bat": "Batchfile", "fish": "Fish",
		"json": "JSON", "yaml": "YAML", "yml": "YAML", "toml": "TOML", "ini": "INI", "xml": "XML",
		"html": "HTML", "css": "CSS", "scss": "SCSS", "sql": "SQL",
		"markdown": "markdown", "md": "markdown", "dockerfile": "Docker", "Dockerfile": "Docker",
		"makefile": "Makefile", "make": "Makefile", "cmake": "CMake", "lua": "Lua", "perl": "Perl",
		"r": "R", "scala": "Scala", "haskell": "Haskell", "hs": "Haskell", "elixir": "Elixir",
		"erlang": "Erlang", "zig": "Zig", "nix": "Nix", "protobuf": "Protocol Buffer", "proto": "Protocol Buffer",
		"graphql": "GraphQL", "terraform": "Terraform", "tf": "Terraform", "hcl": "HCL",
		"nginx": "Nginx configuration file", "clojure": "Clojure", "clj": "Clojure",
		"plaintext": "plaintext", "text": "plaintext", "txt": "plaintext",
		"go-text-template": "Go Text Template", "go-html-template": "Go HTML Template",
		"dart": "Dart", "objc": "Objective-C", "groovy": "Groovy", "julia": "Julia",
		"ocaml": "OCaml", "fsharp": "FSharp", "tex": "TeX", "awk": "Awk", "properties": "properties",
	} {
		l := LexerFor(name)
		if l == nil {
			t.Errorf("%q finds no lexer, want %s", name, want)
			continue
		}
		if got := l.Config().Name; got != want {
			t.Errorf("%q finds %s, want %s", name, got, want)
		}
	}
	for _, name := range []string{"", "nosuchlang", "fortran", "brainfuck", "diff-ish"} {
		if l := LexerFor(name); l != nil {
			t.Errorf("%q finds %s, want none (drawn plain)", name, l.Config().Name)
		}
	}
}

// TestNamesAgreeWithChroma: every name, alias and file extension of the set finds the lexer
// that chroma's full registry finds for it, unless chroma's pick is a language left out of the
// set ("fs" is Forth to chroma, F# here; "m" Mathematica there, Objective-C here).
func TestNamesAgreeWithChroma(t *testing.T) {
	n := 0
	for _, l := range state.lexers().Lexers {
		c := l.Config()
		names := append([]string{c.Name}, c.Aliases...)
		for _, f := range c.Filenames {
			names = append(names, strings.TrimPrefix(f, "*."))
		}
		for _, name := range names {
			theirs := lexers.Get(name)
			if theirs == nil || LexerFor(theirs.Config().Name) == nil {
				continue // chroma has no lexer for it, or one the app leaves out
			}
			n++
			ours := LexerFor(name)
			if ours == nil || ours.Config().Name != theirs.Config().Name {
				got := "none"
				if ours != nil {
					got = ours.Config().Name
				}
				t.Errorf("%q finds %s here, %s in chroma's registry", name, got, theirs.Config().Name)
			}
		}
	}
	if n < 200 {
		t.Errorf("compared %d names, want the names, aliases and extensions of the whole set", n)
	}
}

// TestEveryDefinitionWorks: every copied lexer parses, compiles its rules and tokenises, and
// both styles parse. A broken copy would otherwise cost its language silently.
func TestEveryDefinitionWorks(t *testing.T) {
	reg := state.lexers()
	for _, err := range state.broken {
		t.Error(err)
	}
	paths, err := fs.Glob(embedded, lexerGlob)
	if err != nil || len(paths) < 50 {
		t.Fatalf("%d lexer definitions embedded (%v), want the curated set of about sixty", len(paths), err)
	}
	// Each file is a language, plus Go, its two template lexers and Markdown (Go code).
	if got, want := len(reg.Lexers), len(paths)+4; got != want {
		t.Errorf("%d lexers registered, want %d", got, want)
	}
	for _, l := range reg.Lexers {
		it, err := l.Tokenise(nil, "x = 1 # y\n")
		if err != nil {
			t.Errorf("%s: %v", l.Config().Name, err)
			continue
		}
		it.Tokens()
	}
	for _, dark := range []bool{false, true} {
		st := StyleFor(dark)
		if i := map[bool]int{false: 0, true: 1}[dark]; state.styleErrs[i] != nil {
			t.Errorf("style: %v", state.styleErrs[i])
		}
		if want := map[bool]string{false: "github", true: "github-dark"}[dark]; st.Name != want {
			t.Errorf("style %q, want %q", st.Name, want)
		}
		if !st.Get(chroma.Keyword).Colour.IsSet() {
			t.Errorf("%s gives keywords no colour", st.Name)
		}
	}
}

var usingRE = regexp.MustCompile(`<using lexer="([^"]+)"`)

// TestDelegationsStayInTheSet: a definition that hands part of the code to another lexer
// (HTML's script, a Dockerfile's RUN) names one of the set: chroma panics on a missing one.
func TestDelegationsStayInTheSet(t *testing.T) {
	paths, _ := fs.Glob(embedded, lexerGlob)
	n := 0
	for _, p := range paths {
		b, err := fs.ReadFile(embedded, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range usingRE.FindAllStringSubmatch(string(b), -1) {
			n++
			if LexerFor(m[1]) == nil {
				t.Errorf("%s hands code to %q, which is not in the set: copy its definition too (scripts/update-syntax.sh lexers/embedded/NAME.xml)", p, m[1])
			}
		}
	}
	if n == 0 {
		t.Error("no delegation found: the pattern no longer matches chroma's XML")
	}
	// Markdown's fenced code and front matter go to lexers of the set too.
	it, err := LexerFor("md").Tokenise(nil, "---\na: 1\n---\n```python\nx = 1\n```\n")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, tok := range it.Tokens() {
		kinds = append(kinds, tok.Type.String())
	}
	if s := strings.Join(kinds, " "); !strings.Contains(s, "NameTag") || !strings.Contains(s, "LiteralNumberInteger") {
		t.Errorf("front matter or fenced Python not lexed: %s", s)
	}
}

// TestConcurrentFirstUse: the first uses may come from the UI goroutine and the background
// highlighter at once (run with -race).
func TestConcurrentFirstUse(t *testing.T) {
	saved := state
	state = &lazy{}
	defer func() { state = saved }()
	done := make(chan string)
	for _, lang := range []string{"go", "py", "json", "sh"} {
		go func() {
			l := LexerFor(lang)
			StyleFor(lang == "go")
			it, err := l.Tokenise(nil, "a = 1\n")
			if err != nil {
				done <- err.Error()
				return
			}
			it.Tokens()
			done <- ""
		}()
	}
	for range 4 {
		if msg := <-done; msg != "" {
			t.Error(msg)
		}
	}
}
