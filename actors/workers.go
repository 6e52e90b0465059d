package actors

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm"
	"github.com/phoenix-desktop/phoenix/lsp"
	"github.com/phoenix-desktop/phoenix/mcp"
	"github.com/phoenix-desktop/phoenix/tools"
)

// The worker actors run one model request or one tool call. The blocking work happens on a
// goroutine the worker starts, never in a mailbox; the result goes back to the conversation
// as a message carrying the execution id. Stopping the worker (or calling the cancel function
// the conversation kept) cancels the context, which aborts the HTTP request or kills the
// process group.

// llmRequestActor runs one streaming model request (at most one per conversation).
type llmRequestActor struct {
	rt     *Runtime
	convID string
	exec   domain.ExecID
	ctx    context.Context
	cancel context.CancelFunc
	req    llm.Request
	// servers adds the conversation's MCP tools to a request that offers tools; nil when
	// MCP is off. env is the conversation's tool environment (the servers' policy).
	servers *mcp.Set
	env     tools.Env
	// before runs first, off the mailbox: the PreCompact hooks before a continuation summary.
	before func(context.Context)
	// langs adds the language tools where a server can answer them; nil when off (lsp.go).
	langs languageOffer
}

func llmRequestProps(rt *Runtime, convID string, exec domain.ExecID, ctx context.Context,
	cancel context.CancelFunc, req llm.Request, servers *mcp.Set, env tools.Env, before func(context.Context), langs languageOffer) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &llmRequestActor{rt: rt, convID: convID, exec: exec, ctx: ctx, cancel: cancel, req: req,
			servers: servers, env: env, before: before, langs: langs}
	})
}

func (w *llmRequestActor) Receive(ctx actor.Context) {
	switch ctx.Message().(type) {
	case *actor.Started:
		parent, root, client := ctx.Parent(), w.rt.system.Root, w.rt.llmClient()
		w.rt.warm.Go(func() {
			if w.before != nil {
				w.before(w.ctx)
			}
			w.addMCPTools()
			w.addLanguageTools()
			resp, err := w.stream(client)
			root.Send(parent, llmDone{Exec: w.exec, Resp: resp, Err: err})
		})
	case *actor.Stopping:
		w.cancel()
	}
}

// addMCPTools fixes the tools of the conversation's ready MCP servers for this request without
// waiting for any (servers not running start in the background); what the model should know
// of servers it cannot use yet, or at all, goes into the system prompt.
func (w *llmRequestActor) addMCPTools() {
	if w.servers == nil || w.req.Tools == nil {
		return
	}
	w.env = w.rt.withProxy(w.convID, w.env)
	specs, notes, notices := w.servers.Tools(w.ctx, w.env)
	for _, n := range notices {
		w.rt.publish(Notice{ConvID: w.convID, Level: NoticeWarning, Text: n})
	}
	if len(specs) > 0 {
		w.req.Tools = append(slices.Clip(w.req.Tools), specs...)
	}
	if len(notes) > 0 {
		w.req.System += "\n\n# MCP servers\n\n" + strings.Join(notes, "\n")
	}
}

// stream calls the model; a panic inside the client becomes a retryable error, because a
// crash while reading one response says nothing about the next attempt.
func (w *llmRequestActor) stream(client LLMClient) (resp llm.Response, err error) {
	defer func() {
		if p := recover(); p != nil {
			w.rt.log.Error("panic in the model client", "panic", p, "stack", string(debug.Stack()))
			resp, err = llm.Response{}, &llm.Error{Kind: domain.ErrorIncompleteResponse,
				Message: fmt.Sprintf("internal error while reading the model's answer (%v); retrying", p)}
		}
	}()
	onDelta := func(d llm.Delta) {
		if w.ctx.Err() == nil {
			w.rt.publish(TextDelta{ConvID: w.convID, Exec: w.exec, Text: d.Text, Reasoning: d.Kind == llm.DeltaReasoning})
		}
	}
	return client.Stream(w.ctx, w.req, onDelta)
}

// toolRunActor runs one tool call (one at a time per conversation).
type toolRunActor struct {
	rt     *Runtime
	convID string
	// host is the conversation's project machine ("" for this one): its project's hooks
	// run there, the person's here (hooks_remote.go).
	host    string
	exec    domain.ExecID
	ctx     context.Context
	cancel  context.CancelFunc
	env     tools.Env
	call    domain.ToolCall
	envErr  error
	servers *mcp.Set // runs mcp__ calls; nil when MCP is off
	// ckpt snapshots the working tree around a call that can change files; nil otherwise.
	ckpt *checkpointTask
	// callHooks runs the call's tool hooks (made on first use: hooks).
	callHooks *callHooks
	// lsps checks a patch's file with its language server; nil for other calls (lsp.go).
	lsps *lsp.Set
}

