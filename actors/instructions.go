package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/instructions"
	"github.com/phoenix-desktop/phoenix/persistence"
)

// Project instructions (AGENTS.md and friends) are read when a conversation is created and
// when the person asks to reload them, never in a conversation's mailbox: the files are read
// by the caller, and the result is kept in the store (aux record "instructions"), from where
// each model request takes it. So every request of a conversation sees the same instructions
// until a reload, a restart changes nothing, and a sub-agent reads its parent's.

// Instructions is what one reading of the instructions found.
type Instructions = instructions.Set

// auxInstructions names the store record that holds a conversation's Instructions.
const auxInstructions = "instructions"

// InstructionsChanged announces the instructions a conversation now uses (after a reload).
type InstructionsChanged struct {
	ConvID       string
	Instructions Instructions
}

func (e InstructionsChanged) Conversation() string { return e.ConvID }

// readInstructions reads the files for a working directory and announces those it skipped.
func (r *Runtime) readInstructions(convID, cwd string) Instructions {
	set := instructions.Load(cwd, r.cfg.InstructionsDir)
	for _, n := range set.Notices {
		r.publish(Notice{ConvID: convID, Level: NoticeWarning, Text: "Instructions: " + n})
	}
	return set
}

func (r *Runtime) saveInstructions(id string, set Instructions) error {
	b, err := json.Marshal(set)
	if err != nil {
		return fmt.Errorf("encode the instructions of %s: %w", id, err)
	}
	// Unflushed: the record is what files said, none of the person's words. At creation the
	// conversation's own record is not flushed either, and the flush of its first message
	// (the store's log is written in order) takes both to the disk; a reload reaches it
	// within the store's background flush. Flushing here cost a cold one-turn chat two of
	// its syncs (issue 39).
	if err := r.cfg.Store.PutAuxUnflushed(id, auxInstructions, b); err != nil {
		return fmt.Errorf("save the instructions of %s: %w", id, err)
	}
	return nil
}

// storedInstructions reads what a conversation uses; a sub-agent uses its parent's. A
// conversation without the record (created before instructions existed) has none.
func (r *Runtime) storedInstructions(c domain.Conversation) (Instructions, error) {
	id := c.ID
	if c.IsSubAgent() {
		id = c.ParentID
	}
	b, err := r.cfg.Store.Aux(id, auxInstructions)
	if errors.Is(err, persistence.ErrNotFound) {
		return Instructions{}, nil
	}
	if err != nil {
		return Instructions{}, err
	}
	var set Instructions
	if err := json.Unmarshal(b, &set); err != nil {
		return Instructions{}, fmt.Errorf("the stored instructions of %s do not decode: %w; use Reload instructions", id, err)
	}
	return set, nil
}

// Instructions returns the instructions a conversation's next request uses.
func (r *Runtime) Instructions(ctx context.Context, id string) (Instructions, error) {
	if err := ctx.Err(); err != nil {
		return Instructions{}, err
	}
	c, err := r.cfg.Store.Get(id)
	if err != nil {
		return Instructions{}, fmt.Errorf("instructions of %s: %w", id, err)
	}
	return r.storedInstructions(c)
}

// ReloadInstructions reads the instructions files again; the next request uses them. It also
// turns instructions back on for a conversation started without them.
func (r *Runtime) ReloadInstructions(ctx context.Context, id string) (Instructions, error) {
	if err := ctx.Err(); err != nil {
		return Instructions{}, err
	}
	c, err := r.cfg.Store.Get(id)
	if err != nil {
		return Instructions{}, fmt.Errorf("reload instructions of %s: %w", id, err)
	}
	if c.IsSubAgent() {
		return Instructions{}, fmt.Errorf("reload instructions of %s: a sub-agent uses its parent's instructions", id)
	}
	set, cust := r.readProject(ctx, id, c.Host, c.Cwd, false)
	if err := r.saveInstructions(id, set); err != nil {
		return Instructions{}, err
	}
	r.publish(InstructionsChanged{ConvID: id, Instructions: set})
	r.reloadCustom(id, cust)
	return set, nil
}

// systemPromptFor is the system prompt of the next request: the fixed prompt, then the
// project instructions. Instructions that cannot be read do not stop the turn.
func (a *conversationActor) systemPromptFor() string {
	prompt := SystemPrompt(a.conv)
	set, err := a.rt.storedInstructions(a.conv)
	if err != nil {
		a.rt.log.Warn("project instructions unavailable for this request", "conversation", a.id, "error", err)
		a.rt.publish(Notice{ConvID: a.id, Level: NoticeWarning, Text: "Project instructions were not sent: " + err.Error()})
		return prompt
	}
	if p := set.Prompt(); p != "" {
		prompt += "\n\n" + p
	}
	if p := a.skillsPrompt(); p != "" {
		prompt += "\n\n" + p
	}
	return prompt
}
