package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/mcp"
	"github.com/phoenix-desktop/phoenix/transcript"
)

// Headless answers to the MCP servers' requests for the person (issue 26): chat has no window
// to show a form or a confirmation in, so it answers by its flags and says on stderr what was
// asked and what it answered.

// flagMCPElicit is chat's answer to a server's request for input.
const flagMCPElicit = "mcp-elicit"

// elicitFromStdin is the --mcp-elicit value that fills a server's form from standard input,
// one line per field, the questions on standard error.
const elicitFromStdin = "stdin"

// checkElicitAnswer checks --mcp-elicit: decline or cancel every request for input, or read
// the answers from standard input.
func checkElicitAnswer(v string) error {
	if v != mcp.ElicitDecline && v != mcp.ElicitCancel && v != elicitFromStdin {
		return fmt.Errorf("--%s=%s: use %s, %s, or %s to type the answers on standard input", flagMCPElicit, v, mcp.ElicitDecline, mcp.ElicitCancel, elicitFromStdin)
	}
	return nil
}

// mcpAnswerer is the part of the runtime that takes the answers.
type mcpAnswerer interface {
	AnswerMCPInput(convID, id, action string, entries map[string]string) error
	DecideMCPTool(convID, id string, d actors.MCPToolDecision) error
}

// answerMCPRequest answers an MCP request event of any conversation of this run (a sub-agent's
// too) and reports whether ev was one. A request for input gets elicit (decline or cancel); a
// destructive tool that --mcp-allow-tools does not name (those never ask) is denied.
func answerMCPRequest(rt mcpAnswerer, ev actors.Event, elicit string, in *stdinAnswers, w io.Writer) bool {
	switch e := ev.(type) {
	case actors.MCPInputRequested:
		if elicit == elicitFromStdin {
			// Asked without blocking the caller's loop, so Ctrl+C still stops the turn.
			go in.fill(rt, e, w)
			return true
		}
		var fields []string
		for _, f := range e.Fields {
			fields = append(fields, f.Name)
		}
		what := ""
		if len(fields) > 0 {
			what = " (fields: " + strings.Join(fields, ", ") + ")"
		}
		err := rt.AnswerMCPInput(e.ConvID, e.ID, elicit, nil)
		fmt.Fprintf(w, "phoenix-desktop: the MCP server %s asks: %q%s; answered %q (--%s; there is no window to fill in the form)%s\n",
			e.Server, transcript.OneLine(e.Message, 300), what, elicit, flagMCPElicit, failure(err))
		fmt.Fprintf(w, "phoenix-desktop: (--%s=%s types the answers on standard input)\n", flagMCPElicit, elicitFromStdin)
		return true
	case actors.MCPToolConfirmation:
		err := rt.DecideMCPTool(e.ConvID, e.ID, actors.MCPToolDeny)
		fmt.Fprintf(w, "phoenix-desktop: the MCP server %s wants to run %s (it may change or delete data) with %s; denied (allow it with %s=%s/%s)%s\n",
			e.Server, e.Tool, transcript.OneLine(e.Arguments, 300), mcp.AllowToolsFlag, e.Server, e.Tool, failure(err))
		return true
	case actors.MCPRequestClosed:
		return true
	}
	return false
}

func failure(err error) string {
	if err == nil {
		return ""
	}
	return " — but the answer was not taken: " + err.Error()
}

// stdinAnswers fills servers' forms from standard input (--mcp-elicit=stdin). One form is
// asked at a time (sub-agents may ask together); the lines are read from one buffer, so a
// script can pipe every answer in at once.
type stdinAnswers struct {
	mu sync.Mutex
	in *bufio.Reader
	// out orders what fill prints with the chat's end (end): an answer is taken and said
	// under it, so a chat that ended because of the answer has its line printed before it
	// returns, and nothing is printed once it has (the writer is the caller's again).
	out   sync.Mutex
	ended bool
}

