package markdown

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"

	"github.com/phoenix-desktop/phoenix/ui/markdown/syntax"
)

// The golden files below were written by the highlighter as it was when it used chroma's own
// registries (all of chroma's lexers and styles, parsed at package init). The curated,
// lazily parsed set must colour code exactly as that did: same runs, same token types, same
// colours. Run with -update only when a change of colours is meant.
var update = flag.Bool("update", false, "rewrite the golden files of the highlighter")

// goldenBlocks are code blocks as replies carry them, in the languages people paste most, and
// in the ones whose lexer hands parts to another (HTML's script and style, a Dockerfile's
// RUN, Markdown's fenced code and front matter, a shell session, Go's raw strings).
var goldenBlocks = []struct{ lang, code string }{
	{"go", "package main\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\n// Greet says hello.\nfunc Greet(name string) (string, error) {\n\tif len(name) == 0 {\n\t\treturn \"\", fmt.Errorf(\"no name: %w\", errEmpty)\n\t}\n\tconst tmpl = `Hello, {{.Name}}!`\n\tx := 0x1F + 3.5e2 + 'a'\n\tvar m = map[string][]int{\"a\": {1, 2}}\n\tfor i := range m {\n\t\t_ = i\n\t}\n\treturn strings.ToUpper(name), nil /* done */\n}\n"},
	{"python", "import os\nfrom typing import List\n\n\n@dataclass\nclass Point:\n    \"\"\"A point.\"\"\"\n    x: int = 0\n\n    def scale(self, k: float) -> \"Point\":\n        # scale both\n        return Point(self.x * k)\n\n\ndef main(args: List[str]) -> None:\n    name = f\"{args[0]!r} has {len(args)} items\"\n    if name and not None:\n        print(name, os.getcwd(), 0b101, 1_000, 2.5j)\n    raise SystemExit(0)\n"},
	{"json", "{\n  \"name\": \"phoenix\",\n  \"version\": 2,\n  \"ratio\": -1.5e3,\n  \"tags\": [\"a\", \"b\", null, true, false],\n  \"nested\": {\"empty\": {}, \"list\": []}\n}"},
	{"bash", "#!/bin/bash\nset -euo pipefail\nfor f in *.go; do\n  echo \"file: $f ${HOME}\" | grep -v x > /dev/null 2>&1\ndone\nexport X=$(date +%s) # now"},
	{"yaml", "name: ci\non:\n  push:\n    branches: [main]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: go test ./... # all\n        env: {A: 1, B: 'two'}\n"},
	{"typescript", "interface User { id: number; name?: string }\nexport async function load(id: number): Promise<User> {\n  const r = await fetch(`/u/${id}`);\n  return (await r.json()) as User;\n}"},
	{"tsx", "export const App = () => <div className=\"x\">{items.map(i => <Item key={i} />)}</div>;"},
	{"rust", "use std::io;\n\n#[derive(Debug)]\nstruct S<'a> { s: &'a str }\n\nfn main() -> io::Result<()> {\n    let v: Vec<u8> = vec![1, 2];\n    println!(\"{:?}\", v);\n    Ok(())\n}"},
	{"cpp", "#include <vector>\ntemplate <typename T>\nclass Box { public: explicit Box(T v) : v_(v) {} private: T v_; };\nint main() { std::vector<int> v{1,2}; return 0; }"},
	{"html", "<!DOCTYPE html>\n<html>\n<head><style>body { color: red; }</style></head>\n<body onload=\"go()\">\n<script>const a = 1; console.log(a);</script>\n<!-- note -->\n</body>\n</html>"},
	{"dockerfile", "FROM golang:1.26 AS build\nWORKDIR /src\nCOPY . .\nRUN go build -o /app ./cmd/x && rm -rf /tmp/*\nENTRYPOINT [\"/app\"]\n"},
	{"markdown", "---\ntitle: x\n---\n# Title\n\nSome *emph* and **strong** text with `code`.\n\n```go\nfunc f() {}\n```\n\n- [ ] task\n1. one\n"},
	{"console", "$ go version\ngo version go1.26 linux/amd64\n$ ls -la | wc -l\n42\n"},
	{"sql", "SELECT id, name FROM users WHERE age > 21 AND name LIKE 'a%' ORDER BY id DESC; -- top"},
	{"toml", "[package]\nname = \"x\"\nversion = \"0.1.0\"\n[dependencies]\nserde = { version = \"1\", features = [\"derive\"] }\n"},
	{"nosuchlang", "just text"},
}

