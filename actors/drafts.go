package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/phoenix-desktop/phoenix/persistence"
)

// Drafts: what the person has typed into a conversation's composer and not sent is kept in
// the store as they type (aux record "draft", flushed like a user message), so closing the
// window, a restart or a crash loses none of it (issue 41). The window is its only writer;
// the conversation's actor never reads it. Delete removes it with the other aux records.

const auxDraft = "draft"

// storedDraft is the draft record's JSON; an object, so that attachments can join the text
// later as an optional field without changing how a stored draft decodes.
type storedDraft struct {
	Text string `json:"text"`
}

// Draft returns a conversation's unsent draft, or "" when there is none.
func (r *Runtime) Draft(ctx context.Context, id string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	b, err := r.cfg.Store.Aux(id, auxDraft)
	if errors.Is(err, persistence.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the unsent draft of %s: %w", id, err)
	}
	var d storedDraft
	if err := json.Unmarshal(b, &d); err != nil {
		return "", fmt.Errorf("the unsent draft of %s does not decode: %w", id, err)
	}
	return d.Text, nil
}

// SaveDraft keeps a conversation's unsent draft; an empty text removes it (the message was
// sent, or the person cleared the composer).
func (r *Runtime) SaveDraft(ctx context.Context, id, text string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if text == "" {
		if err := r.cfg.Store.DeleteAux(id, auxDraft); err != nil {
			return fmt.Errorf("remove the unsent draft of %s: %w", id, err)
		}
		return nil
	}
	b, err := json.Marshal(storedDraft{Text: text})
	if err != nil {
		return fmt.Errorf("encode the unsent draft of %s: %w", id, err)
	}
	if err := r.cfg.Store.PutAux(id, auxDraft, b); err != nil {
		return fmt.Errorf("keep the unsent draft of %s: %w", id, err)
	}
	return nil
}
