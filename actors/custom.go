package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/phoenix-desktop/phoenix/custom"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/persistence"
	"github.com/phoenix-desktop/phoenix/tools"
)

// Commands, skills and hooks (package custom). Commands and skills are read when a
// conversation is created and when the person reloads its instructions — on the caller's
// goroutine, never in a mailbox — and kept in the store (aux record "custom"), so the skills
// in the system prompt stay the same for the whole conversation and the prompt stays
// cache-friendly. Hooks are read at every event (an edit applies at once) and run off every
// mailbox: tool hooks on the tool worker's goroutine, prompt hooks on the caller's, turn-end
// and approval hooks on a goroutine of their own. The person's hooks run as the person; a
// project's run, once approved, through sandbox.Run under the conversation's mode.

// Custom is what one reading of a conversation's commands and skills found.
type Custom = custom.Set

// Command is one custom command; Expand substitutes its arguments.
type Command = custom.Command

// ProjectHooks is what a working directory's hook files offer, and whether they are allowed.
type ProjectHooks = custom.ProjectHooks

// HookEvent names when a hook runs.
type HookEvent = custom.Event

// HookConfig is one hooks file's hooks, by event; its List is what Settings shows, in order.
type HookConfig = custom.Config

// ParseHooks reads the text of a hooks file, as Settings → Hooks lists its hooks.
func ParseHooks(text string) (HookConfig, error) {
	cfg, _, err := custom.ParseConfig([]byte(text))
	return cfg, err
}

// SetHookRunAsMe turns a hook's "runs as me" on or off in the text of the person's hooks
// file (custom.SetRunAsMe).
func SetHookRunAsMe(text string, ev HookEvent, command string, on bool) (string, error) {
	return custom.SetRunAsMe(text, ev, command, on)
}

// auxCustom names the store record that holds a conversation's Custom.
const auxCustom = "custom"

// CustomChanged announces the commands and skills a conversation now uses (after a reload).
type CustomChanged struct {
	ConvID string
	Custom Custom
}

func (e CustomChanged) Conversation() string { return e.ConvID }

// HookRan shows one hook's run in the transcript: what it said, that it refused, failed or
// timed out. Like a Notice it is not part of the history.
type HookRan struct {
	ConvID string
	Result custom.Result
	// Text is the line the transcript shows.
	Text string
}

func (e HookRan) Conversation() string { return e.ConvID }

// toolAliases are other agents' names for our tools, so that a matcher written for Claude
// Code ("Bash", "Edit|Write") or Codex matches the same calls here. TestToolAliasesNameTools
// keeps the keys in the catalogue.
var toolAliases = map[string][]string{
	domain.ToolBash:          {"Bash", "shell"},
	domain.ToolPatch:         {"Edit", "Write", "MultiEdit", "apply_patch"},
	domain.ToolKeywordSearch: {"Grep"},
	domain.ToolReadImage:     {"Read"},
	domain.ToolFetchURL:      {"WebFetch"},
	domain.ToolTodo:          {"TodoWrite", "todowrite"},
}

// readCustom reads the commands and skills for a working directory and announces what it
// skipped.
func (r *Runtime) readCustom(convID, cwd string) Custom {
	set := custom.Load(cwd, r.cfg.PersonalDirs)
	for _, n := range set.Notices {
		r.publish(Notice{ConvID: convID, Level: NoticeWarning, Text: "Commands and skills: " + n})
	}
	return set
}

func (r *Runtime) saveCustom(id string, set Custom) error {
	b, err := json.Marshal(set)
	if err != nil {
		return fmt.Errorf("encode the commands and skills of %s: %w", id, err)
	}
	// Unflushed, as the instructions are (saveInstructions says why).
	if err := r.cfg.Store.PutAuxUnflushed(id, auxCustom, b); err != nil {
		return fmt.Errorf("save the commands and skills of %s: %w", id, err)
	}
	return nil
}

// storedCustom reads what a conversation uses; a sub-agent uses its parent's skills.
func (r *Runtime) storedCustom(c domain.Conversation) (Custom, error) {
	id := c.ID
	if c.IsSubAgent() {
		id = c.ParentID
	}
	b, err := r.cfg.Store.Aux(id, auxCustom)
	if errors.Is(err, persistence.ErrNotFound) {
		return Custom{}, nil
	}
	if err != nil {
		return Custom{}, err
	}
	var set Custom
	if err := json.Unmarshal(b, &set); err != nil {
		return Custom{}, fmt.Errorf("the stored commands and skills of %s do not decode: %w; use Reload instructions", id, err)
	}
	return set, nil
}

