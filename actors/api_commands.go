package actors

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/imaging"
	"github.com/phoenix-desktop/phoenix/llm"
	"github.com/phoenix-desktop/phoenix/persistence"
	"github.com/phoenix-desktop/phoenix/providers"
)

// NewConversation are the choices of the New conversation dialog.
type NewConversation struct {
	Cwd, Model, Title string
	// Mode is the mode to start in (only a person's choice, REQ-BED-014); empty means
	// Restricted.
	Mode domain.Mode
	// Unrestricted is the older way to say Mode: domain.ModeUnrestricted.
	Unrestricted bool
	// ContinuedFrom links to an exhausted conversation (REQ-BED-021).
	ContinuedFrom string
	// ContextWindow overrides the model table when positive.
	ContextWindow int
	// NoInstructions starts without the project's AGENTS.md (Reload instructions turns them
	// on again).
	NoInstructions bool
	// Host is the SSH host of a project on another machine, Cwd a path there; it needs
	// Config.Remote. The project's instructions, commands and skills are read there (its
	// hooks are not run yet).
	Host string
	// Worktree makes the conversation a git worktree of Cwd's repository of its own, on a
	// new branch named after Title (or WorktreeName when there is no title yet), and works
	// there (issue 34).
	Worktree     bool
	WorktreeName string
	// InWorktree is the worktree Cwd lies in already: a continuation goes on in its
	// conversation's worktree, and can merge it.
	InWorktree *domain.Worktree
}

// ErrNotDirectory rejects a working directory that is missing or not a directory.
var ErrNotDirectory = errors.New("working directory is not an existing directory")

// Create makes a new conversation with a fixed working directory (REQ-BED-010).
func (r *Runtime) Create(ctx context.Context, p NewConversation) (domain.Conversation, error) {
	if p.Cwd == "" {
		return domain.Conversation{}, fmt.Errorf("create conversation: choose a working directory: %w", ErrNotDirectory)
	}
	p.Host = r.continuedHost(p)
	if p.Host != "" && p.Worktree {
		return domain.Conversation{}, errors.New("create conversation: a worktree of a project on another machine is not supported yet: start it in the folder itself, or make the worktree there with git and open its folder")
	}
	if p.Host != "" {
		if err := r.checkRemote(p.Host, p.Cwd); err != nil {
			return domain.Conversation{}, err
		}
	} else if info, err := os.Stat(p.Cwd); err != nil || !info.IsDir() {
		return domain.Conversation{}, fmt.Errorf("create conversation in %s: %w", p.Cwd, ErrNotDirectory)
	}
	model := strings.TrimSpace(p.Model)
	if model == "" {
		model = r.cfg.DefaultModel
	}
	if model == "" {
		return domain.Conversation{}, fmt.Errorf("create conversation: no model is chosen: pick one (or set %s, or pass --model)", providers.EnvModel)
	}
	params := domain.NewConversationParams{
		ID: newID(), Title: p.Title, Cwd: p.Cwd, Host: p.Host, Model: model, ContextWindow: p.ContextWindow,
		LandlockAvailable: r.cfg.Sandbox.Available, Mode: p.Mode, Unrestricted: p.Unrestricted,
		ContinuedFrom: p.ContinuedFrom, Worktree: p.InWorktree, CreatedAt: time.Now(),
	}
	if _, err := domain.NewConversation(params); err != nil {
		return domain.Conversation{}, fmt.Errorf("create conversation: %w", err)
	}
	if p.Worktree {
		wt, cwd, err := r.makeWorktree(ctx, p)
		if err != nil {
			return domain.Conversation{}, err
		}
		params.Cwd, params.Worktree = cwd, wt
		p.Cwd = cwd
	}
	conv, err := domain.NewConversation(params)
	if err != nil {
		return domain.Conversation{}, fmt.Errorf("create conversation: %w", err)
	}
	res, err := r.request(ctx, cmdCreate{Conv: conv})
	if err != nil {
		r.dropWorktree(conv.Worktree)
		return domain.Conversation{}, err
	}
	rc := res.(replyConv)
	if rc.Err != nil {
		r.dropWorktree(conv.Worktree)
		return rc.Conv, rc.Err
	}
	// The instructions are read here, on the caller's goroutine (never in a mailbox), and
	// saved before the caller learns the id, so before anything can be sent.
	// A remote project's files are read on its host, the person's own here (readProject).
	set, cust := r.readProject(ctx, rc.Conv.ID, p.Host, p.Cwd, p.NoInstructions)
	if err := r.saveInstructions(rc.Conv.ID, set); err != nil {
		r.publish(Notice{ConvID: rc.Conv.ID, Level: NoticeWarning, Text: "Project instructions will not be used: " + err.Error()})
	}
	// Commands and skills likewise, fixed for the conversation until a reload.
	if err := r.saveCustom(rc.Conv.ID, cust); err != nil {
		r.publish(Notice{ConvID: rc.Conv.ID, Level: NoticeWarning, Text: "Commands and skills will not be used: " + err.Error()})
	}
	// The checkpoint repository is warmed when the first model request goes out
	// (warmCheckpointsFor), not here: a conversation that never runs a tool needs none.
	return rc.Conv, nil
}

