package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

// searchTree writes a small repository that exercises every rule of KeywordSearch.
func searchTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		".git/HEAD":                "ref: refs/heads/main\n",
		".git/info/exclude":        "excluded.go\n",
		".git/objects/alpha":       "alpha beta gamma\n", // never searched: inside .git
		".gitignore":               "ignored/\n*.log\n!keep.log\nbuild\n[!k]*.tmp\n",
		"a.go":                     "package a\n\n// alpha\nfunc Beta() {}\n\nvar gamma = 1\n",
		"b.go":                     "package b\n// ALPHA and beta\n",
		"c.txt":                    "just Alpha here\n",
		"sub/d.go":                 "line one\nalpha\nline three\ngamma\n",
		"sub/.gitignore":           "secret.go\n",
		"sub/secret.go":            "alpha beta gamma\n",
		"sub/deeper/e.go":          "über alpha\n",
		".hidden/h.go":             "beta\n",
		"ignored/x.go":             "alpha beta gamma\n",
		"build/out.go":             "alpha beta gamma\n",
		"excluded.go":              "alpha beta gamma\n",
		"debug.log":                "alpha beta gamma\n",
		"keep.log":                 "beta kept\n",
		"scratch.tmp":              "alpha\n",
		"kept.tmp":                 "alpha kept tmp\n",
		"gamma_notes.md":           "nothing relevant\n",
		"binary.dat":               "alpha\x00beta\n",
		"late-binary.dat":          "alpha beta\n" + strings.Repeat("text\n", 100) + "\x00\n",
		"big.txt":                  strings.Repeat("alpha\n", MaxSearchFileBytes/6+1),
		"crlf.txt":                 "beta\r\nother\r\n",
		"fold.txt":                 "ſecret Key\nplain SECRET KEY\n", // long s, Kelvin sign
		"deep/deeper/deepest/z.go": "gamma",
	}
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("a.go", filepath.Join(root, "link.go")); err != nil {
		t.Fatal(err)
	}
	return root
}

// backends are the implementations available here; ripgrep only when installed.
func backends(t *testing.T) map[string]*KeywordSearch {
	b := map[string]*KeywordSearch{"go": {}}
	if rg, err := exec.LookPath("rg"); err == nil {
		b["ripgrep"] = &KeywordSearch{rg: rg}
	} else {
		t.Log("ripgrep is not installed; only the Go implementation is tested")
	}
	return b
}

func TestKeywordSearchRules(t *testing.T) {
	root := searchTree(t)
	terms := []string{"alpha", "beta", "gamma"}
	for name, k := range backends(t) {
		t.Run(name, func(t *testing.T) {
			res, err := k.search(context.Background(), root, terms)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range res.Matches {
				got = append(got, fmt.Sprintf("%s:%03b", m.Path, m.mask()))
			}
			// Ranked by the number of terms, then their weight (alpha 3, beta 2, gamma 1),
			// then matching lines, then path.
			want := []string{
				"a.go:111",
				"b.go:011", "sub/d.go:101",
				"c.txt:001", "kept.tmp:001", "sub/deeper/e.go:001",
				".hidden/h.go:010", "crlf.txt:010", "keep.log:010",
				"deep/deeper/deepest/z.go:100", "gamma_notes.md:100",
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("ranking\n got %v\nwant %v", got, want)
			}
		})
	}
}

// TestRipgrepAndGoAgree runs both implementations on the same trees and compares every
// detail of what they found.
func TestRipgrepAndGoAgree(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("ripgrep is not installed")
	}
	trees := map[string]string{"rules": searchTree(t), "generated": generateTree(t, t.TempDir(), 600)}
	termSets := [][]string{
		{"alpha", "beta", "gamma"},
		{"ÜBER", "KEPT"},
		{"func", "package", "var"},
		{"needle", "haystack", "Config", "handler"},
		{"nothing-matches-this"},
		{"secret", "key"},
	}
	for tree, root := range trees {
		for _, terms := range termSets {
			t.Run(tree+"/"+strings.Join(terms, ","), func(t *testing.T) {
				fromRg, err := (&KeywordSearch{rg: rg}).search(context.Background(), root, terms)
				if err != nil {
					t.Fatal(err)
				}
				fromGo, err := (&KeywordSearch{}).search(context.Background(), root, terms)
				if err != nil {
					t.Fatal(err)
				}
				if fromRg.Files != fromGo.Files {
					t.Errorf("files searched: ripgrep %d, Go %d", fromRg.Files, fromGo.Files)
				}
				if !reflect.DeepEqual(fromRg.Matches, fromGo.Matches) {
					t.Errorf("results differ:\nripgrep %s\n     Go %s", dump(fromRg), dump(fromGo))
				}
			})
		}
	}
}