// Commands returns the commands and skills a conversation uses (fixed until a reload).
func (r *Runtime) Commands(ctx context.Context, id string) (Custom, error) {
	if err := ctx.Err(); err != nil {
		return Custom{}, err
	}
	c, err := r.cfg.Store.Get(id)
	if err != nil {
		return Custom{}, fmt.Errorf("commands of %s: %w", id, err)
	}
	return r.storedCustom(c)
}

// reloadCustom keeps the commands and skills read again (Reload instructions).
func (r *Runtime) reloadCustom(id string, set Custom) {
	if err := r.saveCustom(id, set); err != nil {
		r.publish(Notice{ConvID: id, Level: NoticeWarning, Text: "Commands and skills were not reloaded: " + err.Error()})
		return
	}
	r.publish(CustomChanged{ConvID: id, Custom: set})
}

// skillsPrompt is the skills section of a conversation's system prompt, "" for none.
func (a *conversationActor) skillsPrompt() string {
	set, err := a.rt.storedCustom(a.conv)
	if err != nil {
		a.rt.log.Warn("skills unavailable for this request", "conversation", a.id, "error", err)
		return ""
	}
	return set.SkillsPrompt()
}

// --- hooks ---------------------------------------------------------------------------------

// HooksFile is the person's hooks file ("" when hooks are off).
func (r *Runtime) HooksFile() string { return r.cfg.Hooks.Path() }

// HooksText is the person's hooks file as written.
func (r *Runtime) HooksText() (string, error) {
	if r.cfg.Hooks == nil {
		return "", errors.New("hooks are off in this session")
	}
	return r.cfg.Hooks.PersonText()
}

// SaveHooks checks and saves the person's hooks file; the next event uses it. Notes say what
// the file holds that cannot be used.
func (r *Runtime) SaveHooks(text string) ([]string, error) {
	if r.cfg.Hooks == nil {
		return nil, errors.New("hooks are off in this session")
	}
	return r.cfg.Hooks.SavePerson(text)
}

// ProjectHooks lists what a working directory's hook files offer, on host ("" for this
// machine: a remote project's are read there, through its agent), and whether the person
// allowed exactly them for that folder on that machine.
func (r *Runtime) ProjectHooks(ctx context.Context, host, cwd string) (ProjectHooks, error) {
	if r.cfg.Hooks == nil {
		return ProjectHooks{Cwd: cwd, Host: host}, errNoHooks
	}
	return r.readProjectHooks(ctx, host, cwd)
}

// AllowProjectHooks records the person's approval of exactly the configuration they were
// shown (its fingerprint) for the folder cwd on host ("" for this machine); a configuration
// changed since — read again, on the host for a remote one — is refused with
// custom.ErrHooksChanged.
func (r *Runtime) AllowProjectHooks(ctx context.Context, host, cwd, fingerprint string) error {
	if r.cfg.Hooks == nil {
		return errNoHooks
	}
	return r.cfg.Hooks.AllowProjectOn(host, cwd, fingerprint, func() (ProjectHooks, error) {
		return r.readProjectHooks(ctx, host, cwd)
	})
}

// runHooks runs the hooks of one event and shows what they did in the conversation's
// transcript. mode is the conversation's, under which project hooks run; host is the
// project's machine, "" for this one: a remote project's hooks run there (hooks_remote.go).
func (r *Runtime) runHooks(ctx context.Context, convID, host string, mode domain.Mode, in custom.Input) custom.Outcome {
	if r.cfg.Hooks == nil {
		return custom.Outcome{}
	}
	in.SessionID, in.PermissionMode = convID, string(mode)
	if in.ToolName != "" && in.ToolAliases == nil {
		in.ToolAliases = toolAliases[in.ToolName]
	}
	rs := custom.Runners{
		Walled:  sandboxHookRunner{rt: r, convID: convID, cwd: in.Cwd, mode: mode, proxy: true},
		Project: sandboxHookRunner{rt: r, convID: convID, cwd: in.Cwd, mode: mode},
		AsMe:    custom.PersonRunner{Dir: in.Cwd, Env: custom.Env(os.Environ(), in.Cwd)},
		Guard:   r.hookGuard(convID, in.Cwd),
	}
	if host != "" {
		rs = r.remoteHookRunners(convID, host, mode, in.Cwd)
	}
	out := r.cfg.Hooks.Run(ctx, in, rs)
	for _, n := range out.Notices {
		r.publish(Notice{ConvID: convID, Level: NoticeWarning, Text: "Hooks: " + n})
	}
	for _, res := range out.Results {
		if line := res.Line(); line != "" {
			r.publish(HookRan{ConvID: convID, Result: res, Text: line})
		}
	}
	return out
}