// List returns the user's conversations, newest first, without their messages.
func (r *Runtime) List(ctx context.Context, includeArchived bool) ([]Summary, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	list, err := r.cfg.Store.List(includeArchived)
	if errors.Is(err, persistence.ErrCorrupt) {
		// The store returns every record that decodes; the unreadable ones are reported,
		// not allowed to hide the rest.
		r.log.Error("some conversations could not be read", "error", err)
		r.publish(Notice{Level: NoticeError, Text: "Some conversations could not be read and are not listed: " + err.Error()})
		return list, nil
	}
	return list, err
}

// DiskSpace is nil while the store can write, else an error matching persistence.ErrDiskFull
// whose Banner method says how much to free. The window's banner and the CLI show it; a
// conversation a full disk interrupted comes to rest by itself once it is nil again.
func (r *Runtime) DiskSpace() error { return r.cfg.Store.Space() }

// Snapshot is everything a UI needs to show a conversation it connects to (REQ-BED-011).
type Snapshot struct {
	Conv      domain.Conversation
	Messages  []domain.Message
	SubAgents []domain.Conversation
}

// Snapshot reads a conversation (a user's or a sub-agent's) from the store. Every commit is
// atomic, so the snapshot is always a state the conversation was in; subscribe before taking
// it and skip events with a sequence number already in the snapshot.
func (r *Runtime) Snapshot(ctx context.Context, id string) (Snapshot, error) {
	if err := ctx.Err(); err != nil {
		return Snapshot{}, err
	}
	conv, msgs, err := r.cfg.Store.Load(id)
	if err != nil {
		return Snapshot{}, fmt.Errorf("open conversation %s: %w", id, err)
	}
	subs, err := r.cfg.Store.Children(id)
	if errors.Is(err, persistence.ErrCorrupt) {
		r.log.Error("some sub-agents could not be read", "conversation", id, "error", err)
	} else if err != nil {
		return Snapshot{}, fmt.Errorf("open sub-agents of %s: %w", id, err)
	}
	return Snapshot{Conv: conv, Messages: msgs, SubAgents: subs}, nil
}

// Conversation reads a conversation's record (its state, mode, model, usage) without its
// messages: what a caller that only needs to know where a conversation stands reads, so that
// asking does not load and decode its whole history (chat --continue asked twice a turn
// through Snapshot, issue 43: the window soak's turns).
func (r *Runtime) Conversation(ctx context.Context, id string) (domain.Conversation, error) {
	if err := ctx.Err(); err != nil {
		return domain.Conversation{}, err
	}
	conv, err := r.cfg.Store.Get(id)
	if err != nil {
		return domain.Conversation{}, fmt.Errorf("open conversation %s: %w", id, err)
	}
	return conv, nil
}

// Attachment is an image the person attached: raw bytes as read from the file.
type Attachment struct {
	Name string
	Data []byte
}

