package actors

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/phoenix-desktop/phoenix/mcp"
)

// Asking the person for a conversation's MCP servers (issue 26): a server's request for input
// (elicitation) and the confirmation of a tool marked destructive. Neither is a state of the
// conversation: the MCP call simply waits, on its tool worker's goroutine, while the runtime
// publishes a request event with an id; the window shows a card, the CLI answers by its flags,
// and the answer comes back through AnswerMCPInput or DecideMCPTool. Stop (which cancels the
// call) and the conversation's actor stopping end the wait; MCPRequestClosed then says so, and
// a late answer is refused with ErrNoMCPRequest.

// The form fields and decisions of these requests, named here so that the UI needs only this
// package.
type (
	MCPFormField    = mcp.FormField
	MCPFieldKind    = mcp.FieldKind
	MCPToolDecision = mcp.ToolDecision
	MCPPrompt       = mcp.Prompt
)

// The field kinds, decisions and elicitation actions.
const (
	MCPFieldString  = mcp.FieldString
	MCPFieldNumber  = mcp.FieldNumber
	MCPFieldInteger = mcp.FieldInteger
	MCPFieldBoolean = mcp.FieldBoolean
	MCPFieldEnum    = mcp.FieldEnum
	MCPFieldChoices = mcp.FieldChoices
	// MCPChoicesSeparator separates the picks of a multi-select field in its text.
	MCPChoicesSeparator = mcp.ChoicesSeparator

	MCPToolDeny        = mcp.ToolDeny
	MCPToolAllowOnce   = mcp.ToolAllowOnce
	MCPToolAlwaysAllow = mcp.ToolAlwaysAllow

	MCPAccept  = mcp.ElicitAccept
	MCPDecline = mcp.ElicitDecline
	MCPCancel  = mcp.ElicitCancel
)

// MCPInputRequested is a server's request for input. Answer it with AnswerMCPInput and this
// ID: MCPAccept with the form's entries, MCPDecline or MCPCancel.
type MCPInputRequested struct {
	ConvID, ID, Server string
	Message            string
	// URL is set when the server asks the person to open a page instead of filling a form.
	URL    string
	Fields []MCPFormField
	// FieldsError says why the requested form cannot be shown (a field kind the protocol does
	// not allow); the request can then only be declined or cancelled.
	FieldsError string
}

// MCPToolConfirmation asks whether a tool marked destructive may run (outside Unrestricted
// mode). Answer it with DecideMCPTool and this ID.
type MCPToolConfirmation struct {
	ConvID, ID, Server, Tool string
	// Arguments are the call's arguments as the model wrote them (JSON).
	Arguments string
}

// MCPRequestClosed says a request is no longer waiting: answered (Answer says how, in words),
// or ended by Stop or the conversation closing (Answer "stopped").
type MCPRequestClosed struct {
	ConvID, ID string
	Answer     string
}

func (e MCPInputRequested) Conversation() string   { return e.ConvID }
func (e MCPToolConfirmation) Conversation() string { return e.ConvID }
func (e MCPRequestClosed) Conversation() string    { return e.ConvID }

// ErrNoMCPRequest answers a click on a card whose request was already answered or stopped.
var ErrNoMCPRequest = errors.New("that MCP request is no longer waiting (it was answered, or the call was stopped)")

// mcpConvs is the runtime's MCP state per conversation: the waiting requests and each
// conversation's set of servers (for its prompts). The zero value is ready to use.
type mcpConvs struct {
	mu      sync.Mutex
	next    uint64
	pending map[string]*mcpPending
	sets    map[string]*mcp.Set
}

// mcpIDPrefix starts every request id.
const mcpIDPrefix = "mcp-"

// mcpPending is one waiting request; answer receives an mcp.ElicitAnswer or an
// mcp.ToolDecision, once.
type mcpPending struct {
	ev     Event
	fields []MCPFormField
	answer chan any
}