// sandboxHookRunner runs a hook like the conversation's bash: through sandbox.Run under its
// mode (tools.SandboxPolicy: anything but Project and Unrestricted is the Restricted policy,
// so a mode this code does not know never loosens it), with the event in a file of a private
// temp dir that becomes its stdin (sandbox.Run gives commands /dev/null). The person's own
// hooks reach the hosts the person allowed in Project mode, through the conversation's proxy
// (proxy); an approved project's hooks get no network there: they are the project's code,
// not the person's request.
type sandboxHookRunner struct {
	rt     *Runtime
	convID string
	cwd    string
	mode   domain.Mode
	proxy  bool
}

func (s sandboxHookRunner) Run(ctx context.Context, command string, stdin []byte, stdout, stderr io.Writer) (int, error) {
	// The conversation's own mode, through the one mapping bash uses; a project hook gets no
	// proxy (it is the project's code, not the person's request).
	env := tools.Env{Cwd: s.cwd, Mode: s.mode}
	if s.proxy {
		env = s.rt.withProxy(s.convID, env)
	}
	return tools.RunHook(ctx, env, s.rt.cfg.TempRoot, command, stdin, func(base []string) []string { return custom.Env(base, s.cwd) }, stdout, stderr)
}

// ErrHookRefused wraps the reason a UserPromptSubmit hook refused a message.
var ErrHookRefused = errors.New("a hook refused the message")

// promptHooks runs, on the caller's goroutine (Send), before the message is stored: the
// SessionStart hooks when this is the conversation's first message since the app opened it
// ("startup" for its very first, "resume" otherwise), then the UserPromptSubmit hooks. A
// refusal returns the reason and stores nothing; what hooks add for the model is appended to
// the message, marked, so it stays in the conversation's context as Claude Code keeps it.
func (r *Runtime) promptHooks(ctx context.Context, id, text string) (string, error) {
	if r.cfg.Hooks == nil {
		return text, nil
	}
	conv, err := r.cfg.Store.Get(id)
	if err != nil {
		// An unknown conversation is Send's to report.
		return text, nil
	}
	if _, started := r.sessions.LoadOrStore(id, hookSession{host: conv.Host, cwd: conv.Cwd}); !started && r.hasHooks(custom.SessionStart, conv.Host, conv.Cwd) {
		source := "resume"
		if conv.NextSeq == 0 {
			source = "startup"
		}
		out := r.runHooks(ctx, id, conv.Host, conv.Mode, custom.Input{Cwd: conv.Cwd, HookEventName: custom.SessionStart, Source: source})
		if out.Context != "" {
			text += "\n\n[Added by a hook at the start of the session]\n" + out.Context
		}
	}
	if !r.hasHooks(custom.UserPromptSubmit, conv.Host, conv.Cwd) {
		return text, nil
	}
	out := r.runHooks(ctx, id, conv.Host, conv.Mode, custom.Input{Cwd: conv.Cwd, HookEventName: custom.UserPromptSubmit, Prompt: text})
	if out.Blocked {
		return text, fmt.Errorf("%w: %s", ErrHookRefused, out.Reason)
	}
	if out.Context != "" {
		text += "\n\n[Added by a hook]\n" + out.Context
	}
	return text, nil
}

// callHooks runs the tool hooks of one call on its worker's goroutine: a local tool's
// (toolRunActor) and a remote one's (remoteToolActor) alike.
type callHooks struct {
	rt     *Runtime
	ctx    context.Context
	convID string
	// host is the project's machine ("" for this one); cwd and mode the conversation's.
	host string
	cwd  string
	mode domain.Mode
	call domain.ToolCall
	// aliases are the call's names for hooks, fixed before it runs (tool).
	aliases []string
}

// hooks is the call's tool hooks.
func (w *toolRunActor) hooks() *callHooks {
	if w.callHooks == nil {
		w.callHooks = &callHooks{rt: w.rt, ctx: w.ctx, convID: w.convID, host: w.host, cwd: w.env.Cwd, mode: w.env.Mode, call: w.call}
	}
	return w.callHooks
}

func (w *toolRunActor) preToolHooks() (domain.ToolResult, bool) { return w.hooks().pre() }
func (w *toolRunActor) postToolHooks(res domain.ToolResult) domain.ToolResult {
	return w.hooks().post(res)
}

