package actors

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm"
	"github.com/phoenix-desktop/phoenix/mcp"
	"github.com/phoenix-desktop/phoenix/sandbox"
	"github.com/phoenix-desktop/phoenix/tools"
)

func (a *conversationActor) run(ctx actor.Context, eff domain.Effect) {
	switch e := eff.(type) {
	case domain.RequestLLM:
		a.startLLM(ctx, e)
	case domain.AbortLLM:
		if e.Exec == a.llmExec && a.llmCancel != nil {
			a.finishLLM(ctx)
		}
	case domain.ExecuteTool:
		a.startTool(ctx, e)
	case domain.KillTool:
		if e.Exec == a.toolExec && a.toolCancel != nil {
			// Cancelling the context kills the process group at once; stopping the actor
			// afterwards only tidies up.
			a.finishTool(ctx)
		}
	case domain.ScheduleRetry:
		a.schedule(ctx, e.Exec, e.Delay, retryFired{Exec: e.Exec})
	case domain.RequestApproval:
		a.rt.publish(ApprovalRequested{ConvID: a.id, Exec: e.Exec, Reason: e.Reason})
		a.approvalHooks(e.Reason)
	case domain.SpawnSubAgents:
		a.spawnSubAgents(ctx, e)
	case domain.CancelSubAgents:
		for _, id := range e.AgentIDs {
			if pid, ok := a.subAgents[id]; ok {
				ctx.Send(pid, cmdEvent{ID: id, Event: domain.UserCancel{}})
				ctx.Poison(pid)
				delete(a.subAgents, id)
			}
		}
		if t, ok := a.timers[e.Exec]; ok {
			t.Stop()
			delete(a.timers, e.Exec)
		}
	case domain.NotifyParent:
		if parent := ctx.Parent(); parent != nil {
			ctx.Send(parent, subAgentReport{Exec: e.ParentExec, Outcome: e.Outcome})
		}
	}
}

func (a *conversationActor) schedule(ctx actor.Context, exec domain.ExecID, delay time.Duration, msg any) {
	self, root := ctx.Self(), a.rt.system.Root
	a.timers[exec] = time.AfterFunc(delay, func() { root.Send(self, msg) })
}

func (a *conversationActor) startLLM(ctx actor.Context, e domain.RequestLLM) {
	// A command's turn runs on its own model (domain.Conversation.TurnModel).
	model := a.conv.RequestModel()
	req := llm.Request{
		Model:           model,
		System:          a.systemPromptFor(),
		History:         slices.Clip(a.history),
		MaxOutputTokens: a.rt.OutputLimit(model),
		ReasoningEffort: a.rt.ReasoningEffort(model),
	}
	if e.Continuation != nil {
		req.ExtraUserText = e.Continuation.Prompt
	} else {
		req.Tools = domain.ToolsFor(a.conv.IsSubAgent())
	}
	var servers *mcp.Set
	var env tools.Env
	if req.Tools != nil {
		if servers = a.mcpServers(); servers != nil {
			var err error
			if env, err = a.toolEnv(a.conv.Mode); err != nil {
				// Without its temp dir no server can start sandboxed; the request goes
				// without MCP tools, and the person learns why.
				a.rt.publish(Notice{ConvID: a.id, Level: NoticeWarning, Text: "MCP servers are not available: " + err.Error()})
				servers = nil
			}
		}
	}
	reqCtx, cancel := context.WithCancel(context.Background())
	a.llmExec, a.llmCancel = e.Exec, cancel
	a.gate.bind(e.Exec, cancel)
	var before func(context.Context)
	if e.Continuation != nil {
		before = a.compactHooks()
	}
	var langs languageOffer
	if req.Tools != nil {
		langs = a.languageOffer()
		env.Cwd = a.conv.Cwd
	}
	a.llmPID = ctx.Spawn(llmRequestProps(a.rt, a.id, e.Exec, reqCtx, cancel, req, servers, env, before, langs))
	if req.Tools != nil && !a.checkpointsWarmed {
		// After the request is on its way: it never waits for the copy.
		a.checkpointsWarmed = a.rt.warmCheckpointsFor(a.conv, true)
	}
}

