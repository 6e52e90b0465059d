package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/tools"
)

// The model's tools on the language servers (domain.LanguageTools): each answer lists places
// as path:line:column, one a line, which the tool row shows as links.

type placeArgs struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

type symbolArgs struct {
	Path  string `json:"path"`
	Query string `json:"query"`
}

// RunTool runs one language tool call on the conversation's servers; a nil set means the
// language servers are off in this session.
func RunTool(ctx context.Context, s *Set, env tools.Env, call domain.ToolCall) tools.Output {
	if s == nil {
		return fail("The language servers are off in this session, so %s cannot run; use keyword_search or bash instead.", call.Name)
	}
	raw := []byte(call.Arguments)
	switch call.Name {
	case domain.ToolDiagnostics:
		var a struct {
			Path string `json:"path"`
		}
		if err := decode(call.Name, raw, &a); err != nil {
			return fail("%v", err)
		}
		if a.Path == "" {
			return places(call.Name, s.AllDiagnostics(env.Cwd), "no errors or warnings in the files checked so far", "problem")
		}
		got, err := s.Diagnostics(ctx, env, abs(env.Cwd, a.Path))
		return answer(call.Name, got, err, "no errors or warnings in "+a.Path, "problem")
	case domain.ToolDefinition, domain.ToolReferences, domain.ToolHover:
		var a placeArgs
		if err := decode(call.Name, raw, &a); err != nil {
			return fail("%v", err)
		}
		if a.Path == "" || a.Line < 1 || a.Column < 1 {
			return fail("%s needs path, and line and column counted from 1.", call.Name)
		}
		path := abs(env.Cwd, a.Path)
		switch call.Name {
		case domain.ToolDefinition:
			got, err := s.Definition(ctx, env, path, a.Line, a.Column)
			return answer(call.Name, got, err, "no definition found at that place", "definition")
		case domain.ToolReferences:
			got, err := s.References(ctx, env, path, a.Line, a.Column)
			return answer(call.Name, got, err, "no references found at that place", "reference")
		}
		text, err := s.Hover(ctx, env, path, a.Line, a.Column)
		if err != nil {
			return fail("%s", errText(err))
		}
		if text == "" {
			text = "The language server has nothing to say about that place."
		}
		return tools.Output{Outcome: domain.OutcomeSuccess, Content: text, Display: &domain.ToolDisplay{Summary: firstLine(text)}}
	case domain.ToolSymbols:
		var a symbolArgs
		if err := decode(call.Name, raw, &a); err != nil {
			return fail("%v", err)
		}
		switch {
		case a.Query != "":
			path := a.Path
			if path != "" {
				path = abs(env.Cwd, path)
			} else if path = s.runningFile(); path == "" {
				return fail("No language server runs yet in this conversation: give path, a file of the language to search.")
			}
			got, err := s.WorkspaceSymbols(ctx, env, path, a.Query)
			return answer(call.Name, got, err, "no symbols match "+a.Query, "symbol")
		case a.Path != "":
			got, err := s.Symbols(ctx, env, abs(env.Cwd, a.Path))
			return answer(call.Name, got, err, "no symbols in "+a.Path, "symbol")
		}
		return fail("symbols needs path (a file's outline) or query (names in the whole project).")
	}
	return fail("%s is not a language tool.", call.Name)
}

func decode(tool string, raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("invalid arguments for %s: %v", tool, err)
	}
	return nil
}

func abs(cwd, path string) string {
	if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	return filepath.Clean(path)
}

func fail(format string, a ...any) tools.Output {
	msg := fmt.Sprintf(format, a...)
	return tools.Output{Outcome: domain.OutcomeError, Content: msg, Display: &domain.ToolDisplay{Summary: firstLine(msg)}}
}

// errText is an error for the model: a file no server serves says what to use instead.
func errText(err error) string {
	if errors.Is(err, ErrNoServer) {
		return err.Error() + ". Use keyword_search or bash instead."
	}
	return err.Error()
}

