package ui

import (
	"context"
	"strings"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
)

// PromptsBackend offers a conversation's MCP prompts (*actors.Runtime does): they join the
// "/" menu beside the commands, named as other agents name them, /mcp__SERVER__PROMPT.
type PromptsBackend interface {
	Prompts(ctx context.Context, convID string) ([]actors.MCPPrompt, error)
	GetPrompt(ctx context.Context, convID, server, name string, args map[string]string) (string, error)
}

var _ PromptsBackend = (*actors.Runtime)(nil)

// promptsFresh is how long a conversation's list of prompts is shown before it is asked for
// again: servers start in the background, so a list read at first may grow.
const promptsFresh = 5 * time.Second

// promptLists holds each conversation's prompts as menu items, read off the UI goroutine.
type promptLists struct {
	b       PromptsBackend
	items   map[string][]slashItem
	read    map[string]time.Time
	loading map[string]bool
}

// usePrompts makes the menu list the backend's MCP prompts, if it has any.
func (s *slashMenu) usePrompts() {
	b, ok := s.m.b.(PromptsBackend)
	if !ok {
		return
	}
	p := &promptLists{b: b, items: map[string][]slashItem{}, read: map[string]time.Time{}, loading: map[string]bool{}}
	s.mcpPrompts = func(convID string) []slashItem {
		if !p.loading[convID] && s.m.now().Sub(p.read[convID]) > promptsFresh {
			s.loadPrompts(p, convID)
		}
		return p.items[convID]
	}
}

// loadPrompts asks for a conversation's prompts off the UI goroutine and shows them when
// they come.
func (s *slashMenu) loadPrompts(p *promptLists, convID string) {
	p.loading[convID] = true
	go func() {
		ctx, cancel := context.WithTimeout(s.m.ctx, callTimeout)
		defer cancel()
		prompts, err := p.b.Prompts(ctx, convID)
		s.m.do(func() {
			delete(p.loading, convID)
			p.read[convID] = s.m.now()
			if err != nil || s.m.closed {
				return
			}
			var items []slashItem
			for _, pr := range prompts {
				items = append(items, promptItem(p.b, convID, pr))
			}
			p.items[convID] = items
			if cs := s.m.current; cs != nil && cs.id == convID && strings.HasPrefix(s.m.composer.entry.Text, "/") {
				s.update(s.m.composer.entry.Text)
			}
		})
	}()
}

// promptItem is one MCP prompt as a menu line; its arguments are the words typed after the
// name, in the prompt's order, the last taking the rest of the line.
func promptItem(b PromptsBackend, convID string, pr actors.MCPPrompt) slashItem {
	var hint []string
	for _, a := range pr.Arguments {
		hint = append(hint, "<"+a.Name+">")
	}
	desc := pr.Description
	if desc == "" {
		desc = pr.Title
	}
	return slashItem{
		name: "mcp__" + pr.Server + "__" + pr.Name, hint: strings.Join(hint, " "), desc: desc, origin: "MCP " + pr.Server, prompt: &pr,
		remote: func(ctx context.Context, args string) (string, error) {
			return b.GetPrompt(ctx, convID, pr.Server, pr.Name, actors.MCPPromptArgs(pr, args))
		},
	}
}
