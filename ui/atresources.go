package ui

import (
	"context"
	"strings"
	"time"
	"unicode"

	"github.com/phoenix-desktop/phoenix/actors"
)

// The composer's "@" menu (issue 26): typing "@" lists the resources of the conversation's
// MCP servers in the same menu as the "/" commands; choosing one writes its reference,
// "@SERVER:URI", into the draft. When the message is sent the runtime reads each reference and
// adds the resource's text to the message (actors.Runtime.AttachResources), so the CLI and the
// window attach alike.

// ResourcesBackend offers a conversation's MCP resources (*actors.Runtime does).
type ResourcesBackend interface {
	Resources(ctx context.Context, convID string) ([]actors.MCPResource, error)
	AttachResources(ctx context.Context, convID, text string) (string, []actors.Attachment, error)
}

var _ ResourcesBackend = (*actors.Runtime)(nil)

// resourceLists holds each conversation's resources as menu items, read off the UI goroutine
// and read again, like the prompts, once promptsFresh has passed (servers start in the
// background, so the first list may grow).
type resourceLists struct {
	b     ResourcesBackend
	lists promptLists
}

// useResources makes the menu list the backend's MCP resources after "@", if it has any.
func (s *slashMenu) useResources() {
	b, ok := s.m.b.(ResourcesBackend)
	if !ok {
		return
	}
	r := &resourceLists{b: b, lists: promptLists{items: map[string][]slashItem{}, read: map[string]time.Time{}, loading: map[string]bool{}}}
	s.mcpResources = func(convID string) []slashItem {
		if !r.lists.loading[convID] && s.m.now().Sub(r.lists.read[convID]) > promptsFresh {
			s.loadResources(r, convID)
		}
		return r.lists.items[convID]
	}
}

func (s *slashMenu) loadResources(r *resourceLists, convID string) {
	r.lists.loading[convID] = true
	go func() {
		ctx, cancel := context.WithTimeout(s.m.ctx, callTimeout)
		defer cancel()
		list, err := r.b.Resources(ctx, convID)
		s.m.do(func() {
			delete(r.lists.loading, convID)
			r.lists.read[convID] = s.m.now()
			if err != nil || s.m.closed {
				return
			}
			items := make([]slashItem, 0, len(list))
			for _, res := range list {
				desc := res.Label()
				if res.Description != "" && res.Description != desc {
					desc += ": " + res.Description
				}
				items = append(items, slashItem{mark: "@", name: strings.TrimPrefix(res.Ref(), "@"), desc: desc, origin: "MCP " + res.Server})
			}
			r.lists.items[convID] = items
			if cs := s.m.current; cs != nil && cs.id == convID {
				s.update(s.m.composer.entry.Text)
			}
		})
	}()
}

// atPrefix finds a resource reference being typed at the end of the draft: the last word,
// starting with "@" (after a blank or at the start). It returns where the word starts and
// what follows the "@".
func atPrefix(text string) (start int, prefix string, ok bool) {
	i := strings.LastIndexFunc(text, unicode.IsSpace) + 1
	word := text[i:]
	if !strings.HasPrefix(word, "@") {
		return 0, "", false
	}
	return i, word[1:], true
}

// matchesResource reports whether what was typed after "@" picks the item: a part of its
// reference or of its name, in any case.
func matchesResource(it slashItem, typed string) bool {
	typed = strings.ToLower(typed)
	return strings.Contains(strings.ToLower(it.name), typed) || strings.Contains(strings.ToLower(it.desc), typed)
}

// attachResources is the send path's step for "@" references: the message with the
// resources' text added, and their images, when the backend reads resources.
func (m *MainWindow) attachResources(ctx context.Context, convID, text string, images []Attachment) (string, []Attachment, error) {
	b, ok := m.b.(ResourcesBackend)
	if !ok {
		return text, images, nil
	}
	msg, extra, err := b.AttachResources(ctx, convID, text)
	if err != nil {
		return "", nil, err
	}
	return msg, append(images, extra...), nil
}
