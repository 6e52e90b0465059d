package ui

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
)

// testNow is the fixed clock of the UI tests, so that times and images are reproducible.
var testNow = time.Date(2025, 3, 14, 15, 9, 26, 0, time.Local)

// queue stands in for fyne.Do in tests: functions meant for the UI goroutine wait here until
// the test goroutine runs them, so the test goroutine is the only one that touches widgets.
type queue struct {
	mu     sync.Mutex
	fns    []func()
	signal chan struct{}
}

func newQueue() *queue { return &queue{signal: make(chan struct{}, 1)} }

func (q *queue) push(f func()) {
	q.mu.Lock()
	q.fns = append(q.fns, f)
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

// drain runs queued functions until none is left.
func (q *queue) drain() {
	for {
		q.mu.Lock()
		fns := q.fns
		q.fns = nil
		q.mu.Unlock()
		if len(fns) == 0 {
			return
		}
		for _, f := range fns {
			f()
		}
	}
}

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

	// What the window asked for.
	created     []NewConversation
	sent        []sentMsg
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
	var res SearchResult
	for _, id := range f.order {
		fc := f.convs[id]
		if fc.conv.IsSubAgent() || (fc.conv.Archived && !q.IncludeArchived) {
			continue
		}
		for _, m := range fc.msgs {
			if strings.Contains(strings.ToLower(m.Text), want) {
				res.Hits = append(res.Hits, SearchHit{ConvID: id, Title: fc.conv.Title, Archived: fc.conv.Archived,
					Seq: m.Seq, Kind: m.Kind, Line: m.Text})
			}
		}
	}
	res.Matches = len(res.Hits)
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

func (f *fakeBackend) Sandbox() SandboxStatus { return f.sandbox }

func (f *fakeBackend) OutputLimit(model string) int { return domain.MaxOutputFor(model) }

func (f *fakeBackend) ModelLabel(model string) string {
	if model == domain.DemoModel {
		return "Demo (offline)"
	}
	return model
}

// harness is a main window on Fyne's headless test driver with a fake backend.
type harness struct {
	t    testing.TB
	app  fyne.App
	f    *fakeBackend
	q    *queue
	m    *MainWindow
	deps Deps
}

func newHarness(t testing.TB, setup func(f *fakeBackend, d *Deps)) *harness {
	t.Helper()
	f := newFakeBackend()
	h := &harness{t: t, f: f, q: newQueue()}
	h.deps = Deps{Do: h.q.push, Now: func() time.Time { return testNow }}
	if setup != nil {
		setup(f, &h.deps)
	}
	h.start(f, f.sub)
	t.Cleanup(func() {
		f.mu.Lock()
		f.closed = true
		f.mu.Unlock()
	})
	return h
}

// start opens the main window on a backend and waits for the conversation list.
func (h *harness) start(b Backend, events EventSource) {
	h.t.Helper()
	h.app = test.NewTempApp(h.t)
	h.app.Settings().SetTheme(fixedVariant{theme.DefaultTheme(), theme.VariantLight})
	h.m = NewMainWindow(h.app, b, events, h.deps)
	h.m.win.Resize(fyne.NewSize(1100, 720))
	h.t.Cleanup(func() {
		h.m.win.Close()
		h.q.drain()
	})
	h.waitFor("the conversation list", func() bool { return h.m.listLoaded })
}

// waitFor runs queued UI work until cond holds, or fails the test after a deadline.
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		h.q.drain()
		if cond() {
			return
		}
		select {
		case <-h.q.signal:
		case <-time.After(20 * time.Millisecond):
			// Background goroutines (the pump, commands) push work; poll briefly for it.
		case <-deadline.C:
			h.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// settle runs UI work until nothing has arrived for a short while (the pump's delta timer
// included).
func (h *harness) settle() {
	h.t.Helper()
	quiet := 0
	for quiet < 3 {
		h.q.drain()
		select {
		case <-h.q.signal:
			quiet = 0
		case <-time.After(2 * deltaInterval):
			quiet++
		}
	}
}

// open opens a conversation as a click in the sidebar would, and waits for its history.
func (h *harness) open(id string) {
	h.t.Helper()
	h.waitFor("conversation "+id+" in the sidebar", func() bool { return slices.ContainsFunc(h.m.side, func(cs *convState) bool { return cs.id == id }) })
	i := slices.IndexFunc(h.m.side, func(cs *convState) bool { return cs.id == id })
	h.m.sideList.Select(i)
	h.waitFor("conversation "+id+" to load", func() bool { return h.m.current != nil && h.m.current.id == id && h.m.current.loaded })
	h.settle()
}

// rows returns the kinds of the open conversation's rows.
func (h *harness) rows() []*row {
	var out []*row
	for i := 0; i < h.m.current.model.len(); i++ {
		out = append(out, h.m.current.model.at(i))
	}
	return out
}

func (h *harness) lastRow() *row {
	n := h.m.current.model.len()
	if n == 0 {
		return nil
	}
	return h.m.current.model.at(n - 1)
}

// visibleRowViews returns the row widgets the chat list shows now.
func (h *harness) visibleRowViews() []*rowView {
	var out []*rowView
	walk(h.m.cv.list, func(o fyne.CanvasObject) {
		if v, ok := o.(*rowView); ok && v.Visible() && v.bound != nil {
			out = append(out, v)
		}
	})
	return out
}

// walk visits the rendered object tree under o.
func walk(o fyne.CanvasObject, f func(fyne.CanvasObject)) {
	f(o)
	switch x := o.(type) {
	case *fyne.Container:
		for _, c := range x.Objects {
			walk(c, f)
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(x).Objects() {
			walk(c, f)
		}
	}
}

// typeAndSend types into the composer and presses Enter.
func (h *harness) typeAndSend(text string) {
	h.m.win.Canvas().Focus(h.m.entry)
	test.Type(h.m.entry, text)
	h.m.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
}

// pngFile writes a small PNG of one colour and returns its URI.
func pngFile(t testing.TB, dir, name string, w, h int, c color.Color) fyne.URI {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return fileURI(p)
}

func pngBytes(t testing.TB, w, h int, c color.Color) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func fileURI(p string) fyne.URI { return storage.NewFileURI(p) }

// fixedVariant is a theme that always draws one variant, for reproducible images.
type fixedVariant struct {
	fyne.Theme
	v fyne.ThemeVariant
}

func (f fixedVariant) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return f.Theme.Color(n, f.v)
}

func themeVariant(v uint) fyne.ThemeVariant { return fyne.ThemeVariant(v) }

// sandboxStatus is a sandbox report with the given availability, Landlock ABI and reason, and
// one layer, so that the badge's details have something to show.
func sandboxStatus(available bool, abi int, reason string) SandboxStatus {
	var s SandboxStatus
	s.Available, s.ABI, s.Reason = available, abi, reason
	s.Layers = append(s.Layers, actors.SandboxLayer{Name: "Landlock", Active: available, Detail: fmt.Sprintf("ABI %d", abi)})
	return s
}
