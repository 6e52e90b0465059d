package actors

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/eventstream"

	"github.com/phoenix-desktop/phoenix/custom"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/imaging"
	"github.com/phoenix-desktop/phoenix/llm"
	"github.com/phoenix-desktop/phoenix/lsp"
	"github.com/phoenix-desktop/phoenix/mcp"
	"github.com/phoenix-desktop/phoenix/persistence"
	"github.com/phoenix-desktop/phoenix/sandbox"
	"github.com/phoenix-desktop/phoenix/search"
	"github.com/phoenix-desktop/phoenix/tools"
)

// Store is what the runtime needs of the persistence layer.
type Store interface {
	Create(c domain.Conversation) (domain.Conversation, error)
	Commit(c domain.Conversation, msgs []domain.Message) (domain.Conversation, []domain.Message, error)
	Get(id string) (domain.Conversation, error)
	Load(id string) (domain.Conversation, []domain.Message, error)
	// Message reads one message (the one a Rewind's notice names) without the history.
	Message(id string, seq uint64) (domain.Message, error)
	List(includeArchived bool) ([]persistence.Summary, error)
	Children(parentID string) ([]domain.Conversation, error)
	PutBlob(data []byte) (string, error)
	Blob(sha string) ([]byte, error)
	SetArchived(id string, archived bool) error
	// Delete removes a conversation with everything that belongs to it (persistence.Store's
	// single delete path: messages, sub-agents, unshared images and whatever else is kept
	// per conversation).
	Delete(id string) error
	Recover() (persistence.RecoveryReport, error)
	// Auxiliary records and files of a conversation (instructions, queue, checkpoints),
	// removed with it by the store's Delete.
	PutAux(id, name string, value []byte) error
	// PutAuxUnflushed is PutAux without the flush to disk, for records that hold none of
	// the person's words (checkpoints).
	PutAuxUnflushed(id, name string, value []byte) error
	Aux(id, name string) ([]byte, error)
	AuxList(id, prefix string) ([]persistence.AuxItem, error)
	DeleteAux(id, name string) error
	FilesDir(id string) string
	// Dir is the data directory ("" in memory): a conversation's checkpoints never take it
	// in when the conversation works in a folder that holds it.
	Dir() string
	// Space is nil while the store can write, else the persistence.DiskFullError a write
	// would get (the disk is full; everything stays readable).
	Space() error
}

// Searcher is the search index (package search) as the runtime uses it: told of every commit
// after it happened, never on its path.
type Searcher interface {
	// Notify must return at once: it is called on the committing actor's goroutine.
	Notify(convID string)
	Remove(convID string) error
	Search(q search.Query) (search.Result, error)
}

// Search types, for the UI and the CLI.
type (
	SearchQuery  = search.Query
	SearchResult = search.Result
	SearchHit    = search.Hit
)

// LLMClient streams one model request.
type LLMClient interface {
	Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error)
}

// ToolRunner runs one tool call.
type ToolRunner interface {
	Run(ctx context.Context, env tools.Env, call domain.ToolCall) tools.Output
}

// Summary is one row of the conversation list.
type Summary = persistence.Summary

// SandboxStatus says whether Restricted mode can be enforced here, and which layers of the
// sandbox this machine has (sandbox.Describe).
type SandboxStatus = sandbox.Layers

// ProjectSummary is what Project mode means in plain words, with how many hosts the person
// allowed for the project (the sandbox words it; the window shows it in the badge).
func ProjectSummary(hosts int) string { return sandbox.ProjectSummary(hosts) }

// SandboxLayer is one layer of the sandbox in a SandboxStatus.
type SandboxLayer = sandbox.Layer

