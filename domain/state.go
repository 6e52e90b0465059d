package domain

import (
	"encoding/json"
	"fmt"
	"time"
)

// ExecID identifies one LLM request, tool run or sub-agent batch. The current one is held in
// the state; a result carrying any other id is stale and changes nothing (the stale gate,
// orchestration-design items 16–18).
type ExecID uint64

// StateKind names a state, for persistence and display.
type StateKind string

const (
	StateIdle                 StateKind = "idle"
	StateLLMRequesting        StateKind = "llm_requesting"
	StateToolExecuting        StateKind = "tool_executing"
	StateAwaitingModeApproval StateKind = "awaiting_mode_approval"
	StateAwaitingSubAgents    StateKind = "awaiting_sub_agents"
	StateAwaitingContinuation StateKind = "awaiting_continuation"
	StateContextExhausted     StateKind = "context_exhausted"
	StateError                StateKind = "error"
	StateCompleted            StateKind = "completed"
	StateFailed               StateKind = "failed"
)

// State is the sealed set of conversation states. Only this package can add a member.
type State interface {
	Kind() StateKind
	isState()
}

// Idle waits for the person.
type Idle struct{}

// LLMRequesting has a request in flight, or waits for its retry timer (REQ-BED-006).
type LLMRequesting struct {
	Exec    ExecID `json:"exec"`
	Attempt int    `json:"attempt"`
	// RetryPending is true while the retry timer runs; the request starts when it fires.
	RetryPending bool          `json:"retry_pending,omitempty"`
	RetryDelay   time.Duration `json:"retry_delay,omitempty"`
	// LastError says why the previous attempt failed, for "Retrying (2 of 3)" displays.
	LastError     string    `json:"last_error,omitempty"`
	LastErrorKind ErrorKind `json:"last_error_kind,omitempty"`
}

// Round is the part of a tool round still to do: the calls after the current one, and the ids
// of those already answered.
type Round struct {
	Remaining []ToolCall `json:"remaining,omitempty"`
	Completed []string   `json:"completed,omitempty"`
	// Notes are system messages (mode changes, REQ-BED-017) that happened during the round.
	// They are written after the round's last result, because the APIs require the results to
	// follow their assistant message with nothing in between.
	Notes []string `json:"notes,omitempty"`
	// Cut is the id of the round's last call when the reply ended early (CutReason) while
	// its arguments were being written: it is answered with an explanation, never run.
	Cut       string     `json:"cut,omitempty"`
	CutReason StopReason `json:"cut_reason,omitempty"`
	// Attempt is what the request after the round counts as; above 1 only after a cut call,
	// so that a model that keeps writing calls too long for its output limit uses up the
	// retry budget (MaxAttempts) instead of looping. Zero means 1.
	Attempt int `json:"attempt,omitempty"`
	// ResultTokens estimates the tokens of the results already written in this round, so
	// that the next result is capped by what is left of the window (ResultRoom).
	ResultTokens int `json:"result_tokens,omitempty"`
}

// ToolExecuting runs one tool; the rest wait their turn (REQ-BED-004).
type ToolExecuting struct {
	Exec    ExecID   `json:"exec"`
	Current ToolCall `json:"current"`
	Round
}

// AwaitingModeApproval waits, without a timeout, for the person to approve or deny a
// request_mode_upgrade call (REQ-BED-015).
type AwaitingModeApproval struct {
	Exec   ExecID   `json:"exec"`
	Call   ToolCall `json:"call"`
	Reason string   `json:"reason"`
	Round
}

// SubAgentStatus is where one sub-agent stands.
type SubAgentStatus string

const (
	SubAgentPending   SubAgentStatus = "pending"
	SubAgentSucceeded SubAgentStatus = "succeeded"
	SubAgentFailed    SubAgentStatus = "failed"
)