// say prints on w unless the chat has ended.
func (s *stdinAnswers) say(w io.Writer, format string, args ...any) {
	s.out.Lock()
	defer s.out.Unlock()
	if !s.ended {
		fmt.Fprintf(w, format, args...)
	}
}

// end is called as the chat returns: a form still being filled says nothing more.
func (s *stdinAnswers) end() {
	s.out.Lock()
	s.ended = true
	s.out.Unlock()
}

func newStdinAnswers(r io.Reader) *stdinAnswers { return &stdinAnswers{in: bufio.NewReader(r)} }

// fill asks for each field of e's form on w and reads one line each: an empty line keeps the
// field's default (or leaves an optional field out). A line that does not fit the field asks
// again; the end of input cancels the request. A page to open is printed, and an empty line
// accepts it once the person has been there.
func (s *stdinAnswers) fill(rt mcpAnswerer, e actors.MCPInputRequested, w io.Writer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.say(w, "phoenix-desktop: the MCP server %s asks: %s\n", e.Server, transcript.OneLine(e.Message, 300))
	answer := func(action string, entries map[string]string) error {
		s.out.Lock()
		defer s.out.Unlock()
		err := rt.AnswerMCPInput(e.ConvID, e.ID, action, entries)
		if !s.ended && (err == nil || action != mcp.ElicitAccept) {
			fmt.Fprintf(w, "phoenix-desktop: answered %q%s\n", action, failure(err))
		}
		return err
	}
	if e.FieldsError != "" {
		s.say(w, "phoenix-desktop: this form cannot be filled in here (%s)\n", e.FieldsError)
		_ = answer(mcp.ElicitDecline, nil)
		return
	}
	if e.URL != "" {
		s.say(w, "Open %s, then press Enter (or type decline or cancel): ", e.URL)
		line, err := s.in.ReadString('\n')
		switch v := strings.TrimSpace(line); {
		case err != nil && v == "":
			_ = answer(mcp.ElicitCancel, nil)
		case v == mcp.ElicitDecline || v == mcp.ElicitCancel:
			_ = answer(v, nil)
		default:
			_ = answer(mcp.ElicitAccept, nil)
		}
		return
	}
	for {
		entries := map[string]string{}
		for _, f := range e.Fields {
			s.say(w, "  %s%s: ", f.Label(), fieldHint(f))
			line, err := s.in.ReadString('\n')
			if err != nil && line == "" {
				s.say(w, "\n")
				_ = answer(mcp.ElicitCancel, nil)
				return
			}
			if v := strings.TrimRight(line, "\r\n"); v != "" {
				if f.Kind == mcp.FieldChoices {
					// Several picks on one line, separated by commas.
					picks := strings.Split(v, ",")
					for i := range picks {
						picks[i] = strings.TrimSpace(picks[i])
					}
					v = strings.Join(picks, mcp.ChoicesSeparator)
				}
				entries[f.Name] = v
			} else if f.Default != "" {
				entries[f.Name] = f.Default
			}
		}
		err := answer(mcp.ElicitAccept, entries)
		if err == nil || errors.Is(err, actors.ErrNoMCPRequest) {
			return
		}
		s.say(w, "phoenix-desktop: %v; once more:\n", err)
	}
}

// fieldHint says what a field takes, for the question on the terminal.
func fieldHint(f mcp.FormField) string {
	var parts []string
	if f.Description != "" {
		parts = append(parts, transcript.OneLine(f.Description, 120))
	}
	switch {
	case f.Kind == mcp.FieldChoices:
		parts = append(parts, "one or more of "+strings.Join(f.Options, ", ")+", separated by commas")
	case len(f.Options) > 0:
		parts = append(parts, "one of "+strings.Join(f.Options, ", "))
	}
	if f.Required {
		parts = append(parts, "required")
	}
	if f.Default != "" {
		parts = append(parts, "Enter for "+f.Default)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}