// runsText is runs as lines of text: start, end and token type (or the diff colour).
func runsText(code string, runs []run) string {
	var sb strings.Builder
	for _, r := range runs {
		kind := "-"
		switch {
		case r.tok != nil:
			kind = r.tok.tt.String()
		case r.color != "":
			kind = "color:" + string(r.color)
		}
		fmt.Fprintf(&sb, "%d %d %s %q\n", r.a, r.b, kind, code[r.a:r.b])
	}
	return sb.String()
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatalf("write %s: %v", path, err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s (write it with go test -run %s -update): %v", path, t.Name(), err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("%s differs at line %d:\n got %s\nwant %s", path, i+1, g, w)
			}
		}
	}
}

// TestHighlightRunsUnchanged: each golden block gives the same runs, with the same token
// types, as chroma's full registry gave.
func TestHighlightRunsUnchanged(t *testing.T) {
	var sb strings.Builder
	for _, b := range goldenBlocks {
		fmt.Fprintf(&sb, "== %s\n%s", b.lang, runsText(b.code, highlight(b.code, b.lang)))
	}
	checkGolden(t, "highlight-runs.golden", sb.String())
}

// TestCodeStylesUnchanged: both styles give every token type the same colour, background,
// weight and slant as before.
func TestCodeStylesUnchanged(t *testing.T) {
	var types []chroma.TokenType
	for tt := range chroma.StandardTypes {
		types = append(types, tt)
	}
	sort.Slice(types, func(i, j int) bool { return types[i] < types[j] })
	var sb strings.Builder
	for _, dark := range []bool{false, true} {
		st := syntax.StyleFor(dark)
		fmt.Fprintf(&sb, "== %s\n", st.Name)
		for _, tt := range types {
			fmt.Fprintf(&sb, "%s: %s\n", tt, st.Get(tt))
		}
	}
	checkGolden(t, "code-styles.golden", sb.String())
}

// goldenLangs are names a code fence may carry for the languages the app highlights: names,
// aliases, file extensions and file names, in several cases.
var goldenLangs = []string{
	"go", "golang", "Go", "py", "python", "Python", "python3", "js", "javascript", "JavaScript",
	"ts", "typescript", "tsx", "jsx", "react", "rust", "rs", "c", "C", "h", "cpp", "c++", "C++",
	"cc", "hpp", "cs", "csharp", "c#", "C#", "java", "kotlin", "kt", "swift", "ruby", "rb",
	"php", "bash", "sh", "shell", "zsh", "ksh", "console", "shell-session", "powershell", "ps1",
	"pwsh", "json", "jsonl", "yaml", "yml", "toml", "ini", "cfg", "xml", "svg", "html", "htm",
	"css", "scss", "sql", "markdown", "md", "dockerfile", "Dockerfile", "docker", "makefile",
	"make", "Makefile", "mk", "cmake", "lua", "perl", "pl", "r", "R", "scala", "haskell", "hs",
	"elixir", "ex", "erlang", "erl", "zig", "nix", "protobuf", "proto", "graphql", "gql",
	"terraform", "tf", "hcl", "nginx", "clojure", "clj", "plaintext", "text", "txt",
	"go-text-template", "go-html-template", "gotmpl", "dart", "objective-c", "objc",
	"groovy", "gradle", "bat", "batch", "cmd", "fish", "julia", "jl", "ocaml", "ml", "fsharp",
	"tex", "latex", "awk", "properties", "nosuchlang", "",
}

// TestLexerNamesUnchanged: each of those names finds the lexer it found in chroma's full
// registry (or none, as before).
func TestLexerNamesUnchanged(t *testing.T) {
	var sb strings.Builder
	for _, name := range goldenLangs {
		got := "-"
		if l := syntax.LexerFor(name); l != nil {
			got = l.Config().Name
		}
		fmt.Fprintf(&sb, "%q: %s\n", name, got)
	}
	checkGolden(t, "lexer-names.golden", sb.String())
}