// SubAgentOutcome is one sub-agent's task and, once known, its result or failure.
type SubAgentOutcome struct {
	AgentID string         `json:"agent_id"`
	Task    string         `json:"task"`
	Status  SubAgentStatus `json:"status"`
	Result  string         `json:"result,omitempty"`
	Error   string         `json:"error,omitempty"`
	Kind    ErrorKind      `json:"kind,omitempty"`
}

// AwaitingSubAgents waits for every sub-agent of one spawn_agents call (REQ-BED-008).
type AwaitingSubAgents struct {
	Exec     ExecID            `json:"exec"`
	Call     ToolCall          `json:"call"`
	Outcomes []SubAgentOutcome `json:"outcomes"`
	Round
}

// Pending counts the sub-agents that have not reported yet.
func (s AwaitingSubAgents) Pending() int {
	n := 0
	for _, o := range s.Outcomes {
		if o.Status == SubAgentPending {
			n++
		}
	}
	return n
}

// AwaitingContinuation has the tool-less summary request in flight (REQ-BED-020).
type AwaitingContinuation struct {
	Exec         ExecID        `json:"exec"`
	Rejected     []ToolCall    `json:"rejected,omitempty"`
	TriggerUsage Usage         `json:"trigger_usage"`
	Attempt      int           `json:"attempt"`
	RetryPending bool          `json:"retry_pending,omitempty"`
	RetryDelay   time.Duration `json:"retry_delay,omitempty"`
}

// ContextExhausted is read-only and absorbing (REQ-BED-021).
type ContextExhausted struct {
	Summary    string `json:"summary"`
	FinalUsage Usage  `json:"final_usage"`
}

// Error is a resting state after a failure; a new user message recovers (REQ-BED-006).
type Error struct {
	Message string    `json:"message"`
	ErrKind ErrorKind `json:"kind"`
}

// Completed ends a sub-agent that called submit_result.
type Completed struct {
	Result  string `json:"result"`
	Success bool   `json:"success"`
}

// Failed ends a sub-agent that could not finish.
type Failed struct {
	Message string    `json:"message"`
	ErrKind ErrorKind `json:"kind"`
}

func (Idle) Kind() StateKind                 { return StateIdle }
func (LLMRequesting) Kind() StateKind        { return StateLLMRequesting }
func (ToolExecuting) Kind() StateKind        { return StateToolExecuting }
func (AwaitingModeApproval) Kind() StateKind { return StateAwaitingModeApproval }
func (AwaitingSubAgents) Kind() StateKind    { return StateAwaitingSubAgents }
func (AwaitingContinuation) Kind() StateKind { return StateAwaitingContinuation }
func (ContextExhausted) Kind() StateKind     { return StateContextExhausted }
func (Error) Kind() StateKind                { return StateError }
func (Completed) Kind() StateKind            { return StateCompleted }
func (Failed) Kind() StateKind               { return StateFailed }

func (Idle) isState()                 {}
func (LLMRequesting) isState()        {}
func (ToolExecuting) isState()        {}
func (AwaitingModeApproval) isState() {}
func (AwaitingSubAgents) isState()    {}
func (AwaitingContinuation) isState() {}
func (ContextExhausted) isState()     {}
func (Error) isState()                {}
func (Completed) isState()            {}
func (Failed) isState()               {}

// Busy reports whether the agent is working: such states reject user messages and have
// something for Stop to stop.
func Busy(s State) bool {
	switch s.(type) {
	case LLMRequesting, ToolExecuting, AwaitingModeApproval, AwaitingSubAgents, AwaitingContinuation:
		return true
	}
	return false
}

// CurrentExec returns the execution the state waits on, if any.
func CurrentExec(s State) (ExecID, bool) {
	switch st := s.(type) {
	case LLMRequesting:
		return st.Exec, true
	case ToolExecuting:
		return st.Exec, true
	case AwaitingModeApproval:
		return st.Exec, true
	case AwaitingSubAgents:
		return st.Exec, true
	case AwaitingContinuation:
		return st.Exec, true
	}
	return 0, false
}

// Mode is the permission level of a conversation (REQ-BED-014).
type Mode string

