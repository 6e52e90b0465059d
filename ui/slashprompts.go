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

// listsFresh is how long a conversation's list of MCP prompts or resources is shown before
// it is asked for again: servers start in the background, so a list read at first may grow.
const listsFresh = 5 * time.Second

// mcpLists holds each conversation's items of one MCP listing (the prompts of the "/" menu,
// the resources of the "@" menu), read off the UI goroutine and again once listsFresh has
// passed.
type mcpLists struct {
	fetch func(ctx context.Context, convID string) ([]slashItem, error)
	// shows says whether a draft shows this menu, so that items that come redraw it.
	shows   func(draft string) bool
	items   map[string][]slashItem
	read    map[string]time.Time
	loading map[string]bool
}

func newMCPLists(fetch func(context.Context, string) ([]slashItem, error), shows func(string) bool) *mcpLists {
	return &mcpLists{fetch: fetch, shows: shows, items: map[string][]slashItem{}, read: map[string]time.Time{}, loading: map[string]bool{}}
}

// itemsOf returns a conversation's items as known, and asks for them again when stale.
func (s *slashMenu) itemsOf(l *mcpLists, convID string) []slashItem {
	if !l.loading[convID] && s.m.now().Sub(l.read[convID]) > listsFresh {
		s.loadList(l, convID)
	}
	return l.items[convID]
}

// loadList asks for a conversation's items off the UI goroutine and shows them when they come.
func (s *slashMenu) loadList(l *mcpLists, convID string) {
	l.loading[convID] = true
	go func() {
		ctx, cancel := context.WithTimeout(s.m.ctx, callTimeout)
		defer cancel()
		items, err := l.fetch(ctx, convID)
		s.m.do(func() {
			delete(l.loading, convID)
			l.read[convID] = s.m.now()
			if err != nil || s.m.closed {
				return
			}
			l.items[convID] = items
			if cs := s.m.current; cs != nil && cs.id == convID && l.shows(s.m.composer.entry.Text) {
				s.update(s.m.composer.entry.Text)
			}
		})
	}()
}

// usePrompts makes the menu list the backend's MCP prompts, if it has any.
func (s *slashMenu) usePrompts() {
	b, ok := s.m.b.(PromptsBackend)
	if !ok {
		return
	}
	l := newMCPLists(func(ctx context.Context, convID string) ([]slashItem, error) {
		prompts, err := b.Prompts(ctx, convID)
		var items []slashItem
		for _, pr := range prompts {
			items = append(items, promptItem(b, convID, pr))
		}
		return items, err
	}, func(draft string) bool { return strings.HasPrefix(draft, "/") })
	s.mcpPrompts = func(convID string) []slashItem { return s.itemsOf(l, convID) }
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
