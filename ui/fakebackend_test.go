package ui

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
)

// fakeSub is an EventSource fed by the fake backend. Its channel is large enough for every
// test; publishing never blocks a test.
type fakeSub struct {
	ch   chan actors.Event
	once sync.Once
}

func (s *fakeSub) Events() <-chan actors.Event { return s.ch }
func (s *fakeSub) Close()                      { s.once.Do(func() { close(s.ch) }) }

// fakeBackend implements Backend with the real domain.Transition over in-memory
// conversations: it commits and publishes like the runtime, and the test plays the model and
// the tools by feeding events (respond, completeTool).
type fakeBackend struct {
	mu      sync.Mutex
	convs   map[string]*fakeConv
	order   []string
	blobs   map[string][]byte
	sub     *fakeSub
	closed  bool
	now     time.Time
	nextID  int
	sandbox SandboxStatus
	// sandboxGate, when set, holds Sandbox() until it is closed: a probe that takes its time.
	sandboxGate chan struct{}

	// What the window asked for.
	created     []NewConversation
	sent        []sentMsg
	spentSince  time.Time
	spendErr    error // what SpentSince says beside todaySpend
	decisions   []domain.Mode
	cancels     int
	downgrades  int
	hostAnswers map[string]actors.HostDecision
	wrapUps     int
	archived    map[string]bool
	deleted     []string
	searches    []SearchQuery
	// effects are the latest effects per conversation, for the test to act on.
	effects map[string][]domain.Effect
	// sendErr, when set, rejects the next Send.
	sendErr error
	// drafts are the stored unsent drafts, by conversation (DraftsBackend).
	drafts map[string]Draft
}

type fakeConv struct {
	conv domain.Conversation
	msgs []domain.Message
}

type sentMsg struct {
	id, text string
	images   []Attachment
}

func newFakeBackend() *fakeBackend {
	return &fakeBackend{convs: map[string]*fakeConv{}, blobs: map[string][]byte{}, sub: &fakeSub{ch: make(chan actors.Event, 1<<16)},
		now: testNow, sandbox: sandboxStatus(true, 4, ""), archived: map[string]bool{}, effects: map[string][]domain.Effect{}}
}

func (f *fakeBackend) publish(ev actors.Event) {
	if !f.closed {
		select {
		case f.sub.ch <- ev:
		default:
			panic("fake subscription is full")
		}
	}
}

// add creates a conversation directly, as if it were in the store already.
func (f *fakeBackend) add(p domain.NewConversationParams, msgs ...domain.Message) domain.Conversation {
	f.mu.Lock()
	defer f.mu.Unlock()
	if p.ID == "" {
		f.nextID++
		p.ID = fmt.Sprintf("c%03d", f.nextID)
	}
	if p.CreatedAt.IsZero() {
		p.CreatedAt = f.now
	}
	p.LandlockAvailable = f.sandbox.Available
	c, err := domain.NewConversation(p)
	if err != nil {
		panic(err)
	}
	for i := range msgs {
		msgs[i].Seq = uint64(i)
		if msgs[i].At.IsZero() {
			msgs[i].At = f.now
		}
	}
	c.NextSeq = uint64(len(msgs))
	f.convs[c.ID] = &fakeConv{conv: c, msgs: msgs}
	f.order = append(f.order, c.ID)
	return c
}

// apply runs one event through the core, commits and publishes, like a conversation actor.
func (f *fakeBackend) apply(id string, ev domain.Event) ([]domain.Effect, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.applyLocked(id, ev)
}

func (f *fakeBackend) applyLocked(id string, ev domain.Event) ([]domain.Effect, error) {
	fc := f.convs[id]
	if fc == nil {
		return nil, fmt.Errorf("conversation %s not found", id)
	}
	next, effects, err := domain.Transition(fc.conv, ev)
	if err != nil {
		return nil, err
	}
	if len(effects) == 0 {
		return nil, nil
	}
	next.UpdatedAt = f.now
	for _, e := range effects {
		if p, ok := e.(domain.Persist); ok {
			for _, m := range p.Messages {
				m.At = f.now
				fc.msgs = append(fc.msgs, m)
				f.publish(actors.MessageCommitted{ConvID: id, Message: m})
			}
		}
	}
	fc.conv = next
	f.publish(actors.StateChanged{Conv: next, At: f.now})
	for _, e := range effects {
		if r, ok := e.(domain.RequestApproval); ok {
			f.publish(actors.ApprovalRequested{ConvID: id, Exec: r.Exec, Reason: r.Reason})
		}
	}
	f.effects[id] = effects
	return effects, nil
}