// newMCPSet makes a conversation's set of servers, asking through this runtime, and keeps it
// for Prompts until forgetMCPSet.
func (r *Runtime) newMCPSet(convID, cwd string) *mcp.Set {
	set := r.cfg.MCP.NewSet(cwd)
	set.Ask(mcpAsker{r: r, convID: convID})
	r.mcpc.mu.Lock()
	if r.mcpc.sets == nil {
		r.mcpc.sets = map[string]*mcp.Set{}
	}
	r.mcpc.sets[convID] = set
	r.mcpc.mu.Unlock()
	return set
}

// forgetMCPSet drops a closed set.
func (r *Runtime) forgetMCPSet(convID string, set *mcp.Set) {
	r.mcpc.mu.Lock()
	defer r.mcpc.mu.Unlock()
	if r.mcpc.sets[convID] == set {
		delete(r.mcpc.sets, convID)
	}
}

func (r *Runtime) mcpSet(convID string) *mcp.Set {
	r.mcpc.mu.Lock()
	defer r.mcpc.mu.Unlock()
	return r.mcpc.sets[convID]
}

// ask publishes a request and waits for its answer or for ctx to end.
func (r *Runtime) ask(ctx context.Context, ev func(id string) Event, fields []MCPFormField) (any, error) {
	r.mcpc.mu.Lock()
	r.mcpc.next++
	id := mcpIDPrefix + strconv.FormatUint(r.mcpc.next, 10)
	p := &mcpPending{ev: ev(id), fields: fields, answer: make(chan any, 1)}
	if r.mcpc.pending == nil {
		r.mcpc.pending = map[string]*mcpPending{}
	}
	r.mcpc.pending[id] = p
	r.mcpc.mu.Unlock()
	r.publish(p.ev)
	select {
	case a := <-p.answer:
		return a, nil
	case <-ctx.Done():
		if r.takePending(id) != nil {
			r.publish(MCPRequestClosed{ConvID: p.ev.Conversation(), ID: id, Answer: "stopped"})
			return nil, ctx.Err()
		}
		return <-p.answer, nil // answered just now
	}
}

func (r *Runtime) takePending(id string) *mcpPending {
	r.mcpc.mu.Lock()
	defer r.mcpc.mu.Unlock()
	p := r.mcpc.pending[id]
	delete(r.mcpc.pending, id)
	return p
}

// PendingMCPRequests lists the requests of a conversation that wait for the person, oldest
// first: for a window that opens while one waits.
func (r *Runtime) PendingMCPRequests(convID string) []Event {
	r.mcpc.mu.Lock()
	defer r.mcpc.mu.Unlock()
	var ids []uint64
	for id, p := range r.mcpc.pending {
		if p.ev.Conversation() == convID {
			n, _ := strconv.ParseUint(strings.TrimPrefix(id, mcpIDPrefix), 10, 64)
			ids = append(ids, n)
		}
	}
	slices.Sort(ids)
	out := make([]Event, 0, len(ids))
	for _, n := range ids {
		out = append(out, r.mcpc.pending[mcpIDPrefix+strconv.FormatUint(n, 10)].ev)
	}
	return out
}

// AnswerMCPInput answers a server's request for input: MCPAccept with the form's entries by
// field name (checked against the requested fields; an error names what is wrong and the
// request keeps waiting), MCPDecline or MCPCancel.
func (r *Runtime) AnswerMCPInput(convID, id, action string, entries map[string]string) error {
	r.mcpc.mu.Lock()
	p := r.mcpc.pending[id]
	if p == nil || p.ev.Conversation() != convID {
		r.mcpc.mu.Unlock()
		return ErrNoMCPRequest
	}
	req, ok := p.ev.(MCPInputRequested)
	if !ok {
		r.mcpc.mu.Unlock()
		return fmt.Errorf("%s is not a request for input", id)
	}
	ans := mcp.ElicitAnswer{Action: action}
	switch action {
	case MCPAccept:
		if req.FieldsError != "" {
			r.mcpc.mu.Unlock()
			return fmt.Errorf("this form cannot be filled in here (%s): decline or cancel it", req.FieldsError)
		}
		content, err := mcp.FormContent(p.fields, entries)
		if err != nil {
			r.mcpc.mu.Unlock()
			return err
		}
		ans.Content = content
	case MCPDecline, MCPCancel:
	default:
		r.mcpc.mu.Unlock()
		return fmt.Errorf("unknown answer %q: use %s, %s or %s", action, MCPAccept, MCPDecline, MCPCancel)
	}
	delete(r.mcpc.pending, id)
	r.mcpc.mu.Unlock()
	p.answer <- ans
	r.publish(MCPRequestClosed{ConvID: convID, ID: id, Answer: elicitWords(action)})
	return nil
}