// Config wires the runtime to its collaborators.
type Config struct {
	Store Store
	LLM   LLMClient
	Tools ToolRunner
	// Remote runs the tools of conversations on other machines (remote.go); nil refuses them.
	Remote RemoteRunner
	// Sandbox is sandbox.Describe(); left empty, the runtime describes the sandbox on the
	// first Sandbox call, so that starting needs no supervisor (see Runtime.Sandbox).
	Sandbox SandboxStatus
	Logger  *slog.Logger
	// SubAgentDeadline overrides domain.DefaultSubAgentDeadline when positive.
	SubAgentDeadline time.Duration
	// ImageLimits bounds attached images and read_image results; zero means the limits of
	// each conversation's model (imaging.LimitsForModel).
	ImageLimits imaging.Limits
	// DefaultModel is used by Create when no model is given; with neither, Create fails.
	DefaultModel string
	// TempRoot holds the conversations' private temp dirs (the only place a Restricted
	// command may write). The runtime owns it: Start empties it, which sweeps what a crash
	// left, so it must belong to this runtime alone — a directory inside the locked data
	// directory. Empty means the system temp dir, where each dir is removed when its
	// conversation's actor stops but a crash leaves it behind.
	TempRoot string
	// SpaceCheck refuses a write beside the store (checkpoint repositories, temp dirs)
	// while the disk is short; nil means persistence.CheckSpace. Tests stand a full disk
	// here.
	SpaceCheck func(dir string, need int64) error
	// InstructionsDir holds the person's own AGENTS.md (instructions.ConfigDir); empty
	// means none.
	InstructionsDir string
	// PersonalDirs are the person's directories read for commands and skills
	// (custom.PersonalDirs); Hooks runs hooks, nil for none.
	PersonalDirs []string
	Hooks        *custom.Hooks
	// HiddenPathsFile keeps the person's own entries of the sandbox's secrets table
	// (secrets.go); empty means Settings cannot change them.
	HiddenPathsFile string
	// RequestTimeout bounds a command's round trip through the actors when the caller's
	// context has no deadline.
	RequestTimeout time.Duration
	// OutputLimits sets the most tokens one reply may have, by model name, where the model
	// table's value (domain.MaxOutputFor) does not suit: a provider that allows more, or a
	// local server that allows less.
	OutputLimits map[string]int
	// Prices are the person's prices per model (lower-case name), over the table's
	// (domain.PriceFor); a response the provider reported no cost for is priced with them
	// (issue 27).
	Prices map[string]domain.Price

	// Search is the search index, told of every committed message; nil means no search.
	Search Searcher
	// Passivation bounds the conversation actors kept in memory; the zero value is
	// DefaultPassivation.
	Passivation Passivation
	// OnAllRested, when set, is called on a goroutine of its own once the last conversation
	// in memory has been unloaded (at the idle check after that, when its actor has
	// stopped): the app gives back to the system the memory the conversations freed
	// (debug.FreeOSMemory), which Go's runtime would otherwise keep for the next turns.
	OnAllRested func()
	// passivated, when set (by this package's tests), is called with each passivated id.
	passivated func(id string)
	// checkpointsUnwatched, when set (by this package's tests), is called when a stopping
	// conversation actor has turned its checkpoint change detector off.
	checkpointsUnwatched func(id string)
	// checkpointCompleting and checkpointWaited, when set (by this package's tests), are
	// called when a call's checkpoint starts completing after its result was sent, and when
	// a later checkpoint has to wait for one still completing.
	checkpointCompleting func(id string)
	checkpointWaited     func(id string)
	// MCP holds the MCP servers conversations use; nil means none (--no-mcp).
	MCP *mcp.Hub
	// LSP configures the language servers each conversation starts as it edits; nil means
	// none (lsp.go).
	LSP *lsp.Options
	// HostProxy is the network proxy of Project mode; nil means Project-mode commands have
	// no network at all. When it also implements HostRules, Settings shows and edits the
	// allowed hosts through the runtime.
	HostProxy HostProxy

	// mailbox replaces the conversation actors' mailbox when set. Only tests in this package
	// set it, to see when a message is queued and so hold results in a mailbox on purpose
	// (the Stop-first tests); the runtime itself always uses protoactor's default.
	mailbox actor.MailboxProducer
}

