package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/tools"
)

// MaxReported is how many new errors an edit's result lists; the rest are counted.
const MaxReported = domain.LSPMaxNewErrors

// Report is what the language server says about one edit.
type Report struct {
	// Server names the server ("gopls"); empty when none serves the file.
	Server string
	// New are the errors the edit introduced, in the order the server gave them.
	New []Located
	// Text is appended to the tool's result for the model; Summary is its short form for
	// the tool row ("2 new errors (gopls)"). Both are empty when there is nothing to say.
	Text, Summary string
}

// Located is a diagnostic or a symbol at a place, ready to show: a path relative to the
// working directory where it lies inside it, one-based line and column.
type Located struct {
	Path         string
	Line, Column int
	Text         string
}

func (l Located) String() string {
	if l.Text == "" {
		return fmt.Sprintf("%s:%d:%d", l.Path, l.Line, l.Column)
	}
	return fmt.Sprintf("%s:%d:%d: %s", l.Path, l.Line, l.Column, l.Text)
}

// AfterEdit tells the server that path changed from before (existed says the file was
// there) to what it now holds on disk, and reports the errors the change introduced: those
// the server reports now and did not before, compared by their words (their lines may have
// moved). A file no server serves costs nothing; a server that cannot start, does not answer
// within the request timeout or dies is marked down and said so in this one report.
func (s *Set) AfterEdit(ctx context.Context, env tools.Env, path, before string, existed bool) Report {
	if _, _, err := s.specFor(path, env.Cwd); err != nil {
		return Report{}
	}
	c, spec, err := s.server(ctx, env, path)
	if err != nil {
		return downReport(spec.Name, err)
	}
	rep := Report{Server: spec.Name}
	after, ok, err := readText(path)
	if err != nil || !ok {
		return rep // gone again, or unreadable: nothing to compare
	}
	timeout := s.timeout(c)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	baseline, known := c.current(path)
	if _, open := c.text(fileURI(path)); !open || !known {
		baseline = nil
		if existed {
			v, seq, err := c.sync(ctx, path, before)
			if err == nil {
				baseline, _, err = c.diagnostics(ctx, path, v, seq)
			}
			if err != nil {
				return s.failed(c, spec, err, ctx)
			}
		}
	}
	v, seq, err := c.sync(ctx, path, after)
	var now []Diagnostic
	var got bool
	if err == nil {
		now, got, err = c.diagnostics(ctx, path, v, seq)
	}
	if err != nil {
		return s.failed(c, spec, err, ctx)
	}
	if !got {
		return s.unanswered(c, spec, ctx, timeout)
	}
	c.warmed()
	rep.New = c.locateDiagnostics(env.Cwd, path, newErrors(baseline, now))
	if n := len(rep.New); n > 0 {
		rep.Summary = fmt.Sprintf("%s (%s)", plural(n, "new error"), spec.Name)
		rep.Text = formatNew(spec.Name, displayPath(env.Cwd, path), rep.New, "this change")
	}
	return rep
}

// unanswered is an edit's check that got no diagnostics: past the timeout the server is
// marked down (it delays no later turn); a call the person stopped changes nothing.
func (s *Set) unanswered(c *client, spec Spec, ctx context.Context, timeout time.Duration) Report {
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return Report{Server: spec.Name}
	}
	return s.failed(c, spec, fmt.Errorf("it published no diagnostics within %s of an edit", timeout), ctx)
}

// failed marks the server down when err says it is broken (dead, or silent past the
// timeout) and reports it once; an error answer or a cancelled call changes nothing.
func (s *Set) failed(c *client, spec Spec, err error, ctx context.Context) Report {
	var ans *answerError
	if errors.As(err, &ans) {
		return Report{Server: spec.Name}
	}
	if !c.alive() || errors.Is(ctx.Err(), context.DeadlineExceeded) || ctx.Err() == nil {
		s.mu.Lock()
		e := s.servers[spec.Name]
		s.mu.Unlock()
		if e != nil {
			s.markDown(e, c, err)
		}
		return downReport(spec.Name, &DownError{Name: spec.Name, Reason: err, Fresh: true})
	}
	return Report{Server: spec.Name}
}