// exec is the current execution of a conversation.
func (f *fakeBackend) exec(id string) domain.ExecID {
	f.mu.Lock()
	defer f.mu.Unlock()
	e, _ := domain.CurrentExec(f.convs[id].conv.State)
	return e
}

func (f *fakeBackend) state(id string) domain.State {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.convs[id].conv.State
}

func (f *fakeBackend) conversation(id string) domain.Conversation {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.convs[id].conv
}

// respond plays the model: text streamed in pieces, then the reply.
func (f *fakeBackend) respond(t testing.TB, id, text string, calls []domain.ToolCall, usage domain.Usage) {
	t.Helper()
	exec := f.exec(id)
	for _, w := range strings.SplitAfter(text, " ") {
		f.publish(actors.TextDelta{ConvID: id, Exec: exec, Text: w})
	}
	if _, err := f.apply(id, domain.LLMResponse{Exec: exec, Text: text, ToolCalls: calls, Usage: usage}); err != nil {
		t.Fatalf("respond: %v", err)
	}
}

// completeTool plays the tool that is running.
func (f *fakeBackend) completeTool(t testing.TB, id string, res domain.ToolResult) {
	t.Helper()
	st, ok := f.state(id).(domain.ToolExecuting)
	if !ok {
		t.Fatalf("no tool is running in %s: %T", id, f.state(id))
	}
	res.CallID, res.Name = st.Current.ID, st.Current.Name
	if _, err := f.apply(id, domain.ToolComplete{Exec: st.Exec, Result: res}); err != nil {
		t.Fatalf("complete tool: %v", err)
	}
}

func (f *fakeBackend) Create(_ context.Context, p NewConversation) (domain.Conversation, error) {
	if err := validDir(p.Cwd); err != nil {
		return domain.Conversation{}, fmt.Errorf("working directory: %w", err)
	}
	f.mu.Lock()
	f.created = append(f.created, p)
	f.mu.Unlock()
	c := f.add(domain.NewConversationParams{Title: p.Title, Cwd: p.Cwd, Model: p.Model, Unrestricted: p.Unrestricted, ContinuedFrom: p.ContinuedFrom})
	f.publish(actors.ConversationCreated{Conv: c})
	return c, nil
}

func (f *fakeBackend) List(_ context.Context, includeArchived bool) ([]Summary, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Summary
	for _, id := range f.order {
		c := f.convs[id].conv
		if c.IsSubAgent() || (c.Archived && !includeArchived) {
			continue
		}
		out = append(out, Summary{ID: c.ID, Title: c.Title, Cwd: c.Cwd, Model: c.Model, Mode: c.Mode, State: c.State.Kind(),
			Usage: c.Usage, ContextWindow: c.ContextWindow, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt, Archived: c.Archived, ContinuedFrom: c.ContinuedFrom})
	}
	slices.SortStableFunc(out, func(a, b Summary) int { return b.UpdatedAt.Compare(a.UpdatedAt) })
	return out, nil
}

func (f *fakeBackend) Snapshot(_ context.Context, id string) (Snapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fc := f.convs[id]
	if fc == nil {
		return Snapshot{}, fmt.Errorf("conversation %s not found", id)
	}
	return Snapshot{Conv: fc.conv, Messages: slices.Clone(fc.msgs)}, nil
}

func (f *fakeBackend) Send(_ context.Context, id, text string, images []Attachment) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.sendErr; err != nil {
		f.sendErr = nil
		return err
	}
	f.sent = append(f.sent, sentMsg{id, text, images})
	var refs []domain.ImageRef
	for _, a := range images {
		sum := sha256.Sum256(a.Data)
		sha := hex.EncodeToString(sum[:])
		f.blobs[sha] = a.Data
		cfg, _, err := image.DecodeConfig(bytes.NewReader(a.Data))
		if err != nil {
			return fmt.Errorf("image %s: %w", a.Name, err)
		}
		refs = append(refs, domain.ImageRef{SHA256: sha, MediaType: "image/png", Width: cfg.Width, Height: cfg.Height, Size: len(a.Data), Name: a.Name})
	}
	_, err := f.applyLocked(id, domain.UserMessage{Text: text, Images: refs})
	return err
}