// Runtime is the command API the UI and the CLI use, and the owner of the actor system.
// spaceCheck is SpaceCheck or its default.
func (c Config) spaceCheck(dir string, need int64) error {
	if c.SpaceCheck != nil {
		return c.SpaceCheck(dir, need)
	}
	return persistence.CheckSpace(dir, need)
}

type Runtime struct {
	cfg     Config
	log     *slog.Logger
	system  *actor.ActorSystem
	manager *actor.PID
	llm     atomic.Pointer[llmHolder]
	// opts are the reply limits and reasoning efforts by model (modeloptions.go).
	opts    atomic.Pointer[modelOptions]
	stopped atomic.Bool
	stopMu  sync.Mutex
	ckpts   checkpointRepos
	// bg counts background work that is no actor's (warming a checkpoint repository);
	// Shutdown cancels bgCtx and waits for it.
	bg     sync.WaitGroup
	bgCtx  context.Context
	bgStop context.CancelFunc
	// bgMu guards bgWaited, set once Shutdown waits for bg: work that finds it set is
	// not counted (bgAdd). Not stopMu, which Shutdown holds while it waits.
	bgMu     sync.Mutex
	bgWaited bool
	// indexSub feeds the search index; nil without one.
	indexSub *eventstream.Subscription
	// background counts the work the manager started off its goroutine (a delete's store and
	// index removal); Shutdown waits for it, so its reply and event are not lost and it never
	// meets a closed store or index.
	background sync.WaitGroup
	// gates holds each conversation's stopGate (id → *stopGate), shared by Cancel and the
	// conversation's actor.
	gates sync.Map
	// mcpc holds the MCP requests waiting for the person and each conversation's servers
	// (mcpask.go).
	mcpc mcpConvs
	// restoreHook, when set, runs in ApplyRestore after the actor granted the restore and
	// before git writes the tree. Only tests in this package set it, to hold a restore half
	// way.
	restoreHook func()
	// hosts holds the host cards waiting for the person (AskHost).
	hosts hostAsks
	// sandboxFull is the whole sandbox description (sandbox.Describe), worked out on the
	// first Sandbox call when Config.Sandbox was left empty: describing it starts a
	// supervisor to try the mount view and runs setpriv, which a turn that runs no command
	// must not wait for.
	sandboxOnce sync.Once
	sandboxFull SandboxStatus
	sandboxLazy bool
	// lspSets holds each conversation's language servers (id → *lsp.Set) while it lives,
	// for the header's details (LanguageServers).
	lspSets sync.Map
	// hookGuards holds a *sync.Mutex per root conversation, serialising its hook baseline's
	// read-modify-write (hookguard.go).
	hookGuards sync.Map
	// hookBaselined holds the conversations (by id) whose hook baseline is known to be
	// recorded: after the first write it never changes, so later calls skip the store.
	hookBaselined sync.Map
	// sessions holds the conversations whose hook session started in this process (id →
	// hookSession: its host and folder): SessionStart ran before their first message, SessionEnd runs
	// when they are deleted or the app closes.
	sessions sync.Map
	// remoteHookState holds, by custom.ApprovalKey, what a remote project's hook files held
	// when last read there (hooks_remote.go): an event asks the host only while they may run.
	remoteHookState sync.Map
	// hookRuns counts the turn-end and approval hooks running (goHooks), which Shutdown
	// lets finish.
	hookRuns sync.WaitGroup
	// warm runs the conversations' mailboxes and their workers' calls on goroutines that
	// stay for the next (warm.go); Shutdown stops it last.
	warm *warmGoroutines
}

// gate returns the stop gate of a conversation, creating it on first use.
func (r *Runtime) gate(id string) *stopGate {
	if g, ok := r.gates.Load(id); ok {
		return g.(*stopGate)
	}
	g, _ := r.gates.LoadOrStore(id, newStopGate())
	return g.(*stopGate)
}