const (
	ModeRestricted Mode = "restricted"
	// ModeProject lies between the two: commands may change the working tree (except its
	// protected files) and reach the network only through the app's proxy, to the hosts the
	// person allowed; every other wall of Restricted stays up.
	ModeProject      Mode = "project"
	ModeUnrestricted Mode = "unrestricted"
)

// Modes lists the modes from the one that allows least to the one that allows most: an
// upgrade moves right, a downgrade left.
var Modes = []Mode{ModeRestricted, ModeProject, ModeUnrestricted}

// modeWords is the one table of what each mode is called and what it allows a command: in
// the words the agent reads (tool results, the mode notice as the model sees it), which name
// its tools, and in the words the person reads (the window's notice, the approval card, the
// terminal's question), which name none.
var modeWords = map[Mode]struct{ title, allows, forPerson string }{
	ModeRestricted: {"Restricted", "the file system is read-only, the network is closed, and patch is unavailable",
		"commands can read files but not change them or reach the network, and the agent cannot edit files"},
	ModeProject: {"Project", "bash can change files in the working tree (except protected files such as .git/hooks and .git/config) " +
		"and reach only hosts the person allows through a proxy; patch is available for files in the working tree",
		"commands can change files in the project folder (except protected files such as .git/hooks and .git/config) " +
			"and reach only the websites you allow in Settings, and the agent can edit files in the project folder"},
	ModeUnrestricted: {"Unrestricted", "bash can write files and reach the network, and patch is available",
		"commands can change any file and reach any website, and the agent can edit any file"},
}

// Known reports whether m is one of Modes. Stored data from a newer build may hold a mode
// this one does not know; every reader treats such a mode as Restricted (Rank).
func (m Mode) Known() bool {
	_, ok := modeWords[m]
	return ok
}

// Rank orders the modes by what they allow: 0 for Restricted, 1 for Project, 2 for
// Unrestricted. An unknown mode ranks as Restricted, so it never loosens anything.
func (m Mode) Rank() int {
	for i, k := range Modes {
		if k == m {
			return i
		}
	}
	return 0
}

// Title is the mode's name as people and the agent read it: "Project".
func (m Mode) Title() string {
	if w, ok := modeWords[m]; ok {
		return w.title
	}
	return modeWords[ModeRestricted].title
}

// Allows says in plain words what a command may do in this mode (no capital, no full stop,
// so it fits inside a sentence).
func (m Mode) Allows() string {
	if w, ok := modeWords[m]; ok {
		return w.allows
	}
	return modeWords[ModeRestricted].allows
}

// AllowsForPerson is Allows in the person's words: no tool names, and "you" for the person.
func (m Mode) AllowsForPerson() string {
	if w, ok := modeWords[m]; ok {
		return w.forPerson
	}
	return modeWords[ModeRestricted].forPerson
}