// DecideMCPTool answers a confirmation of a tool marked destructive.
func (r *Runtime) DecideMCPTool(convID, id string, d MCPToolDecision) error {
	r.mcpc.mu.Lock()
	p := r.mcpc.pending[id]
	if p == nil || p.ev.Conversation() != convID {
		r.mcpc.mu.Unlock()
		return ErrNoMCPRequest
	}
	if _, ok := p.ev.(MCPToolConfirmation); !ok {
		r.mcpc.mu.Unlock()
		return fmt.Errorf("%s is not a tool confirmation", id)
	}
	delete(r.mcpc.pending, id)
	r.mcpc.mu.Unlock()
	p.answer <- d
	r.publish(MCPRequestClosed{ConvID: convID, ID: id, Answer: d.String()})
	return nil
}

// elicitWords is an elicitation's answer as the person reads it.
func elicitWords(action string) string {
	switch action {
	case MCPAccept:
		return "submitted"
	case MCPDecline:
		return "declined"
	}
	return "cancelled"
}

// mcpAsker asks for one conversation (mcp.Asker).
type mcpAsker struct {
	r      *Runtime
	convID string
}

func (a mcpAsker) Elicit(ctx context.Context, server string, req mcp.Elicitation) (mcp.ElicitAnswer, error) {
	fields, ferr := mcp.FormFields(req.Schema)
	ev := MCPInputRequested{ConvID: a.convID, Server: server, Message: req.Message, URL: req.URL, Fields: fields}
	if ferr != nil {
		ev.FieldsError = ferr.Error()
	}
	ans, err := a.r.ask(ctx, func(id string) Event { ev.ID = id; return ev }, fields)
	if err != nil {
		return mcp.ElicitAnswer{Action: MCPCancel}, err
	}
	return ans.(mcp.ElicitAnswer), nil
}

func (a mcpAsker) ConfirmTool(ctx context.Context, req mcp.ToolConfirmation) (mcp.ToolDecision, error) {
	ev := MCPToolConfirmation{ConvID: a.convID, Server: req.Server, Tool: req.Tool, Arguments: req.Arguments}
	ans, err := a.r.ask(ctx, func(id string) Event { ev.ID = id; return ev }, nil)
	if err != nil {
		return MCPToolDeny, err
	}
	return ans.(mcp.ToolDecision), nil
}

// Prompts lists the MCP prompts of a conversation's ready servers, for the composer's slash
// menu. A conversation whose servers are not running (its actor is not loaded, or none is
// ready yet) has none; it never waits for a server.
func (r *Runtime) Prompts(ctx context.Context, convID string) ([]MCPPrompt, error) {
	set := r.mcpSet(convID)
	if set == nil {
		return nil, nil
	}
	return set.Prompts(ctx)
}

// GetPrompt fetches one prompt of a conversation's server with its arguments, as text for the
// composer.
func (r *Runtime) GetPrompt(ctx context.Context, convID, server, name string, args map[string]string) (string, error) {
	set := r.mcpSet(convID)
	if set == nil {
		return "", fmt.Errorf("the MCP servers of this conversation are not running; send a message first, then try the prompt %s:%s again", server, name)
	}
	return set.GetPrompt(ctx, server, name, args)
}