func (f *fakeBackend) Cancel(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancels++
	_, err := f.applyLocked(id, domain.UserCancel{})
	return err
}

func (f *fakeBackend) DecideUpgrade(_ context.Context, id string, exec domain.ExecID, grant domain.Mode) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.decisions = append(f.decisions, grant)
	_, err := f.applyLocked(id, domain.ModeDecision{Exec: exec, Approve: grant != actors.DenyUpgrade, Mode: grant})
	return err
}

func (f *fakeBackend) Downgrade(_ context.Context, id string, to domain.Mode) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.downgrades++
	_, err := f.applyLocked(id, domain.UserDowngrade{To: to})
	return err
}

// AnswerHost records the answer and closes the card as the runtime does; an unknown or
// second answer is actors.ErrNoHostRequest.
func (f *fakeBackend) AnswerHost(requestID string, d actors.HostDecision) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.hostAnswers == nil {
		f.hostAnswers = map[string]actors.HostDecision{}
	}
	if _, dup := f.hostAnswers[requestID]; dup {
		return actors.ErrNoHostRequest
	}
	f.hostAnswers[requestID] = d
	conv, _, _ := strings.Cut(requestID, "/")
	f.publish(actors.HostApprovalAnswered{ConvID: conv, RequestID: requestID, Decision: d})
	return nil
}

func (f *fakeBackend) WrapUp(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.wrapUps++
	_, err := f.applyLocked(id, domain.UserTriggerContinuation{})
	return err
}

func (f *fakeBackend) ContinueInNew(ctx context.Context, id string) (domain.Conversation, string, error) {
	f.mu.Lock()
	fc := f.convs[id]
	ex, ok := fc.conv.State.(domain.ContextExhausted)
	old := fc.conv
	f.mu.Unlock()
	if !ok {
		return domain.Conversation{}, "", errors.New("the conversation is not exhausted")
	}
	c := f.add(domain.NewConversationParams{Cwd: old.Cwd, Model: old.Model, ContinuedFrom: id, Title: "Continued: " + old.Title})
	f.publish(actors.ConversationCreated{Conv: c})
	return c, ex.Summary, nil
}

func (f *fakeBackend) SetArchived(_ context.Context, id string, archived bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.archived[id] = archived
	f.convs[id].conv.Archived = archived
	return nil
}

func (f *fakeBackend) Delete(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.convs[id]; !ok {
		return fmt.Errorf("conversation %s: not found", id)
	}
	delete(f.convs, id)
	f.order = slices.DeleteFunc(f.order, func(x string) bool { return x == id })
	f.deleted = append(f.deleted, id)
	f.publish(actors.ConversationDeleted{ConvID: id})
	return nil
}

// Search finds the messages that contain the query's text, case-insensitively: the window's
// side of search, not the index's (package search has its own tests).
func (f *fakeBackend) Search(_ context.Context, q SearchQuery) (SearchResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.searches = append(f.searches, q)
	want := strings.ToLower(strings.TrimSpace(q.Text))
	limit := q.Limit
	if limit <= 0 {
		limit = 50
	}
	var res SearchResult
	for _, id := range f.order {
		fc := f.convs[id]
		if fc.conv.IsSubAgent() || (fc.conv.Archived && !q.IncludeArchived) {
			continue
		}
		inConv := 0
		for _, m := range fc.msgs {
			if !strings.Contains(strings.ToLower(m.Text), want) {
				continue
			}
			res.Matches++
			// As the index does: at most three a conversation unless every hit is asked for.
			if len(res.Hits) < limit && (inConv < 3 || q.EveryHit) {
				inConv++
				res.Hits = append(res.Hits, SearchHit{ConvID: id, Title: fc.conv.Title, Archived: fc.conv.Archived,
					Seq: m.Seq, Kind: m.Kind, Line: m.Text})
			}
		}
	}
	return res, nil
}

func (f *fakeBackend) Blob(sha string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.blobs[sha]
	if !ok {
		return nil, fmt.Errorf("blob %s not found", sha)
	}
	return b, nil
}

func (f *fakeBackend) Sandbox() SandboxStatus {
	if f.sandboxGate != nil {
		<-f.sandboxGate
	}
	return f.sandbox
}

func (f *fakeBackend) OutputLimit(model string) int { return domain.MaxOutputFor(model) }

func (f *fakeBackend) ModelLabel(model string) string {
	if model == domain.DemoModel {
		return "Demo (offline)"
	}
	return model
}
