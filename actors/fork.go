package actors

import (
	"context"
	"fmt"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
)

// Fork makes a new conversation that continues conversation id from its message seq, leaving
// id as it is (issue 27): the history up to that message (domain.Fork says exactly what),
// the same working directory and model, Restricted where the sandbox works, and the
// project's instructions, commands and skills read afresh, as for a new conversation. The
// source may be busy: every commit is atomic, so what is read is a state it was in. Images
// are shared with the source (the store counts their references); a sub-agent's results
// are copied as text, while its conversation stays the source's. Search and Delete treat
// the fork as a conversation of its own.
func (r *Runtime) Fork(ctx context.Context, id string, seq uint64) (domain.Conversation, error) {
	if err := ctx.Err(); err != nil {
		return domain.Conversation{}, err
	}
	src, msgs, err := r.cfg.Store.Load(id)
	if err != nil {
		return domain.Conversation{}, fmt.Errorf("fork %s: %w", id, err)
	}
	conv, history, err := domain.Fork(src, msgs, seq, domain.NewConversationParams{
		ID: newID(), Cwd: src.Cwd, Host: src.Host, Model: src.Model, ContextWindow: src.ContextWindow,
		LandlockAvailable: r.cfg.Sandbox.Available, Worktree: src.Worktree, CreatedAt: time.Now(),
	})
	if err != nil {
		return domain.Conversation{}, err
	}
	res, err := r.request(ctx, cmdCreate{Conv: conv, Messages: history})
	if err != nil {
		return domain.Conversation{}, err
	}
	rc := res.(replyConv)
	if rc.Err != nil {
		return rc.Conv, rc.Err
	}
	// As Create does: read on the caller's goroutine (a remote project's on its host), saved
	// before the caller learns the id.
	set, cust := r.readProject(ctx, rc.Conv.ID, src.Host, src.Cwd, false)
	if err := r.saveInstructions(rc.Conv.ID, set); err != nil {
		r.publish(Notice{ConvID: rc.Conv.ID, Level: NoticeWarning, Text: "Project instructions will not be used: " + err.Error()})
	}
	if err := r.saveCustom(rc.Conv.ID, cust); err != nil {
		r.publish(Notice{ConvID: rc.Conv.ID, Level: NoticeWarning, Text: "Commands and skills will not be used: " + err.Error()})
	}
	return rc.Conv, nil
}

// storeNew stores a new conversation for the manager, and a fork's history with it before
// its actor starts, so the actor loads it whole. A history that cannot be stored takes the
// half-made fork away again; the source was never touched.
func (r *Runtime) storeNew(msg cmdCreate) (domain.Conversation, error) {
	if len(msg.Messages) == 0 {
		return r.cfg.Store.Create(msg.Conv)
	}
	empty := msg.Conv
	empty.NextSeq, empty.Usage = 0, domain.Usage{}
	if _, err := r.cfg.Store.Create(empty); err != nil {
		return domain.Conversation{}, err
	}
	conv, _, err := r.cfg.Store.Commit(msg.Conv, msg.Messages)
	if err != nil {
		if derr := r.cfg.Store.Delete(msg.Conv.ID); derr != nil {
			r.log.Error("a fork whose history could not be stored could not be removed either", "conversation", msg.Conv.ID, "error", derr)
		}
		return domain.Conversation{}, fmt.Errorf("store the fork's history: %w", err)
	}
	if r.cfg.Search != nil {
		r.cfg.Search.Notify(conv.ID)
	}
	return conv, nil
}
