package custom

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
)

// Input is the event a hook gets on stdin, in Claude Code's field names.
type Input struct {
	SessionID     string `json:"session_id"`
	Cwd           string `json:"cwd"`
	HookEventName Event  `json:"hook_event_name"`
	// PermissionMode is the conversation's mode (Restricted, Unrestricted…).
	PermissionMode string          `json:"permission_mode,omitempty"`
	ToolName       string          `json:"tool_name,omitempty"`
	ToolInput      json.RawMessage `json:"tool_input,omitempty"`
	ToolResponse   json.RawMessage `json:"tool_response,omitempty"`
	Prompt         string          `json:"prompt,omitempty"`
	// Message is what the agent asks approval for (PermissionRequest).
	Message string `json:"message,omitempty"`
	// StopHookActive is false: Phoenix Desktop does not continue a turn for a Stop or
	// SubagentStop hook.
	StopHookActive *bool `json:"stop_hook_active,omitempty"`
	// ToolUseID is the call's id (the tool events).
	ToolUseID string `json:"tool_use_id,omitempty"`
	// Error is a failed call's result (PostToolUseFailure); IsInterrupt says the person
	// stopped it.
	Error       string `json:"error,omitempty"`
	IsInterrupt bool   `json:"is_interrupt,omitempty"`
	// Source is why a session starts (SessionStart): "startup" or "resume".
	Source string `json:"source,omitempty"`
	// Reason is why a session ends (SessionEnd): "clear" (deleted) or "other".
	Reason string `json:"reason,omitempty"`
	// Trigger is what asked for a summary (PreCompact): "auto" or "manual";
	// CustomInstructions what the person asked it to keep.
	Trigger            string `json:"trigger,omitempty"`
	CustomInstructions string `json:"custom_instructions,omitempty"`

	// ToolAliases are other agents' names for the tool, which matchers also match (not sent).
	ToolAliases []string `json:"-"`
}

// Runner runs one hook command (bash -c) with the event on its stdin, in the working
// directory, and returns its exit status; ctx's end kills it and its processes.
type Runner interface {
	Run(ctx context.Context, command string, stdin []byte, stdout, stderr io.Writer) (int, error)
}

// Runners are what Run runs hooks with.
type Runners struct {
	// Walled runs a hook under the conversation's walls: the person's hooks unless marked
	// runAsMe, and the approved project's always.
	Walled Runner
	// Project runs an approved project's hooks, under the walls too (nil: Walled).
	Project Runner
	// AsMe runs a person's runAsMe hook as the person, outside the walls.
	AsMe Runner
	// Guard, when set, says why a runAsMe hook must not run now (Baseline.Check); the hook
	// is then not run and its result says why.
	Guard func(command string) error
	// Host, when set, is the machine the project is on: its hooks are read and run there,
	// by OnHost, never from this machine's disk; Walled, AsMe and Guard run the person's.
	Host string
	// OnHost runs, on Host, the hooks of the project's folder there for the event, but only
	// if the files there still hold the configuration whose fingerprint is approved ("" when
	// none is: nothing runs); it returns what the files there hold and the hooks' results.
	OnHost func(ctx context.Context, in Input, approved string) (ProjectHooks, []Result, error)
}

