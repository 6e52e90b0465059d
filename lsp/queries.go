package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/phoenix-desktop/phoenix/tools"
)

// locateDiagnostics places diagnostics of path, with the server's words (and its source,
// "compiler", where it names one).
func (c *client) locateDiagnostics(cwd, path string, ds []Diagnostic) []Located {
	out := make([]Located, 0, len(ds))
	for _, d := range ds {
		text := strings.TrimSpace(d.Message)
		if d.Source != "" {
			text += " (" + d.Source + ")"
		}
		l := c.locate(cwd, Location{URI: fileURI(path), Range: d.Range})
		l.Text = text
		out = append(out, l)
	}
	return out
}

// locate turns a server's location into a place a person reads: the path relative to cwd,
// the one-based line and column in characters (the line's text from the server's copy of
// the document, else from the disk).
func (c *client) locate(cwd string, loc Location) Located {
	l, _ := c.locateLine(cwd, loc)
	return l
}

// locateLine is locate, with the text of the place's line.
func (c *client) locateLine(cwd string, loc Location) (Located, string) {
	path := uriPath(loc.URI)
	if path == "" {
		path = loc.URI
	}
	text, ok := c.text(loc.URI)
	if !ok {
		text, _, _ = readText(path)
	}
	line := loc.Range.Start.Line
	lt := lineText(text, line)
	return Located{Path: displayPath(cwd, path), Line: line + 1,
		Column: column(lt, loc.Range.Start.Character, c.utf8)}, lt
}

// opened makes sure the server has path open with its content on disk, for a question
// about it.
func (c *client) opened(ctx context.Context, path string) (string, error) {
	text, ok, err := readText(path)
	if err != nil {
		return "", fmt.Errorf("%s cannot be read: %w", path, err)
	}
	if !ok {
		return "", fmt.Errorf("%s does not exist", path)
	}
	if _, _, err := c.sync(ctx, path, text); err != nil {
		return "", err
	}
	return text, nil
}

// position is the server's position of one-based line and column (in characters) in text.
func (c *client) position(text string, line, col int) Position {
	if line < 1 {
		line = 1
	}
	if col < 1 {
		col = 1
	}
	return Position{Line: line - 1, Character: character(lineText(text, line-1), col, c.utf8)}
}

// query runs one question about path on its server: a server that is down or no server
// at all is an error in words; a server that breaks during the question is marked down.
func (s *Set) query(ctx context.Context, env tools.Env, path string, ask func(ctx context.Context, c *client, text string) error) error {
	c, spec, err := s.server(ctx, env, path)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout(c))
	defer cancel()
	text, err := c.opened(ctx, path)
	if err == nil {
		err = ask(ctx, c, text)
	}
	if err == nil {
		c.warmed()
	}
	if err != nil {
		if rep := s.failed(c, spec, err, ctx); rep.Summary != "" {
			return &DownError{Name: spec.Name, Reason: err, Fresh: true}
		}
		return fmt.Errorf("%s: %w", spec.Name, err)
	}
	return nil
}

// Definition is where the symbol at path:line:col is defined.
func (s *Set) Definition(ctx context.Context, env tools.Env, path string, line, col int) ([]Located, error) {
	return s.locations(ctx, env, path, line, col, "textDocument/definition", false)
}

// References are the places that use the symbol at path:line:col, its declaration left out.
func (s *Set) References(ctx context.Context, env tools.Env, path string, line, col int) ([]Located, error) {
	return s.locations(ctx, env, path, line, col, "textDocument/references", true)
}

func (s *Set) locations(ctx context.Context, env tools.Env, path string, line, col int, method string, refs bool) ([]Located, error) {
	var out []Located
	err := s.query(ctx, env, path, func(ctx context.Context, c *client, text string) error {
		pos := textDocumentPositionParams{TextDocument: textDocumentIdentifier{URI: fileURI(path)}, Position: c.position(text, line, col)}
		var params any = pos
		if refs {
			rp := referenceParams{textDocumentPositionParams: pos}
			params = rp
		}
		var raw json.RawMessage
		if err := c.call(ctx, method, params, &raw); err != nil {
			return err
		}
		for _, loc := range decodeLocations(raw) {
			l, line := c.locateLine(env.Cwd, loc)
			l.Text = strings.TrimSpace(line)
			out = append(out, l)
		}
		return nil
	})
	return out, err
}