// tool is the call's names for hooks: other agents' names, the one its author most likely
// used first — for a patch Write when it creates the file, Edit when it changes one (looked
// at once, before the call runs, so PostToolUse names it the same; on the project's host for
// a remote one, Edit when the host cannot say).
func (h *callHooks) tool() []string {
	if h.aliases != nil {
		return h.aliases
	}
	h.aliases = toolAliases[h.call.Name]
	if h.call.Name == domain.ToolPatch {
		if p := patchPath(h.call, h.cwd); p != "" && !h.exists(p) {
			h.aliases = []string{"Write", "Edit", "MultiEdit", "apply_patch"}
		}
	}
	if h.aliases == nil {
		h.aliases = []string{}
	}
	return h.aliases
}

// exists says whether path exists where the project is (an error counts as existing).
func (h *callHooks) exists(path string) bool {
	if h.host == "" {
		_, err := os.Stat(path)
		return !errors.Is(err, fs.ErrNotExist)
	}
	rh, ok := h.rt.cfg.Remote.(RemoteHooks)
	if !ok {
		return true
	}
	ok, err := rh.PathExists(h.ctx, h.host, path)
	return ok || err != nil
}

// pre runs the PreToolUse hooks; refused is a result that tells the model why the call did
// not run.
func (h *callHooks) pre() (domain.ToolResult, bool) {
	if !h.rt.hasHooks(custom.PreToolUse, h.host, h.cwd) {
		return domain.ToolResult{}, false
	}
	out := h.rt.runHooks(h.ctx, h.convID, h.host, h.mode, custom.Input{Cwd: h.cwd, HookEventName: custom.PreToolUse,
		ToolName: h.call.Name, ToolAliases: h.tool(), ToolUseID: h.call.ID, ToolInput: toolInput(h.call, h.cwd)})
	if !out.Blocked {
		return domain.ToolResult{}, false
	}
	return domain.ToolResult{CallID: h.call.ID, Name: h.call.Name, Outcome: domain.OutcomeError,
		Content: "A hook the person set up refused this call, so it did not run: " + out.Reason +
			"\nDo not retry it as it is; take another approach or ask the person."}, true
}

// post runs the PostToolUse hooks with the result, or the PostToolUseFailure hooks with the
// error of a call that failed; what they say for the model is added to the result's content.
func (h *callHooks) post(res domain.ToolResult) domain.ToolResult {
	ev := custom.PostToolUse
	if res.Outcome == domain.OutcomeError {
		ev = custom.PostToolUseFailure
	}
	if res.Outcome == domain.OutcomeCancelled || !h.rt.hasHooks(ev, h.host, h.cwd) {
		return res
	}
	in := custom.Input{Cwd: h.cwd, HookEventName: ev, ToolName: h.call.Name, ToolAliases: h.tool(),
		ToolUseID: h.call.ID, ToolInput: toolInput(h.call, h.cwd)}
	if ev == custom.PostToolUseFailure {
		in.Error = res.Content
	} else {
		in.ToolResponse, _ = json.Marshal(map[string]any{"outcome": res.Outcome, "content": res.Content})
	}
	out := h.rt.runHooks(h.ctx, h.convID, h.host, h.mode, in)
	if out.Blocked {
		res.Content += "\n\n[A hook the person set up says about this result]\n" + out.Reason
	}
	if out.Context != "" {
		res.Content += "\n\n[Added by a hook]\n" + out.Context
	}
	return res
}

// patchPath is the absolute path a patch call names ("" when it names none).
func patchPath(call domain.ToolCall, cwd string) string {
	var args struct {
		Path string `json:"path"`
	}
	if json.Unmarshal([]byte(call.Arguments), &args) != nil || args.Path == "" {
		return ""
	}
	if !filepath.IsAbs(args.Path) {
		return filepath.Join(cwd, args.Path)
	}
	return filepath.Clean(args.Path)
}

// toolInput is the call's arguments as hooks see them; a patch also names its file as
// Claude Code's Edit and Write do (file_path, absolute), so that hooks written for them find
// it.
func toolInput(call domain.ToolCall, cwd string) json.RawMessage {
	raw := json.RawMessage(call.Arguments)
	if !json.Valid(raw) {
		b, _ := json.Marshal(map[string]string{"raw": call.Arguments})
		return b
	}
	if call.Name == domain.ToolPatch {
		var m map[string]any
		if json.Unmarshal(raw, &m) == nil {
			if p := patchPath(call, cwd); p != "" {
				if _, has := m["file_path"]; !has {
					m["file_path"] = p
					if b, err := json.Marshal(m); err == nil {
						return b
					}
				}
			}
		}
	}
	return raw
}