// Result is one hook's run.
type Result struct {
	Event   Event  `json:"event"`
	Command string `json:"command"`
	Project bool   `json:"project,omitempty"`
	// AsMe says the hook ran (or would have run) as the person, outside the walls.
	AsMe   bool   `json:"as_me,omitempty"`
	Exit   int    `json:"exit"`
	Stdout string `json:"stdout,omitempty"`
	Stderr string `json:"stderr,omitempty"`
	// TimedOut says the hook was killed at its timeout.
	TimedOut bool          `json:"timed_out,omitempty"`
	Timeout  time.Duration `json:"timeout,omitempty"`
	// Err says why the hook could not run at all.
	Err     string `json:"error,omitempty"`
	Blocked bool   `json:"blocked,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// Context is what the hook adds for the model; SystemMessage what it says to the person.
	Context       string `json:"context,omitempty"`
	SystemMessage string `json:"system_message,omitempty"`
	// Quiet is the hook's suppressOutput: its stdout is not shown.
	Quiet bool `json:"quiet,omitempty"`
}

// Outcome is what the hooks of one event said together.
type Outcome struct {
	Results []Result
	// Blocked is set when any hook refused; Reason joins their reasons.
	Blocked bool
	Reason  string
	// Context is what the hooks add for the model.
	Context string
	// Notices are problems with the configuration, each told once per process.
	Notices []string
}

// Ran reports whether any hook ran.
func (o Outcome) Ran() bool { return len(o.Results) > 0 }

// Line is how a hook's run is shown in the transcript: "" when there is nothing to show (it
// succeeded quietly).
func (r Result) Line() string {
	who := "hook"
	switch {
	case r.Project:
		who = "project hook"
	case r.AsMe:
		who = "hook (runs as you)"
	}
	head := fmt.Sprintf("%s %s `%s`", r.Event, who, shorten(r.Command, 80))
	out := strings.TrimSpace(r.Stdout)
	if r.Quiet || r.Context != "" && out == r.Context {
		out = ""
	}
	if errText := strings.TrimSpace(r.Stderr); errText != "" {
		out = strings.TrimSpace(out + "\n" + errText)
	}
	switch {
	case r.Err != "":
		return fmt.Sprintf("%s could not run: %s", head, r.Err)
	case r.TimedOut:
		return fmt.Sprintf("%s was stopped after its %s timeout; the turn goes on.%s", head, r.Timeout, tail(out))
	case r.Blocked:
		return fmt.Sprintf("%s refused: %s", head, r.Reason)
	case r.Exit != 0:
		return fmt.Sprintf("%s failed (exit status %d); the turn goes on.%s", head, r.Exit, tail(out))
	case r.SystemMessage != "":
		return fmt.Sprintf("%s: %s%s", head, r.SystemMessage, tail(out))
	case out != "":
		return head + ":" + tail(out)
	}
	return ""
}

func tail(s string) string {
	if s == "" {
		return ""
	}
	return "\n" + shorten(s, 2000)
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// answer is the optional JSON a hook prints: Claude Code's fields, which Codex shares.
type answer struct {
	Continue           *bool  `json:"continue"`
	StopReason         string `json:"stopReason"`
	SuppressOutput     bool   `json:"suppressOutput"`
	SystemMessage      string `json:"systemMessage"`
	Decision           string `json:"decision"`
	Reason             string `json:"reason"`
	HookSpecificOutput struct {
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
		AdditionalContext        string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// plainContext are the events whose plain stdout (exit status 0, not JSON) is context for
// the model, as in Claude Code; other events' stdout is only shown.
var plainContext = []Event{UserPromptSubmit, SessionStart}

// match is one hook to run for an event.
type match struct {
	hook    Hook
	project bool
	// tool is the tool's name the group's matcher matched, which the hook is given as
	// tool_name ("" for events without a tool).
	tool string
}

// asMe says the hook runs outside the walls: only the person's own may.
func (m match) asMe() bool { return m.hook.RunAsMe && !m.project }

func (h *Hooks) tell(notes []string, key string) []string {
	var out []string
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, n := range notes {
		if !h.told[key+"\x00"+n] {
			h.told[key+"\x00"+n] = true
			out = append(out, n)
		}
	}
	return out
}

// plan lists the hooks that run for the input: the person's, then the project's if allowed;
// a project on another host (host != "") is left to its host.
func (h *Hooks) plan(in Input, host string) (ms []match, notes []string) {
	person, pn := h.Person()
	notes = append(notes, pn...)
	ms = planOf(in, person, false)
	if host != "" {
		return ms, notes
	}
	proj := h.Project(in.Cwd)
	notes = append(notes, projectNotes(proj)...)
	if proj.Allowed {
		ms = append(ms, planOf(in, proj.Config, true)...)
	}
	return ms, notes
}

// planOf lists the hooks of one configuration that run for the input.
func planOf(in Input, cfg Config, project bool) (ms []match) {
	names, matched := matchedBy(in)
	for _, g := range cfg.Hooks[in.HookEventName] {
		tool := ""
		if matched {
			m, err := compileMatcher(g.Matcher)
			if err != nil {
				continue
			}
			name, ok := m(names)
			if !ok {
				continue
			}
			if in.ToolName != "" {
				tool = name
			}
		}
		for _, hk := range g.Hooks {
			ms = append(ms, match{hook: hk, project: project, tool: tool})
		}
	}
	return ms
}

// projectNotes are what the person is told of a project's hooks: what its files hold that
// cannot be used, and that they wait for an approval.
func projectNotes(proj ProjectHooks) []string {
	var notes []string
	for _, n := range proj.Notices {
		notes = append(notes, "Project hooks: "+n)
	}
	if len(proj.Files) > 0 && !proj.Allowed {
		where, allow := "", "phoenix-desktop hooks allow --cwd "+proj.Cwd
		if proj.Host != "" {
			where, allow = " on "+proj.Host, "phoenix-desktop hooks allow --remote "+proj.Host+" --cwd "+proj.Cwd
		}
		notes = append(notes, fmt.Sprintf("This project%s has hooks (%s) that do not run until you allow them: look at them in Settings → Hooks, or run %s.",
			where, strings.Join(proj.Files, ", "), allow))
	}
	return notes
}

// HasPerson reports whether the person's own hooks have any for the event.
func (h *Hooks) HasPerson(ev Event) bool {
	if h == nil {
		return false
	}
	person, _ := h.Person()
	return len(person.Hooks[ev]) > 0
}

// Has reports whether any hook (the person's or the allowed project's) is configured for
// the event in cwd, without running one; callers skip building the input otherwise.
func (h *Hooks) Has(ev Event, cwd string) bool {
	if h == nil {
		return false
	}
	if h.HasPerson(ev) {
		return true
	}
	proj := h.Project(cwd)
	return len(proj.Files) > 0
}

// Run runs the hooks configured for the input's event, at once (as Claude Code and Codex do),
// under the conversation's walls (rs.Walled) but for the person's runAsMe hooks (rs.AsMe,
// once rs.Guard allows), and gathers what they said. A project on another machine (rs.Host)
// has its hooks run there (rs.OnHost), beside the person's here. A hook that fails, is
// refused or times out does not stop the others, nor the turn.
func (h *Hooks) Run(ctx context.Context, in Input, rs Runners) Outcome {
	if h == nil {
		return Outcome{}
	}
	ms, notes := h.plan(in, rs.Host)
	out := Outcome{Notices: notes}
	var hostResults []Result
	hostDone := make(chan []string, 1)
	if rs.Host != "" && rs.OnHost != nil {
		go func() {
			proj, results, err := rs.OnHost(ctx, in, h.Approved(rs.Host, in.Cwd))
			proj = h.Judge(rs.Host, proj)
			if err != nil {
				results = []Result{{Event: in.HookEventName, Command: "(the project's hooks on " + rs.Host + ")", Project: true, Err: err.Error()}}
			}
			hostResults = results
			hostDone <- projectNotes(proj)
		}()
	} else {
		hostDone <- nil
	}
	results := runAll(ctx, in, ms, func(m match) (Runner, error) {
		if m.asMe() {
			if rs.Guard != nil {
				if err := rs.Guard(m.hook.Command); err != nil {
					return nil, err
				}
			}
			return rs.AsMe, nil
		}
		if m.project && rs.Project != nil {
			return rs.Project, nil
		}
		return rs.Walled, nil
	})
	out.Notices = append(out.Notices, <-hostDone...)
	out.Notices = h.tell(out.Notices, rs.Host+"\x00"+in.Cwd)
	out.Results = append(results, hostResults...)
	if len(out.Results) == 0 {
		out.Results = nil
	}
	var reasons, contexts []string
	for _, r := range out.Results {
		if r.Blocked {
			out.Blocked = true
			reasons = append(reasons, r.Reason)
		}
		if r.Context != "" {
			contexts = append(contexts, r.Context)
		}
	}
	out.Reason = strings.Join(reasons, "\n")
	out.Context = strings.Join(contexts, "\n")
	return out
}

// input is the event as the hook gets it on stdin: one line of JSON, so that a shell's `read`
// gets it whole, naming the tool as the hook's matcher matched it.
func (m match) input(in Input) ([]byte, error) {
	if m.tool != "" {
		in.ToolName = m.tool
	}
	stdin, err := json.Marshal(in)
	if err != nil {
		return nil, errors.New("the event does not encode: " + err.Error())
	}
	return append(stdin, '\n'), nil
}

// RunProject runs the hooks of a project's configuration for the input with r, at once, and
// returns their results: what a remote project's agent does on its host once the files there
// hold exactly the approved configuration (the caller checks that; this runs what it is given).
func RunProject(ctx context.Context, in Input, proj ProjectHooks, r Runner) []Result {
	return runAll(ctx, in, planOf(in, proj.Config, true), func(match) (Runner, error) { return r, nil })
}

// runAll runs the matched hooks at once, each with the runner runnerOf gives it, and returns
// their results in order; a hook refused its runner, or whose event does not encode, does
// not run and its result says why.
func runAll(ctx context.Context, in Input, ms []match, runnerOf func(match) (Runner, error)) []Result {
	results := make([]Result, len(ms))
	var wg sync.WaitGroup
	for i, m := range ms {
		r, err := runnerOf(m)
		var stdin []byte
		if err == nil {
			stdin, err = m.input(in)
		}
		if err != nil {
			results[i] = Result{Event: in.HookEventName, Command: m.hook.Command, Project: m.project, AsMe: m.asMe(), Err: err.Error()}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = runOne(ctx, r, m, in.HookEventName, stdin)
		}()
	}
	wg.Wait()
	return results
}

func runOne(ctx context.Context, r Runner, m match, ev Event, stdin []byte) Result {
	res := Result{Event: ev, Command: m.hook.Command, Project: m.project, AsMe: m.asMe(), Timeout: m.hook.timeout()}
	if r == nil {
		res.Err = "there is nothing to run it with"
		return res
	}
	runCtx, cancel := context.WithTimeout(ctx, res.Timeout)
	defer cancel()
	stdout, stderr := &capped{max: MaxHookOutput}, &capped{max: MaxHookOutput}
	code, err := r.Run(runCtx, m.hook.Command, stdin, stdout, stderr)
	res.Exit, res.Stdout, res.Stderr = code, stdout.String(), stderr.String()
	switch {
	case ctx.Err() != nil:
		res.Err = "the turn was stopped"
		return res
	case errors.Is(runCtx.Err(), context.DeadlineExceeded):
		res.TimedOut = true
		return res
	case err != nil:
		res.Err = err.Error()
		return res
	}
	if code == BlockExitCode {
		res.Blocked = true
		res.Reason = strings.TrimSpace(res.Stderr)
		if res.Reason == "" {
			res.Reason = strings.TrimSpace(res.Stdout)
		}
		if res.Reason == "" {
			res.Reason = "(the hook gave no reason)"
		}
		return res
	}
	if code != 0 {
		return res
	}
	trimmed := bytes.TrimSpace([]byte(res.Stdout))
	var a answer
	if len(trimmed) > 0 && trimmed[0] == '{' && json.Unmarshal(trimmed, &a) == nil {
		res.Quiet, res.SystemMessage = a.SuppressOutput, a.SystemMessage
		hs := a.HookSpecificOutput
		switch {
		case a.Continue != nil && !*a.Continue:
			res.Blocked, res.Reason = true, firstOf(a.StopReason, a.Reason, "the hook said not to continue")
		case a.Decision == "block" || a.Decision == "deny" || hs.PermissionDecision == "deny":
			res.Blocked, res.Reason = true, firstOf(hs.PermissionDecisionReason, a.Reason, "(the hook gave no reason)")
		}
		res.Context = strings.TrimSpace(hs.AdditionalContext)
		res.Quiet = true // the JSON itself is an answer, not output to show
		return res
	}
	if slices.Contains(plainContext, ev) {
		// Claude Code adds a prompt or session-start hook's plain output as context.
		res.Context = string(trimmed)
	}
	return res
}

func firstOf(s ...string) string {
	for _, x := range s {
		if strings.TrimSpace(x) != "" {
			return strings.TrimSpace(x)
		}
	}
	return ""
}

// capped keeps the first max bytes written and counts the rest.
type capped struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	max   int
	extra int
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	room := c.max - c.buf.Len()
	if room >= len(p) {
		c.buf.Write(p)
	} else {
		if room > 0 {
			c.buf.Write(p[:room])
		}
		c.extra += len(p) - max(room, 0)
	}
	return len(p), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.extra > 0 {
		return c.buf.String() + fmt.Sprintf("\n[%d more bytes were cut]", c.extra)
	}
	return c.buf.String()
}