// OutputLimit is the most tokens one reply of the model may have: the configured limit
// (Config.OutputLimits, then SetModelOptions), or the model table's (issue 13). It is sent with every request and shown to the person.
func (r *Runtime) OutputLimit(model string) int {
	if n := r.options().limits[strings.ToLower(strings.TrimSpace(model))]; n > 0 {
		return n
	}
	return domain.MaxOutputFor(model)
}

type llmHolder struct{ client LLMClient }

// Recover runs restart recovery on a store no runtime runs (REQ-BED-007): every conversation
// a stopped app left busy is brought to rest, with the notice that its turn was not answered,
// and its queue is held. Start calls it; so do the commands that read the store without a
// runtime (list, show, export), so that they never show a stopped turn as running.
func Recover(s Store, log *slog.Logger) error {
	report, err := s.Recover()
	if err != nil {
		return fmt.Errorf("restart recovery: %w", err)
	}
	for id, ferr := range report.Failed {
		log.Error("restart recovery failed for a conversation; it stays as stored", "conversation", id, "error", ferr)
	}
	holdQueuesAfterRecovery(s, report.Recovered, log)
	return nil
}

// Start opens the runtime: it runs restart recovery on the store (REQ-BED-007), then starts
// the actor system and the manager. Conversations are restored lazily, on first use.
func Start(cfg Config) (*Runtime, error) {
	if cfg.Store == nil || cfg.LLM == nil || cfg.Tools == nil {
		return nil, errors.New("start runtime: store, LLM client and tool runner are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = 30 * time.Second
	}
	if cfg.TempRoot != "" {
		if err := os.RemoveAll(cfg.TempRoot); err != nil {
			return nil, fmt.Errorf("start runtime: clear the temp dirs a previous run left in %s: %w", cfg.TempRoot, err)
		}
		if err := os.MkdirAll(cfg.TempRoot, 0o700); err != nil {
			if cfg.spaceCheck(filepath.Dir(cfg.TempRoot), 0) == nil {
				return nil, fmt.Errorf("start runtime: create %s for sandboxed commands: %w", cfg.TempRoot, err)
			}
			// A full disk is no reason not to start: everything stays readable, and the
			// temp dirs are made when a command needs one (toolEnv).
			cfg.Logger.Warn("the disk is full: the temp dirs of sandboxed commands are made once there is room", "dir", cfg.TempRoot, "error", err)
		}
	}
	if err := Recover(cfg.Store, cfg.Logger); err != nil {
		return nil, fmt.Errorf("start runtime: %w", err)
	}
	r := &Runtime{cfg: cfg, log: cfg.Logger, warm: newWarmGoroutines(warmIdle)}
	r.opts.Store(&modelOptions{limits: lowerKeys(cfg.OutputLimits)})
	if cfg.Sandbox.Summary == "" {
		// Left empty: the runtime itself needs only whether Landlock works (one system
		// call); the whole description waits for the first Sandbox call.
		r.cfg.Sandbox = SandboxStatus{Status: sandbox.Probe()}
		r.sandboxLazy = true
	}
	r.bgCtx, r.bgStop = context.WithCancel(context.Background())
	r.llm.Store(&llmHolder{client: cfg.LLM})
	// protoactor's logger is routed to ours, one level quieter: its info lines are noise to
	// a desktop user.
	actorLog := cfg.Logger.With("component", "protoactor")
	r.system = actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(levelFilter{actorLog.Handler(), slog.LevelWarn})
	}),
		// Late results of stopped workers become dead letters by design (the stale gate has
		// already moved on). protoactor throttles their logging with a timer goroutine per
		// period; a short period lets that goroutine end promptly after shutdown.
		actor.WithDeadLetterThrottleInterval(10*time.Millisecond))
	if cfg.Search != nil {
		// The index learns of a commit after it happened, on the committing actor's
		// goroutine; Notify only marks the conversation, so it never delays the commit.
		r.indexSub = r.system.EventStream.Subscribe(func(ev any) {
			if mc, ok := ev.(MessageCommitted); ok {
				cfg.Search.Notify(mc.ConvID)
			}
		})
	}
	r.cfg.Passivation = cfg.Passivation.withDefaults()
	r.manager = r.system.Root.Spawn(actor.PropsFromProducer(func() actor.Actor {
		return newManager(r)
	}, actor.WithSupervisor(conversationSupervisor())))
	return r, nil
}