// Conversation is the aggregate Transition works on. It holds no history: messages are
// produced by Transition (in a Persist effect) and kept by the store and the actors.
type Conversation struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Cwd is fixed at creation (REQ-BED-010).
	Cwd string `json:"cwd"`
	// Host, when set, is the SSH host the project lives on (user@host or a Host of
	// ~/.ssh/config); Cwd is then a path on that machine, where the tools run (issue 37).
	Host  string `json:"host,omitempty"`
	Model string `json:"model"`
	// TurnModel is the model of the turn under way when a message asked for one other than
	// Model (UserMessage.Model); the conversation's own model is back, and TurnModel
	// empty, once the conversation comes to rest.
	TurnModel string `json:"turn_model,omitempty"`
	// ContextWindow is the model's window in tokens, resolved at creation (REQ-BED-022).
	ContextWindow int  `json:"context_window"`
	Mode          Mode `json:"mode"`
	// LandlockAvailable records whether Restricted mode can be enforced (REQ-BED-014).
	LandlockAvailable bool `json:"landlock_available"`
	// ParentID and ParentExec link a sub-agent to the spawn_agents call that started it.
	ParentID   string `json:"parent_id,omitempty"`
	ParentExec ExecID `json:"parent_exec,omitempty"`
	// Task is a sub-agent's assignment.
	Task string `json:"task,omitempty"`
	// Worktree is the git worktree the conversation was made in (issue 34): Cwd lies in it.
	// Nil for a conversation in the person's own folder. Whether the folder and the branch
	// are still there is read from git, not kept here.
	Worktree *Worktree `json:"worktree,omitempty"`
	// ContinuedFrom links a conversation to the exhausted one it continues (REQ-BED-021).
	ContinuedFrom string `json:"continued_from,omitempty"`
	// ForkedFrom links a fork to the conversation it continues from a message (issue 27).
	ForkedFrom string `json:"forked_from,omitempty"`
	// Copied counts the messages a fork was given by its source (seq 0 to Copied-1): the
	// source's words and replies, whose cost the conversation that made them counts, so a
	// day's total leaves them out (issue 33). Zero for every other conversation, and for a
	// fork made before it was recorded (CopiedMessages reads those).
	Copied uint64 `json:"copied,omitempty"`
	// SubmitReminded records that a sub-agent which answered in plain text was reminded to
	// call submit_result; the next plain answer fails it (REQ-BED-008, issue 13).
	SubmitReminded bool  `json:"submit_reminded,omitempty"`
	State          State `json:"-"`
	// Usage is the latest response's usage: the context the next request starts from.
	Usage Usage `json:"usage"`
	// Spent adds up the usage and cost of every response of the model (issue 27).
	Spent Spend `json:"spent,omitzero"`
	// NextSeq is the sequence number the next message gets.
	NextSeq uint64 `json:"next_seq"`
	// LastExec is the highest execution id handed out.
	LastExec  ExecID    `json:"last_exec"`
	Archived  bool      `json:"archived,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Window is the context window the thresholds are measured against (REQ-BED-019, 022): the
// stored one, or, when a record has none, its model's window from the table, which for an
// unknown model is the smallest known one. A zero window would put every response past 90%.
func (c Conversation) Window() int {
	if c.ContextWindow > 0 {
		return c.ContextWindow
	}
	return ContextWindowFor(c.Model)
}

// RequestModel is the model the next request is sent to: the turn's (TurnModel) while one
// is under way, else the conversation's.
func (c Conversation) RequestModel() string {
	if c.TurnModel != "" {
		return c.TurnModel
	}
	return c.Model
}

// IsSubAgent reports whether this conversation was started by spawn_agents (REQ-BED-009).
func (c Conversation) IsSubAgent() bool { return c.ParentID != "" }

// UserInitiated is the opposite of IsSubAgent: only such conversations are listed.
func (c Conversation) UserInitiated() bool { return !c.IsSubAgent() }

// Worktree is a conversation's own git worktree: its folder, its branch, the branch it came
// from and merges into, and the repository's working tree.
type Worktree struct {
	Path   string `json:"path"`
	Branch string `json:"branch"`
	Base   string `json:"base"`
	Repo   string `json:"repo"`
}

// NewConversationParams are the choices made when a conversation is created.
type NewConversationParams struct {
	ID, Title, Cwd, Model string
	// Host is the SSH host of a remote project; empty for a local one.
	Host string
	// ContextWindow overrides the model table when positive.
	ContextWindow     int
	LandlockAvailable bool
	// Mode is the mode the person chose; empty means Restricted. Ignored for sub-agents
	// (REQ-BED-018), and where Landlock is unavailable (only Unrestricted exists there).
	Mode Mode
	// Unrestricted is the older way to ask for Mode: ModeUnrestricted.
	Unrestricted  bool
	ParentID      string
	ParentExec    ExecID
	Task          string
	ContinuedFrom string
	// Worktree is the worktree Cwd lies in, nil for none.
	Worktree  *Worktree
	CreatedAt time.Time
}

// NewConversation validates the parameters and returns an Idle conversation in Restricted
// mode where Landlock is available (REQ-BED-014, REQ-BED-018).
func NewConversation(p NewConversationParams) (Conversation, error) {
	if p.ID == "" {
		return Conversation{}, fmt.Errorf("new conversation: id is empty")
	}
	if p.Cwd == "" {
		return Conversation{}, fmt.Errorf("new conversation: working directory is empty")
	}
	if p.Model == "" {
		return Conversation{}, fmt.Errorf("new conversation: model is empty")
	}
	mode := ModeUnrestricted
	if p.LandlockAvailable {
		switch {
		case p.ParentID != "":
			mode = ModeRestricted
		case p.Mode == ModeProject:
			mode = ModeProject
		case p.Mode == ModeUnrestricted || p.Unrestricted:
			mode = ModeUnrestricted
		default:
			mode = ModeRestricted
		}
	}
	window := p.ContextWindow
	if window <= 0 {
		window = ContextWindowFor(p.Model)
	}
	return Conversation{
		ID: p.ID, Title: p.Title, Cwd: p.Cwd, Host: p.Host, Model: p.Model, ContextWindow: window,
		Mode: mode, LandlockAvailable: p.LandlockAvailable,
		ParentID: p.ParentID, ParentExec: p.ParentExec, Task: p.Task,
		ContinuedFrom: p.ContinuedFrom, Worktree: p.Worktree, State: Idle{},
		CreatedAt: p.CreatedAt, UpdatedAt: p.CreatedAt,
	}, nil
}

// MarshalJSON stores the sealed state as a kind plus its fields.
func (c Conversation) MarshalJSON() ([]byte, error) {
	type plain Conversation
	st := c.State
	if st == nil {
		st = Idle{}
	}
	data, err := json.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("encode state of %s: %w", c.ID, err)
	}
	return json.Marshal(struct {
		plain
		StateKind StateKind       `json:"state_kind"`
		StateData json.RawMessage `json:"state"`
	}{plain(c), st.Kind(), data})
}

// UnmarshalJSON restores the sealed state; an unknown kind is an error, never a default.
func (c *Conversation) UnmarshalJSON(b []byte) error {
	type plain Conversation
	var aux struct {
		plain
		StateKind StateKind       `json:"state_kind"`
		StateData json.RawMessage `json:"state"`
	}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	st, err := DecodeState(aux.StateKind, aux.StateData)
	if err != nil {
		return fmt.Errorf("conversation %s: %w", aux.ID, err)
	}
	*c = Conversation(aux.plain)
	c.State = st
	return nil
}

// DecodeState turns a persisted kind and its fields back into a State.
func DecodeState(kind StateKind, data json.RawMessage) (State, error) {
	decode := func(v any) error {
		if len(data) == 0 {
			return nil
		}
		return json.Unmarshal(data, v)
	}
	var (
		st  State
		err error
	)
	switch kind {
	case StateIdle:
		var s Idle
		err = decode(&s)
		st = s
	case StateLLMRequesting:
		var s LLMRequesting
		err = decode(&s)
		st = s
	case StateToolExecuting:
		var s ToolExecuting
		err = decode(&s)
		st = s
	case StateAwaitingModeApproval:
		var s AwaitingModeApproval
		err = decode(&s)
		st = s
	case StateAwaitingSubAgents:
		var s AwaitingSubAgents
		err = decode(&s)
		st = s
	case StateAwaitingContinuation:
		var s AwaitingContinuation
		err = decode(&s)
		st = s
	case StateContextExhausted:
		var s ContextExhausted
		err = decode(&s)
		st = s
	case StateError:
		var s Error
		err = decode(&s)
		st = s
	case StateCompleted:
		var s Completed
		err = decode(&s)
		st = s
	case StateFailed:
		var s Failed
		err = decode(&s)
		st = s
	default:
		return nil, fmt.Errorf("unknown state kind %q", kind)
	}
	if err != nil {
		return nil, fmt.Errorf("decode %s state: %w", kind, err)
	}
	return st, nil
}