// TestMatcherFastPathAgreesWithRegexp checks the ASCII shortcut against the regexps it
// stands in for.
func TestMatcherFastPathAgreesWithRegexp(t *testing.T) {
	m := newMatcher([]string{"key", "Secret", "x_y", "a.b"})
	for _, line := range []string{
		"", "KEY", "monkey business", "SeCrEt", "x_y", "xzy", "a.b", "aXb", "k e y",
		"\u212aey", "\u017fecret", "caf\u00e9 key", "SECRE", "ke", "KEYSECRETX_YA.B",
	} {
		var want uint64
		for i, re := range m.terms {
			if re.MatchString(line) {
				want |= 1 << i
			}
		}
		if got := m.maskOf(line); got != want {
			t.Errorf("maskOf(%q) = %b, regexps say %b", line, got, want)
		}
		if got := m.matchAny([]byte(line)); got != (want != 0) {
			t.Errorf("matchAny(%q) = %v", line, got)
		}
	}
}

func dump(r searchResult) string {
	var b strings.Builder
	for _, m := range r.Matches {
		fmt.Fprintf(&b, "\n  %s c=%b p=%b lines=%d hits=%#v", m.Path, m.ContentMask, m.PathMask, m.Lines, m.Hits)
	}
	return b.String()
}

// generateTree writes n source-like files in nested directories, with .gitignore files,
// and returns root.
func generateTree(t testing.TB, root string, n int) string {
	t.Helper()
	words := []string{"needle", "haystack", "Config", "handler", "func", "package", "var", "request", "response", "cache"}
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("pkg%02d", i%37), fmt.Sprintf("sub%d", i%5))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "package p%d\n\n", i)
		for j := range 20 + i%40 {
			w1, w2 := words[(i*7+j)%len(words)], words[(i*3+j*j)%len(words)]
			fmt.Fprintf(&b, "// line %d mentions %s and %s\nfunc f%d_%d() {}\n", j, w1, strings.ToUpper(w2[:1])+w2[1:], i, j)
		}
		ext := []string{".go", ".txt", ".md", ".gen.go"}[i%4]
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%d%s", i, ext)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.gen.go\npkg03/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "pkg05", ".gitignore"), []byte("sub1/\n*.md\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestKeywordSearchOutput(t *testing.T) {
	root := searchTree(t)
	env := Env{Cwd: filepath.Join(root, "sub"), Mode: domain.ModeRestricted}
	for name, k := range backends(t) {
		t.Run(name, func(t *testing.T) {
			out := k.Run(context.Background(), env, json.RawMessage(`{"query":"where is alpha","search_terms":["alpha","beta","gamma"," alpha ",""]}`))
			if out.Outcome != domain.OutcomeSuccess {
				t.Fatalf("got %s %q", out.Outcome, out.Content)
			}
			for _, want := range []string{
				"below " + root + " for: alpha, beta, gamma.",
				"11 files match",
				"../a.go — 3 of 3 terms (alpha, beta, gamma), 3 matching lines\n  2- \n  3: // alpha\n  4: func Beta() {}\n  5- \n  6: var gamma = 1\n",
				"d.go — 2 of 3 terms (alpha, gamma), 2 matching lines\n  1- line one\n  2: alpha\n  3- line three\n  4: gamma\n",
				"../gamma_notes.md — 1 of 3 terms (gamma); in the path: gamma\n",
			} {
				if !strings.Contains(out.Content, want) {
					t.Errorf("output lacks %q:\n%s", want, out.Content)
				}
			}
			if out.Display.Summary != "11 files matched" {
				t.Errorf("summary %q", out.Display.Summary)
			}
		})
	}
}

