package ui

import (
	"context"
	"strings"
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

// useResources makes the menu list the backend's MCP resources after "@", if it has any.
func (s *slashMenu) useResources() {
	b, ok := s.m.b.(ResourcesBackend)
	if !ok {
		return
	}
	l := newMCPLists(func(ctx context.Context, convID string) ([]slashItem, error) {
		list, err := b.Resources(ctx, convID)
		items := make([]slashItem, 0, len(list))
		for _, res := range list {
			desc := res.Label()
			if res.Description != "" && res.Description != desc {
				desc += ": " + res.Description
			}
			items = append(items, slashItem{mark: "@", name: strings.TrimPrefix(res.Ref(), "@"), desc: desc, origin: "MCP " + res.Server})
		}
		return items, err
	}, func(draft string) bool { _, _, ok := atPrefix(draft); return ok })
	s.mcpResources = func(convID string) []slashItem { return s.itemsOf(l, convID) }
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