// SetLLM swaps the model client, for example after the settings changed. Requests already in
// flight finish with the old one.
func (r *Runtime) SetLLM(c LLMClient) { r.llm.Store(&llmHolder{client: c}) }

func (r *Runtime) llmClient() LLMClient { return r.llm.Load().client }

// Shutdown stops every actor — which aborts model requests and kills running tools — and
// then the actor system. protoactor's Shutdown does not stop actors by itself, hence the
// explicit stop first. Conversations left busy are brought to rest by the next start's
// recovery.
func (r *Runtime) Shutdown() {
	r.stopMu.Lock()
	defer r.stopMu.Unlock()
	if r.stopped.Swap(true) {
		return
	}
	if _, err := r.system.Root.RequestFuture(r.manager, cmdStopAll{}, r.cfg.RequestTimeout).Result(); err != nil {
		r.log.Warn("stopping conversations took too long", "error", err)
	}

	if err := r.system.Root.StopFuture(r.manager).Wait(); err != nil {
		r.log.Warn("stopping the manager took too long", "error", err)
	}
	// The manager is gone, so nothing adds to background any more.
	r.background.Wait()
	// Turn-end hooks still running finish (at most endHookWait), then the sessions end,
	// each told once, before anything they use closes.
	r.waitHooks()
	r.sessions.Range(func(id, _ any) bool {
		r.sessionEndHooks(id.(string), "other")
		return true
	})
	if r.indexSub != nil {
		r.system.EventStream.Unsubscribe(r.indexSub)
	}
	r.system.Shutdown()
	r.bgStop()
	r.bgMu.Lock()
	r.bgWaited = true
	r.bgMu.Unlock()
	r.bg.Wait()
	r.unwatchAllCheckpoints()
	r.warm.stop()
}

// bgAdd counts background work for Shutdown to wait for (bg), and reports false, counting
// nothing, once Shutdown waits.
func (r *Runtime) bgAdd() bool {
	r.bgMu.Lock()
	defer r.bgMu.Unlock()
	if r.bgWaited {
		return false
	}
	r.bg.Add(1)
	return true
}

// Sandbox reports whether Restricted mode is enforced here (REQ-BED-014), and which layers
// of the sandbox this machine has. Without Config.Sandbox, the first call describes the
// sandbox (sandbox.Describe), which starts a supervisor: call it when the answer is shown.
func (r *Runtime) Sandbox() SandboxStatus {
	if !r.sandboxLazy {
		return r.cfg.Sandbox
	}
	r.sandboxOnce.Do(func() { r.sandboxFull = sandbox.Describe() })
	return r.sandboxFull
}

// ModelLabel is how a model is named in the UI.
func (r *Runtime) ModelLabel(model string) string {
	if model == domain.DemoModel {
		return domain.DemoModelLabel
	}
	return model
}

// Subscribe returns a subscription to every event of the runtime. Close it when done.
func (r *Runtime) Subscribe() *Subscription { return newSubscription(r.system.EventStream) }

func (r *Runtime) publish(ev Event) { r.system.EventStream.Publish(ev) }

// levelFilter drops records below a level before they reach the wrapped handler.
type levelFilter struct {
	slog.Handler
	min slog.Level
}

func (f levelFilter) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= f.min && f.Handler.Enabled(ctx, l)
}

func (f levelFilter) WithAttrs(a []slog.Attr) slog.Handler {
	return levelFilter{f.Handler.WithAttrs(a), f.min}
}

func (f levelFilter) WithGroup(n string) slog.Handler {
	return levelFilter{f.Handler.WithGroup(n), f.min}
}
