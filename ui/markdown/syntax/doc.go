// Package syntax is the app's set of code languages and its two code styles for the
// Markdown view's highlighter: chroma's own definitions of the languages people paste into
// replies (Go, Python, JavaScript and TypeScript, Rust, the C family, shells, data and
// config formats, about sixty in all) and of its "github" and "github-dark" styles.
//
// Chroma's lexers and styles packages parse every one of their 279 lexer and 70 style
// definitions during package initialisation, about 36 ms and 4.6 MB in every process,
// including the headless commands that never draw code (issue 28). This package holds
// verbatim copies of the definitions it needs (chroma/, under chroma's MIT licence in
// chroma/COPYING) and parses nothing until code is first highlighted: the first LexerFor call
// registers the whole set at once (one definition may hand parts of the code to another by
// name: HTML's script to JavaScript, a Dockerfile's RUN to Bash), and a lexer's rules are
// compiled when it first tokenises. StyleFor parses its style on first use.
//
// The Go and Markdown lexers are Go code in chroma, not XML: lexer_go.go and
// lexer_markdown.go are copies of that code, wired to this package's registry. Common Lisp,
// PHTML and the other lexers chroma writes in Go are left out. scripts/update-syntax.sh
// recopies the files from the chroma module in go.mod, and TestCopiesMatchTheModule fails
// when a copy differs from the module's file (or, for the Go code, the module's functions).
//
// The package may import chroma's engine (github.com/alecthomas/chroma/v2, never its
// lexers or styles packages) and nothing of this module; ui/markdown imports it.
package syntax