func toolRunProps(rt *Runtime, convID, host string, exec domain.ExecID, ctx context.Context, cancel context.CancelFunc,
	env tools.Env, call domain.ToolCall, envErr error, servers *mcp.Set, ckpt *checkpointTask, lsps *lsp.Set) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &toolRunActor{rt: rt, convID: convID, host: host, exec: exec, ctx: ctx, cancel: cancel, env: env, call: call,
			envErr: envErr, servers: servers, ckpt: ckpt, lsps: lsps}
	})
}

func (w *toolRunActor) Receive(ctx actor.Context) {
	switch ctx.Message().(type) {
	case *actor.Started:
		parent, root := ctx.Parent(), w.rt.system.Root
		w.rt.warm.Go(func() {
			if w.ckpt != nil {
				var finish func()
				w.ckpt.prev, finish = w.rt.checkpointCallStarted(w.convID)
				// After the checkpoint is complete, on every path below.
				defer finish()
			}
			res, complete := w.run()
			if complete == nil {
				root.Send(parent, toolDone{Exec: w.exec, Result: res})
				return
			}
			// The checkpoint after the call is completed once the result is on its way:
			// the next request does not wait for it, and the conversation's next
			// checkpoint (and every reader of checkpoints) does (checkpointAfterPending).
			release, later := w.rt.checkpointAfterPending(w.convID)
			if !later {
				// Shutdown waits for its background work already, and would not for
				// this: complete it first.
				complete()
			}
			root.Send(parent, toolDone{Exec: w.exec, Result: res})
			if later {
				if w.rt.cfg.checkpointCompleting != nil {
					w.rt.cfg.checkpointCompleting(w.convID)
				}
				complete()
				release()
			}
		})
	case *actor.Stopping:
		w.cancel()
	}
}

// run executes the tool and stores any images it returns, all off the mailbox. A panic
// becomes an error result for the model: the conversation goes on. complete, when not nil,
// completes the call's checkpoint (the snapshot after it); the caller runs it.
func (w *toolRunActor) run() (res domain.ToolResult, complete func()) {
	defer func() {
		if p := recover(); p != nil {
			w.rt.log.Error("panic in a tool", "tool", w.call.Name, "panic", p, "stack", string(debug.Stack()))
			res = domain.ToolResult{CallID: w.call.ID, Name: w.call.Name, Outcome: domain.OutcomeError,
				Content: fmt.Sprintf("The tool %s failed with an internal error (%v). This is a bug in Phoenix Desktop, not in your call; try another approach.", w.call.Name, p)}
		}
	}()
	if w.envErr != nil {
		return domain.ToolResult{CallID: w.call.ID, Name: w.call.Name, Outcome: domain.OutcomeError,
			Content: "The tool could not start: " + w.envErr.Error()}, nil
	}
	if canChangeFiles(w.env.Mode, w.call.Name) {
		if err := w.rt.hookBaselineBeforeWrite(w.convID, w.env.Cwd); err != nil {
			return domain.ToolResult{CallID: w.call.ID, Name: w.call.Name, Outcome: domain.OutcomeError,
				Content: "The call did not run: Phoenix Desktop could not record what the person's runs-as-me hooks use before the first change to files (" + err.Error() + "), and without that record those hooks could run what this call changes. Tell the person; freeing disk space or restarting the app may help."}, nil
		}
	}
	if refused, ok := w.preToolHooks(); ok {
		return refused, nil
	}
	if w.ckpt != nil {
		if cp, ok := w.ckpt.before(w.ctx, w.exec, w.call); ok {
			complete = func() { w.ckpt.after(cp) }
		}
	}
	w.env = w.rt.withProxy(w.convID, w.env)
	var out tools.Output
	switch {
	case domain.IsMCPTool(w.call.Name) && w.servers != nil:
		out = w.servers.Call(w.ctx, w.env, w.call, func(p mcp.Progress) {
			w.rt.publish(ToolProgress{ConvID: w.convID, Exec: w.exec, Progress: p.Progress, Total: p.Total, Message: p.Message})
		})
	case domain.IsLanguageTool(w.call.Name):
		out = lsp.RunTool(w.ctx, w.lsps, w.env, w.call)
	case domain.IsMCPTool(w.call.Name):
		return domain.ToolResult{CallID: w.call.ID, Name: w.call.Name, Outcome: domain.OutcomeError,
			Content: "MCP servers are switched off in this session (--no-mcp), so " + w.call.Name + " cannot run."}, complete
	default:
		edit := w.beforeEdit()
		out = w.rt.cfg.Tools.Run(w.ctx, w.env, w.call)
		out = w.afterEdit(edit, out)
		out = w.afterCommand(out)
	}
	for _, img := range out.Images {
		if _, err := w.rt.cfg.Store.PutBlob(img.Data); err != nil {
			return domain.ToolResult{CallID: w.call.ID, Name: w.call.Name, Outcome: domain.OutcomeError,
				Content: "The image could not be saved: " + err.Error()}, complete
		}
	}
	return w.rt.withRefusals(w.convID, w.env, w.postToolHooks(out.Result(w.call))), complete
}