func (a *conversationActor) onLLMDone(ctx actor.Context, msg llmDone) {
	if msg.Err == nil {
		a.applyInternal(ctx, domain.LLMResponse{Exec: msg.Exec, Text: msg.Resp.Text,
			ToolCalls: msg.Resp.ToolCalls, Usage: llm.Priced(msg.Resp, a.rt.cfg.Prices), Reasoning: msg.Resp.Reasoning,
			StopReason: msg.Resp.StopReason})
		return
	}
	// An aborted request reports context.Canceled too; the core's stale gate drops it, so
	// it needs no special case here (and a client that returns it unasked cannot leave the
	// conversation waiting).
	kind, text, retryAfter := domain.ErrorUnknown, msg.Err.Error(), time.Duration(0)
	var le *llm.Error
	if errors.As(msg.Err, &le) {
		kind, retryAfter = le.Kind, le.RetryAfter
		if le.Message != "" {
			text = le.Message
		}
	}
	a.applyInternal(ctx, domain.LLMError{Exec: msg.Exec, Kind: kind, Message: text, RetryAfter: retryAfter})
}

func (a *conversationActor) startTool(ctx actor.Context, e domain.ExecuteTool) {
	toolCtx, cancel := context.WithCancel(context.Background())
	a.toolExec, a.toolCancel = e.Exec, cancel
	// Bound before the worker exists: a Stop pending since the transition that started this
	// tool cancels it now, and the tool runner then starts no process.
	a.gate.bind(e.Exec, cancel)
	if a.runsRemotely(e.Call) {
		a.toolPID = ctx.Spawn(remoteToolProps(a.rt, a.id, e.Exec, toolCtx, cancel, a.conv.Host, RemoteCall{Conversation: a.id,
			Cwd: a.conv.Cwd, Mode: e.Mode, ImageLimits: a.rt.imageLimits(a.conv.RequestModel()), Call: e.Call,
			LanguageServers: a.remoteLanguageServers(e.Call)}, a.checkpointTaskFor(e), a.remoteMCP(e)))
		return
	}
	env, err := a.toolEnv(e.Mode)
	var servers *mcp.Set
	if domain.IsMCPTool(e.Call.Name) {
		servers = a.mcpServers()
	}
	a.toolPID = ctx.Spawn(toolRunProps(a.rt, a.id, a.conv.Host, e.Exec, toolCtx, cancel, env, e.Call, err, servers, a.checkpointTaskFor(e), a.languageServersFor(e.Call)))
}

// mcpServers returns the conversation's MCP servers, making the set (which starts nothing)
// on first use; nil when MCP is off.
func (a *conversationActor) mcpServers() *mcp.Set {
	if a.mcp == nil && a.rt.cfg.MCP != nil && (a.conv.Host == "" || a.rt.cfg.Remote != nil) {
		a.mcp = a.rt.newMCPSet(a.id, a.conv.Cwd)
		if a.conv.Host != "" {
			a.mcp.StartElsewhere(a.rt.remoteStarter(a.conv.Host))
		}
	}
	return a.mcp
}