func TestKeywordSearchCaps(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		content := strings.Repeat(fmt.Sprintf("token number %d with some padding text\n", i), 3+i%3)
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("f%02d.txt", i)), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	long := strings.Repeat("token "+strings.Repeat("y", 400)+"\n", 10)
	if err := os.WriteFile(filepath.Join(root, "long.txt"), []byte(long), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, k := range backends(t) {
		t.Run(name, func(t *testing.T) {
			out := k.Run(context.Background(), Env{Cwd: root}, json.RawMessage(`{"query":"q","search_terms":["token"]}`))
			if out.Outcome != domain.OutcomeSuccess {
				t.Fatalf("got %s %q", out.Outcome, out.Content)
			}
			if !strings.Contains(out.Content, "[Showing the first 25 of 41 matching files") || out.Display.Summary != "41 files matched · 25 shown" {
				t.Errorf("file cap missing: %q\n%s", out.Display.Summary, out.Content)
			}
			if strings.Contains(out.Content, strings.Repeat("y", maxShownLineRunes)) {
				t.Errorf("a long line was not shortened")
			}
			if !strings.Contains(out.Content, "… 3 more matching lines") {
				t.Errorf("the per-file line cap is not reported:\n%s", out.Content)
			}
			if len(out.Content) > maxSearchChars+2000 {
				t.Errorf("output is %d characters", len(out.Content))
			}
		})
	}
	// Many big entries hit the character cap before the file cap.
	for i := range 30 {
		content := strings.Repeat("wide "+strings.Repeat("z", 150)+"\n", 10)
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("w%02d.txt", i)), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := (&KeywordSearch{}).Run(context.Background(), Env{Cwd: root}, json.RawMessage(`{"query":"q","search_terms":["wide"]}`))
	if !strings.Contains(out.Content, "[Output capped at about") || len(out.Content) > maxSearchChars+2000 {
		t.Errorf("character cap missing (%d characters):\n%s", len(out.Content), out.Content)
	}
}

func TestKeywordSearchEdges(t *testing.T) {
	root := searchTree(t)
	k := &KeywordSearch{}
	out := k.Run(context.Background(), Env{Cwd: root}, json.RawMessage(`{"query":"q","search_terms":["zzz-absent"]}`))
	if out.Outcome != domain.OutcomeSuccess || !strings.Contains(out.Content, "No file contains any of the terms") {
		t.Errorf("no match: %s %q", out.Outcome, out.Content)
	}
	out = k.Run(context.Background(), Env{Cwd: root}, json.RawMessage(`{"query":"q","search_terms":[" ",""]}`))
	if out.Outcome != domain.OutcomeError {
		t.Errorf("empty terms accepted: %q", out.Content)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out = k.Run(ctx, Env{Cwd: root}, json.RawMessage(`{"query":"q","search_terms":["alpha"]}`))
	if out.Outcome != domain.OutcomeCancelled {
		t.Errorf("cancelled search: %s %q", out.Outcome, out.Content)
	}
	terms, dropped := normalizeTerms([]string{"a", "A", "b\nc", " d ", "", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r"})
	if len(terms) != maxSearchTerms || dropped != 2 || terms[1] != "b" || terms[2] != "c" || terms[3] != "d" {
		t.Errorf("normalizeTerms: %q dropped %d", terms, dropped)
	}
	noRepo := t.TempDir()
	if got := searchRoot(noRepo); got != noRepo {
		t.Errorf("searchRoot without a repository: %s", got)
	}
	if got := searchRoot(filepath.Join(root, "sub", "deeper")); got != root {
		t.Errorf("searchRoot from a subdirectory: %s, want %s", got, root)
	}
}

// A ripgrep that lies inside the searched tree (the agent's, first on PATH) is not run: the
// app runs it as the person, outside the sandbox.
func TestSearchNeverRunsARipgrepInTheTree(t *testing.T) {
	root := searchTree(t)
	marker := filepath.Join(t.TempDir(), "ran")
	fake := filepath.Join(root, "node_modules", ".bin", "rg")
	if err := os.MkdirAll(filepath.Dir(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fake, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := (&KeywordSearch{rg: fake}).search(context.Background(), root, []string{"alpha"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the tree's rg ran")
	}
	want, err := (&KeywordSearch{}).search(context.Background(), root, []string{"alpha"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Matches, want.Matches) {
		t.Errorf("the search without ripgrep found %s, want %s", dump(got), dump(want))
	}
}