// Send delivers a user message (REQ-BED-002, REQ-BED-013). Images are validated, downscaled
// and stored before the message is; Send returns once the message is committed, or with the
// reason it was rejected (domain.ErrAgentBusy, ErrContextExhausted, ErrEmptyMessage, or an
// image error naming the file).
func (r *Runtime) Send(ctx context.Context, id, text string, images []Attachment) error {
	return r.send(ctx, id, text, images, TurnOptions{})
}

// send is Send with a command's options for the turn (SendCommand, commandturn.go).
func (r *Runtime) send(ctx context.Context, id, text string, images []Attachment, opt TurnOptions) error {
	text, err := r.promptHooks(ctx, id, text)
	if err != nil {
		return err
	}
	model := ""
	if len(images) > 0 || opt.Model != "" {
		conv, err := r.cfg.Store.Get(id)
		if err != nil {
			return fmt.Errorf("send to conversation %s: %w", id, err)
		}
		// A busy conversation refuses the message anyway: its provider is not asked.
		if opt.Model != "" && !domain.Busy(conv.State) {
			model = r.turnModel(ctx, conv, opt, text, len(images))
		}
		if model == "" {
			model = conv.Model
		}
	}
	refs := make([]domain.ImageRef, 0, len(images))
	if len(images) > 0 {
		// REQ-BED-013: a model that cannot see images gets none; say so before anything
		// is stored, so the person can remove them and send the text.
		if !llm.SupportsVision(model) {
			return noVisionError(model)
		}
		for _, img := range images {
			ref, err := r.storeImage(img, r.imageLimits(model))
			if err != nil {
				return err
			}
			refs = append(refs, ref)
		}
	}
	return r.event(ctx, id, domain.UserMessage{Text: text, Images: refs, Model: model, Title: opt.Title})
}

// imageLimits are the configured limits, or else those of the model.
func (r *Runtime) imageLimits(model string) imaging.Limits {
	if r.cfg.ImageLimits != (imaging.Limits{}) {
		return r.cfg.ImageLimits
	}
	return imaging.LimitsForModel(model)
}

func (r *Runtime) storeImage(img Attachment, limits imaging.Limits) (domain.ImageRef, error) {
	prepared, err := imaging.Prepare(img.Data, limits)
	if err != nil {
		return domain.ImageRef{}, fmt.Errorf("image %q: %w", img.Name, err)
	}
	if _, err := r.cfg.Store.PutBlob(prepared.Data); err != nil {
		return domain.ImageRef{}, fmt.Errorf("save image %q: %w", img.Name, err)
	}
	return prepared.Ref(img.Name), nil
}

// Cancel stops whatever the agent is doing (REQ-BED-005), ahead of any result already queued
// for the conversation (see stopGate). It answers domain.ErrNothingToStop when the agent is at
// rest, and ErrAlreadyStopping while an earlier Stop is still being handled.
func (r *Runtime) Cancel(ctx context.Context, id string) error {
	g := r.gate(id)
	if !g.begin() {
		return ErrAlreadyStopping
	}
	defer g.end()
	res, err := r.request(ctx, cmdStop{ID: id})
	if err != nil {
		return err
	}
	return res.(reply).Err
}

// DenyUpgrade is the grant of DecideUpgrade that denies the request.
const DenyUpgrade domain.Mode = ""

// DecideUpgrade answers a mode upgrade request (REQ-BED-015): grant is the mode the person
// allowed — domain.ModeProject ("Allow edits in this project") or domain.ModeUnrestricted
// ("Allow everything") — or DenyUpgrade.
func (r *Runtime) DecideUpgrade(ctx context.Context, id string, exec domain.ExecID, grant domain.Mode) error {
	approve := grant != DenyUpgrade
	if err := r.event(ctx, id, domain.ModeDecision{Exec: exec, Approve: approve, Mode: grant}); err != nil {
		return err
	}
	if approve {
		r.warmCheckpoints(id)
	}
	return nil
}

// Downgrade switches to a lower mode at once (REQ-BED-016): to domain.ModeRestricted (or
// empty) from any mode, to domain.ModeProject from Unrestricted. A running bash command or
// MCP call is stopped.
func (r *Runtime) Downgrade(ctx context.Context, id string, to domain.Mode) error {
	return r.event(ctx, id, domain.UserDowngrade{To: to})
}