func downReport(name string, err error) Report {
	var down *DownError
	if !errors.As(err, &down) || !down.Fresh {
		return Report{}
	}
	return Report{Server: name,
		Text:    fmt.Sprintf("\n[The language server %s is not available in this conversation, so this change was not checked: %v. Check it with the compiler or linter through bash instead.]\n", name, down.Reason),
		Summary: name + " down"}
}

// newErrors are the errors of now that baseline does not have as many times, compared by
// severity, source, code and words.
func newErrors(baseline, now []Diagnostic) []Diagnostic {
	key := func(d Diagnostic) string {
		return fmt.Sprintf("%d\x00%s\x00%s\x00%s", d.Severity, d.Source, d.Code, d.Message)
	}
	seen := map[string]int{}
	for _, d := range baseline {
		seen[key(d)]++
	}
	var out []Diagnostic
	for _, d := range now {
		if d.Severity != SeverityError && d.Severity != 0 {
			continue
		}
		if k := key(d); seen[k] > 0 {
			seen[k]--
			continue
		}
		out = append(out, d)
	}
	return out
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// displayPath is path relative to cwd when it lies inside it.
func displayPath(cwd, path string) string {
	if rel, err := filepath.Rel(cwd, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// AfterCommand checks the files the running servers have open after a command that may
// have changed them (bash in a mode that writes): each whose text on disk differs from the
// server's copy is synced, and the errors the change introduced are reported as AfterEdit
// does. Nothing runs and nothing is read when no server runs.
func (s *Set) AfterCommand(ctx context.Context, env tools.Env) Report {
	s.mu.Lock()
	var running []*entry
	for _, spec := range s.opts.Specs {
		if e := s.servers[spec.Name]; e != nil && e.c != nil && e.status == StateRunning {
			running = append(running, e)
		}
	}
	s.mu.Unlock()
	var all Report
	var texts []string
	for _, e := range running {
		c := e.c
		if c == nil {
			continue
		}
		c.mu.Lock()
		open := make(map[string]string, len(c.docs))
		for u, d := range c.docs {
			open[uriPath(u)] = d.text
		}
		c.mu.Unlock()
		for path, had := range open {
			now, ok, err := readText(path)
			if err != nil || !ok || now == had {
				continue
			}
			rep := s.recheck(ctx, c, e.spec, env, path, now)
			all.New = append(all.New, rep.New...)
			if rep.Text != "" {
				texts = append(texts, rep.Text)
			}
			if all.Server == "" {
				all.Server = rep.Server
			}
		}
	}
	if len(texts) > 0 {
		all.Text = strings.Join(texts, "")
		all.Summary = fmt.Sprintf("%s (%s)", plural(len(all.New), "new error"), all.Server)
		if len(all.New) == 0 {
			all.Summary = all.Server + " down"
		}
	}
	return all
}

// recheck reports the new errors of an open file whose text changed on disk to now.
func (s *Set) recheck(ctx context.Context, c *client, spec Spec, env tools.Env, path, now string) Report {
	ctx, cancel := context.WithTimeout(ctx, s.timeout(c))
	defer cancel()
	baseline, _ := c.current(path)
	v, seq, err := c.sync(ctx, path, now)
	var after []Diagnostic
	var got bool
	if err == nil {
		after, got, err = c.diagnostics(ctx, path, v, seq)
	}
	if err != nil {
		return s.failed(c, spec, err, ctx)
	}
	rep := Report{Server: spec.Name}
	if !got {
		return s.unanswered(c, spec, ctx, s.timeout(c))
	}
	rep.New = c.locateDiagnostics(env.Cwd, path, newErrors(baseline, after))
	if n := len(rep.New); n > 0 {
		rep.Text = formatNew(spec.Name, displayPath(env.Cwd, path), rep.New, "this command")
	}
	return rep
}

// formatNew writes the new errors of one file for the model, at most MaxReported.
func formatNew(server, shown string, list []Located, what string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s reports %s in %s after %s:\n", server, plural(len(list), "new error"), shown, what)
	for i, l := range list {
		if i == MaxReported {
			fmt.Fprintf(&b, "… and %d more.\n", len(list)-MaxReported)
			break
		}
		b.WriteString(l.String() + "\n")
	}
	return b.String()
}