func (a *conversationActor) spawnSubAgents(ctx actor.Context, e domain.SpawnSubAgents) {
	// Sub-agents work for the turn, on its model: a command's turn's own (with that
	// model's window from the table), else the conversation's.
	window := a.conv.ContextWindow
	if a.conv.TurnModel != "" {
		window = 0
	}
	for _, spec := range e.Agents {
		sub, err := domain.NewConversation(domain.NewConversationParams{
			ID: spec.ID, Title: domain.TitleFrom(spec.Task), Cwd: a.conv.Cwd, Host: a.conv.Host, Model: a.conv.RequestModel(),
			ContextWindow: window, LandlockAvailable: a.conv.LandlockAvailable,
			ParentID: a.id, ParentExec: e.Exec, Task: spec.Task, CreatedAt: time.Now(),
		})
		if err == nil {
			sub, err = a.rt.cfg.Store.Create(sub)
		}
		if err != nil {
			// The sub-agent never existed; report it failed so the batch still completes.
			ctx.Send(ctx.Self(), subAgentReport{Exec: e.Exec, Outcome: domain.SubAgentOutcome{
				AgentID: spec.ID, Task: spec.Task, Status: domain.SubAgentFailed,
				Error: "could not start: " + err.Error(), Kind: domain.ErrorUnknown}})
			continue
		}
		a.rt.publish(ConversationCreated{Conv: sub})
		pid := ctx.Spawn(conversationProps(a.rt, spec.ID))
		ctx.Watch(pid)
		a.subAgents[spec.ID] = pid
		ctx.Send(pid, startTask{Task: spec.Task})
	}
	deadline := e.Deadline
	if a.rt.cfg.SubAgentDeadline > 0 {
		deadline = a.rt.cfg.SubAgentDeadline
	}
	a.schedule(ctx, e.Exec, deadline, deadlineFired{Exec: e.Exec})
}

// onChildStopped notices a child that stopped without reporting — a worker its supervisor
// stopped, or a sub-agent that could not start — and reports on its behalf, so the
// conversation cannot wait forever.
func (a *conversationActor) onChildStopped(ctx actor.Context, who *actor.PID) {
	switch {
	case a.llmPID != nil && who.Equal(a.llmPID):
		exec := a.llmExec
		a.gate.unbind(exec)
		a.llmPID, a.llmExec, a.llmCancel = nil, 0, nil
		a.applyInternal(ctx, domain.LLMError{Exec: exec, Kind: domain.ErrorIncompleteResponse,
			Message: "the model request stopped unexpectedly; retrying"})
		return
	case a.toolPID != nil && who.Equal(a.toolPID):
		exec, call := a.toolExec, domain.ToolCall{}
		if st, ok := a.conv.State.(domain.ToolExecuting); ok {
			call = st.Current
		}
		a.gate.unbind(exec)
		a.toolPID, a.toolExec, a.toolCancel = nil, 0, nil
		a.applyInternal(ctx, domain.ToolComplete{Exec: exec, Result: domain.ToolResult{
			CallID: call.ID, Name: call.Name, Outcome: domain.OutcomeError,
			Content: "The tool stopped unexpectedly without a result (an internal error in Phoenix Desktop). Try again or take another approach."}})
		return
	}
	for id, pid := range a.subAgents {
		if pid.Equal(who) {
			delete(a.subAgents, id)
			if st, ok := a.conv.State.(domain.AwaitingSubAgents); ok {
				a.applyInternal(ctx, domain.SubAgentFinished{Exec: st.Exec, Outcome: domain.SubAgentOutcome{
					AgentID: id, Status: domain.SubAgentFailed, Error: "the sub-agent stopped unexpectedly", Kind: domain.ErrorUnknown}})
			}
		}
	}
}

func (a *conversationActor) toolEnv(mode domain.Mode) (tools.Env, error) {
	env := tools.Env{Cwd: a.conv.Cwd, Mode: mode, ImageLimits: a.rt.imageLimits(a.conv.RequestModel())}
	if a.tempDir == "" {
		var dir string
		var err error
		if root := a.rt.cfg.TempRoot; root != "" {
			// Made now if the disk was full at start (Start).
			if err = a.rt.cfg.spaceCheck(filepath.Dir(root), 0); err == nil {
				if err = os.MkdirAll(root, 0o700); err == nil {
					dir, err = os.MkdirTemp(root, "conv-")
				}
			}
			if err != nil {
				err = fmt.Errorf("create the private temp dir of conversation %s in %s: %w", a.id, root, err)
			}
		} else {
			dir, err = sandbox.MakeTempDir(a.id)
		}
		if err != nil {
			return env, err
		}
		a.tempDir = dir
	}
	env.TempDir = a.tempDir
	return env, nil
}