// WrapUp starts a manual continuation (REQ-BED-023).
func (r *Runtime) WrapUp(ctx context.Context, id string) error {
	return r.event(ctx, id, domain.UserTriggerContinuation{})
}

// ContinueInNew creates a conversation linked to an exhausted one, with the same working
// directory, model and window, and returns it with the summary to seed its draft
// (REQ-BED-021).
func (r *Runtime) ContinueInNew(ctx context.Context, id string) (domain.Conversation, string, error) {
	old, err := r.cfg.Store.Get(id)
	if err != nil {
		return domain.Conversation{}, "", fmt.Errorf("continue %s: %w", id, err)
	}
	summary := ""
	if st, ok := old.State.(domain.ContextExhausted); ok {
		summary = st.Summary
	}
	conv, err := r.Create(ctx, NewConversation{
		// The new conversation starts Restricted like any other (REQ-BED-014): an upgrade
		// approved for the old one is not carried over.
		Cwd: old.Cwd, Model: old.Model, Title: "Continued: " + old.Title, ContinuedFrom: old.ID, InWorktree: old.Worktree,
		ContextWindow: old.ContextWindow,
	})
	if err != nil {
		return domain.Conversation{}, "", err
	}
	seed := ""
	if summary != "" {
		seed = "Continuing from an earlier conversation. Its summary:\n\n" + summary
	}
	return conv, seed, nil
}

// SetArchived hides a conversation from the list, or shows it again.
func (r *Runtime) SetArchived(ctx context.Context, id string, archived bool) error {
	res, err := r.request(ctx, cmdArchive{ID: id, Archived: archived})
	if err != nil {
		return err
	}
	return res.(reply).Err
}

// ErrNoSearch says this runtime was started without a search index.
var ErrNoSearch = errors.New("search is not available: the search index did not open (see the log)")

// Search finds messages across every conversation (package search).
func (r *Runtime) Search(ctx context.Context, q SearchQuery) (SearchResult, error) {
	if err := ctx.Err(); err != nil {
		return SearchResult{}, err
	}
	if r.cfg.Search == nil {
		return SearchResult{}, ErrNoSearch
	}
	return r.cfg.Search.Search(q)
}

// Delete removes a conversation the person started, for good: a running one is stopped first
// (its model request aborted, its tool killed, its sub-agents stopped), then its messages,
// sub-agents, images no other conversation uses and search entries go. A ConversationDeleted
// event follows.
func (r *Runtime) Delete(ctx context.Context, id string) error {
	res, err := r.request(ctx, cmdDelete{ID: id})
	if err != nil {
		return err
	}
	if res.(reply).Err == nil {
		r.sessionEndHooks(id, "clear")
	}
	return res.(reply).Err
}

// Resident counts the conversation actors in memory (see Passivation).
func (r *Runtime) Resident(ctx context.Context) (int, error) {
	res, err := r.request(ctx, cmdResident{})
	if err != nil {
		return 0, err
	}
	return res.(int), nil
}

// Blob returns stored image bytes, for thumbnails.
func (r *Runtime) Blob(sha string) ([]byte, error) { return r.cfg.Store.Blob(sha) }

// ErrStopped rejects commands after Shutdown.
var ErrStopped = errors.New("the agent runtime has stopped")

func (r *Runtime) event(ctx context.Context, id string, ev domain.Event) error {
	res, err := r.request(ctx, cmdEvent{ID: id, Event: ev})
	if err != nil {
		return err
	}
	return res.(reply).Err
}

func (r *Runtime) request(ctx context.Context, msg any) (any, error) {
	if r.stopped.Load() {
		return nil, ErrStopped
	}
	timeout := r.cfg.RequestTimeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = time.Until(dl)
	}
	if timeout <= 0 {
		return nil, context.DeadlineExceeded
	}
	res, err := r.system.Root.RequestFuture(r.manager, msg, timeout).Result()
	if err != nil {
		return nil, fmt.Errorf("the agent did not answer in %s: %w", timeout.Round(time.Millisecond), err)
	}
	return res, nil
}