// turnHooks runs the Stop hooks (SubagentStop for a sub-agent) when a turn has come to rest,
// on a goroutine of its own (the actor's mailbox never waits for a hook). A hook is told;
// Phoenix Desktop does not start another turn for it.
func (a *conversationActor) turnHooks(was domain.State) {
	if a.rt.cfg.Hooks == nil || !domain.Busy(was) || domain.Busy(a.conv.State) {
		return
	}
	conv, f, ev := a.conv, false, custom.Stop
	if conv.IsSubAgent() {
		ev = custom.SubagentStop
	}
	a.rt.goHooks(func(ctx context.Context) {
		if conv.IsSubAgent() {
			// A sub-agent's end belongs to its parent's session, as in Claude Code: the
			// hook gets the parent's id and runs under the parent's walls.
			parent, err := a.rt.cfg.Store.Get(conv.ParentID)
			if err != nil {
				return
			}
			conv = parent
		}
		if a.rt.hasHooks(ev, conv.Host, conv.Cwd) {
			a.rt.runHooks(ctx, conv.ID, conv.Host, conv.Mode, custom.Input{Cwd: conv.Cwd, HookEventName: ev, StopHookActive: &f})
		}
	})
}

// compactHooks returns what runs the PreCompact hooks before the continuation summary's
// request (on its worker's goroutine, which waits for them: the summary is written after);
// nil without hooks.
func (a *conversationActor) compactHooks() func(context.Context) {
	trigger := a.compactTrigger
	a.compactTrigger = ""
	if a.rt.cfg.Hooks == nil {
		return nil
	}
	if trigger == "" {
		trigger = "auto"
	}
	conv := a.conv
	return func(ctx context.Context) {
		if a.rt.hasHooks(custom.PreCompact, conv.Host, conv.Cwd) {
			a.rt.runHooks(ctx, conv.ID, conv.Host, conv.Mode, custom.Input{Cwd: conv.Cwd, HookEventName: custom.PreCompact, Trigger: trigger})
		}
	}
}

// sessionEndHooks runs the SessionEnd hooks of a conversation whose session started in this
// process: "clear" when it is deleted, "other" when the app closes. It waits for them, at
// most endHookWait.
func (r *Runtime) sessionEndHooks(id, reason string) {
	v, started := r.sessions.LoadAndDelete(id)
	if r.cfg.Hooks == nil || !started {
		return
	}
	// Where the session started: a deleted conversation is no longer in the store to say.
	sess := v.(hookSession)
	if !r.hasHooks(custom.SessionEnd, sess.host, sess.cwd) {
		return
	}
	mode := domain.ModeRestricted
	if c, err := r.cfg.Store.Get(id); err == nil {
		mode = c.Mode
	}
	ctx, cancel := context.WithTimeout(context.Background(), endHookWait)
	defer cancel()
	r.runHooks(ctx, id, sess.host, mode, custom.Input{Cwd: sess.cwd, HookEventName: custom.SessionEnd, Reason: reason})
}

// endHookWait bounds how long closing the app or deleting a conversation waits for its
// SessionEnd hooks.
const endHookWait = 10 * time.Second

// approvalHooks runs the PermissionRequest hooks when the agent asks for approval.
func (a *conversationActor) approvalHooks(reason string) {
	if a.rt.cfg.Hooks == nil {
		return
	}
	conv := a.conv
	a.rt.goHooks(func(ctx context.Context) {
		if a.rt.hasHooks(custom.PermissionRequest, conv.Host, conv.Cwd) {
			a.rt.runHooks(ctx, conv.ID, conv.Host, conv.Mode, custom.Input{Cwd: conv.Cwd, HookEventName: custom.PermissionRequest,
				ToolName: domain.ToolRequestModeUpgrade, Message: reason})
		}
	})
}

// goHooks runs hooks that belong to no call in the background; Shutdown cancels and waits.
// Only conversation actors call it, and Shutdown waits for bg only after every actor has
// stopped, so Add never races Wait.
func (r *Runtime) goHooks(f func(ctx context.Context)) {
	r.bg.Add(1)
	r.hookRuns.Add(1)
	go func() {
		defer r.bg.Done()
		defer r.hookRuns.Done()
		f(r.bgCtx)
	}()
}

// waitHooks waits for the hooks goHooks started, at most endHookWait: a Stop hook that
// logs or notifies finishes when the app closes right after the turn (headless chat).
func (r *Runtime) waitHooks() {
	done := make(chan struct{})
	go func() {
		r.hookRuns.Wait()
		close(done)
	}()
	t := time.NewTimer(endHookWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		r.log.Warn("hooks were still running when the app closed; they are stopped")
	}
}