// decodeLocations reads the answers to definition and references: null, one Location, or a
// list of Locations or LocationLinks.
func decodeLocations(raw json.RawMessage) []Location {
	var list []locationOrLink
	if json.Unmarshal(raw, &list) != nil {
		var one locationOrLink
		if json.Unmarshal(raw, &one) != nil {
			return nil
		}
		list = []locationOrLink{one}
	}
	out := make([]Location, 0, len(list))
	for _, l := range list {
		if loc, ok := l.location(); ok {
			out = append(out, loc)
		}
	}
	return out
}

// Hover is the server's description of the symbol at path:line:col, as plain text.
func (s *Set) Hover(ctx context.Context, env tools.Env, path string, line, col int) (string, error) {
	var out string
	err := s.query(ctx, env, path, func(ctx context.Context, c *client, text string) error {
		var res *hoverResult
		err := c.call(ctx, "textDocument/hover", textDocumentPositionParams{
			TextDocument: textDocumentIdentifier{URI: fileURI(path)}, Position: c.position(text, line, col)}, &res)
		if err == nil && res != nil {
			out = hoverText(res.Contents)
		}
		return err
	})
	return out, err
}

// hoverText flattens hover contents: MarkupContent, a MarkedString or a list of them.
func hoverText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var mc struct {
		Value string `json:"value"`
	}
	if json.Unmarshal(raw, &mc) == nil && mc.Value != "" {
		return strings.TrimSpace(mc.Value)
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		parts := make([]string, 0, len(list))
		for _, r := range list {
			if t := hoverText(r); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n\n")
	}
	return ""
}

// Symbols lists the symbols of path (its outline, nested ones indented).
func (s *Set) Symbols(ctx context.Context, env tools.Env, path string) ([]Located, error) {
	var out []Located
	err := s.query(ctx, env, path, func(ctx context.Context, c *client, _ string) error {
		var syms []documentSymbol
		if err := c.call(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": textDocumentIdentifier{URI: fileURI(path)}}, &syms); err != nil {
			return err
		}
		var walk func(list []documentSymbol, depth int)
		walk = func(list []documentSymbol, depth int) {
			for _, sym := range list {
				loc := Location{URI: fileURI(path), Range: sym.SelectionRange}
				if sym.Location != nil {
					loc = *sym.Location
				}
				l := c.locate(env.Cwd, loc)
				l.Text = strings.Repeat("  ", depth) + symbolKind(sym.Kind) + " " + sym.Name
				out = append(out, l)
				walk(sym.Children, depth+1)
			}
		}
		walk(syms, 0)
		return nil
	})
	return out, err
}

// WorkspaceSymbols finds symbols named like query in the whole project, asking the server
// of files like path (the language to search).
func (s *Set) WorkspaceSymbols(ctx context.Context, env tools.Env, path, query string) ([]Located, error) {
	var out []Located
	err := s.query(ctx, env, path, func(ctx context.Context, c *client, _ string) error {
		var syms []documentSymbol
		if err := c.call(ctx, "workspace/symbol", map[string]any{"query": query}, &syms); err != nil {
			return err
		}
		for _, sym := range syms {
			if sym.Location == nil {
				continue
			}
			l := c.locate(env.Cwd, *sym.Location)
			l.Text = symbolKind(sym.Kind) + " " + sym.Name
			if sym.ContainerName != "" {
				l.Text += " in " + sym.ContainerName
			}
			out = append(out, l)
		}
		return nil
	})
	return out, err
}

// Diagnostics are the server's current errors and warnings in path.
func (s *Set) Diagnostics(ctx context.Context, env tools.Env, path string) ([]Located, error) {
	var out []Located
	err := s.query(ctx, env, path, func(ctx context.Context, c *client, _ string) error {
		// The text opened for the question may be newer than what the server last
		// published about: then the publication of its version is the answer.
		ds, ok := c.current(path)
		if v := c.docVersion(path); !ok || c.version(path) < v {
			var err error
			if ds, _, err = c.diagnostics(ctx, path, v, 0); err != nil {
				return err
			}
		}
		out = c.locateDiagnostics(env.Cwd, path, ds)
		return nil
	})
	return out, err
}