func answer(tool string, got []Located, err error, none, noun string) tools.Output {
	if err != nil {
		return fail("%s", errText(err))
	}
	return places(tool, got, none, noun)
}

// places lists at most domain.LSPMaxPlaces places, one a line.
func places(_ string, got []Located, none, noun string) tools.Output {
	if len(got) == 0 {
		return tools.Output{Outcome: domain.OutcomeSuccess, Content: strings.ToUpper(none[:1]) + none[1:] + ".", Display: &domain.ToolDisplay{Summary: none}}
	}
	var b strings.Builder
	for i, l := range got {
		if i == domain.LSPMaxPlaces {
			fmt.Fprintf(&b, "… and %d more.\n", len(got)-domain.LSPMaxPlaces)
			break
		}
		b.WriteString(l.String() + "\n")
	}
	return tools.Output{Outcome: domain.OutcomeSuccess, Content: b.String(), Display: &domain.ToolDisplay{Summary: plural(len(got), noun)}}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > 120 {
		s = string(r[:119]) + "…"
	}
	return s
}

// AllDiagnostics lists what every running server last published, files in order.
func (s *Set) AllDiagnostics(cwd string) []Located {
	s.mu.Lock()
	var cs []*client
	for _, spec := range s.opts.Specs {
		if e := s.servers[spec.Name]; e != nil && e.c != nil {
			cs = append(cs, e.c)
		}
	}
	s.mu.Unlock()
	var out []Located
	for _, c := range cs {
		c.mu.Lock()
		uris := make([]string, 0, len(c.diags))
		for u, p := range c.diags {
			if len(p.list) > 0 {
				uris = append(uris, u)
			}
		}
		c.mu.Unlock()
		slices.Sort(uris)
		for _, u := range uris {
			ds, _ := c.current(uriPath(u))
			out = append(out, c.locateDiagnostics(cwd, uriPath(u), ds)...)
		}
	}
	return out
}

// runningFile is a file some running server has open, to name its language.
func (s *Set) runningFile() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, spec := range s.opts.Specs {
		if e := s.servers[spec.Name]; e != nil && e.c != nil {
			e.c.mu.Lock()
			for u := range e.c.docs {
				e.c.mu.Unlock()
				return uriPath(u)
			}
			e.c.mu.Unlock()
		}
	}
	return ""
}

// Offered says whether the language tools are offered in a conversation in cwd: a server
// runs, or one that is not down serves a file among the project's first two levels and its
// program is on PATH. What it found in cwd is kept: it is asked before every model request.
func (s *Set) Offered(cwd string) bool {
	s.mu.Lock()
	for _, e := range s.servers {
		if e.status == StateRunning {
			s.mu.Unlock()
			return true
		}
	}
	s.mu.Unlock()
	s.offerOnce.Do(func() { s.offer = s.projectServed(cwd) })
	return s.offer != "" && s.Serves(filepath.Join(cwd, "x"+s.offer), cwd)
}

// projectServed is an ending of a file in cwd or its subdirectories (one level, hidden
// ones and dependencies left out, a few hundred entries at most) that a server on PATH
// serves, "" when none.
func (s *Set) projectServed(cwd string) string {
	seen := map[string]bool{}
	budget := 400
	var look func(dir string, depth int) string
	look = func(dir string, depth int) string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return ""
		}
		for _, e := range entries {
			if budget--; budget < 0 {
				return ""
			}
			name := e.Name()
			if strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor" || name == "target" {
				continue
			}
			if e.IsDir() {
				if depth == 0 {
					if ext := look(filepath.Join(dir, name), 1); ext != "" {
						return ext
					}
				}
				continue
			}
			ext := strings.ToLower(filepath.Ext(name))
			if ext == "" || seen[ext] {
				continue
			}
			seen[ext] = true
			if _, _, err := s.specFor(name, cwd); err == nil {
				return ext
			}
		}
		return ""
	}
	return look(cwd, 0)
}
