package custom

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Event is when a hook runs. The names are Claude Code's, which Codex and crush share.
type Event string

const (
	// PreToolUse runs before a tool call; a hook may refuse the call with a reason the model
	// sees.
	PreToolUse Event = "PreToolUse"
	// PostToolUse runs after a tool call with its result; what a hook says back reaches the
	// model beside the result.
	PostToolUse Event = "PostToolUse"
	// UserPromptSubmit runs when the person sends a message; a hook may refuse it or add
	// context to it.
	UserPromptSubmit Event = "UserPromptSubmit"
	// Stop runs when a turn ends.
	Stop Event = "Stop"
	// PermissionRequest runs when the agent asks the person for approval (a mode upgrade).
	// A hook is told, it cannot decide: only the person's click upgrades.
	PermissionRequest Event = "PermissionRequest"
)

// Events are the events hooks can be configured for, in the order Settings lists them.
var Events = []Event{PreToolUse, PostToolUse, UserPromptSubmit, Stop, PermissionRequest}

// eventAliases are other agents' names for the same events (crush's and older Codex's
// snake_case, Claude Code's Notification, which fires when it asks for permission).
var eventAliases = map[string]Event{
	"pre_tool_use": PreToolUse, "post_tool_use": PostToolUse, "user_prompt_submit": UserPromptSubmit,
	"stop": Stop, "permission_request": PermissionRequest, "Notification": PermissionRequest,
	"notification": PermissionRequest,
}

// Hook timeouts, in seconds: the default where a hook names none (Claude Code's), and the
// most one may ask for.
const (
	DefaultHookTimeout = 60
	MaxHookTimeout     = 600
	// MaxHookOutput caps what is kept of each of a hook's output streams.
	MaxHookOutput = 16 << 10
	// BlockExitCode is the exit status with which a hook refuses (Claude Code's).
	BlockExitCode = 2
)

// Hook is one command to run.
type Hook struct {
	// Type is "command" (or empty); Claude Code's "prompt" hooks are not supported.
	Type    string `json:"type,omitempty"`
	Command string `json:"command"`
	// Timeout is in seconds (Claude Code, Codex); TimeoutMs in milliseconds (older Codex).
	Timeout   float64 `json:"timeout,omitempty"`
	TimeoutMs int     `json:"timeout_ms,omitempty"`
}

// Group is a matcher and the hooks it runs.
type Group struct {
	// Matcher selects tool calls by tool name for PreToolUse and PostToolUse: empty or "*"
	// matches every call; names of letters, digits and '_' joined by '|' match exactly; anything
	// else is a regular expression (unanchored). Other events ignore it.
	Matcher string `json:"matcher,omitempty"`
	Hooks   []Hook `json:"hooks"`
}

// Config is one file's hooks, by event.
type Config struct {
	Hooks map[Event][]Group `json:"hooks,omitempty"`
}

// Count is how many hooks the configuration has.
func (c Config) Count() int {
	n := 0
	for _, gs := range c.Hooks {
		for _, g := range gs {
			n += len(g.Hooks)
		}
	}
	return n
}

// Timeout is the hook's timeout.
func (h Hook) timeout() time.Duration {
	d := time.Duration(DefaultHookTimeout) * time.Second
	switch {
	case h.Timeout > 0:
		d = time.Duration(h.Timeout * float64(time.Second))
	case h.TimeoutMs > 0:
		d = time.Duration(h.TimeoutMs) * time.Millisecond
	}
	return min(d, time.Duration(MaxHookTimeout)*time.Second)
}

// ParseConfig reads a hooks file: {"hooks": {EVENT: [GROUP…]}} where a GROUP is {"matcher",
// "hooks": [HOOK…]} or, as in Codex's flat files, a HOOK itself. Other top-level keys (the rest
// of .claude/settings.json) are ignored. What cannot be used is left out with a notice; only
// a file that is not a JSON object fails.
func ParseConfig(data []byte) (Config, []string, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return Config{}, nil, fmt.Errorf("it is not a JSON object: %v", err)
	}
	var notes []string
	cfg := Config{Hooks: map[Event][]Group{}}
	raw, ok := top["hooks"]
	if !ok || string(raw) == "null" {
		return cfg, nil, nil
	}
	var events map[string]json.RawMessage
	if err := json.Unmarshal(raw, &events); err != nil {
		return Config{}, nil, fmt.Errorf(`"hooks" is not an object of events: %v`, err)
	}
	names := make([]string, 0, len(events))
	for k := range events {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		ev, ok := eventAliases[name]
		if !ok {
			ev = Event(name)
		}
		if !slices.Contains(Events, ev) {
			notes = append(notes, fmt.Sprintf("the event %q is not one Phoenix Desktop runs hooks for (%s); its hooks are ignored", name, eventList()))
			continue
		}
		var items []json.RawMessage
		if err := json.Unmarshal(events[name], &items); err != nil {
			// One group given as an object rather than a list.
			items = []json.RawMessage{events[name]}
		}
		for i, item := range items {
			g, err := parseGroup(item)
			if err != nil {
				notes = append(notes, fmt.Sprintf("%s entry %d is ignored: %v", name, i+1, err))
				continue
			}
			var kept []Hook
			for j, h := range g.Hooks {
				switch {
				case h.Type != "" && h.Type != "command":
					notes = append(notes, fmt.Sprintf("%s entry %d hook %d is ignored: only \"command\" hooks are supported, not %q", name, i+1, j+1, h.Type))
				case strings.TrimSpace(h.Command) == "":
					notes = append(notes, fmt.Sprintf("%s entry %d hook %d is ignored: it has no \"command\"", name, i+1, j+1))
				case h.Timeout < 0 || h.TimeoutMs < 0:
					notes = append(notes, fmt.Sprintf("%s entry %d hook %d is ignored: its timeout is negative", name, i+1, j+1))
				default:
					kept = append(kept, h)
				}
			}
			if _, err := compileMatcher(g.Matcher); err != nil {
				notes = append(notes, fmt.Sprintf("%s entry %d is ignored: its matcher %q is not a valid pattern: %v", name, i+1, g.Matcher, err))
				continue
			}
			if len(kept) > 0 {
				g.Hooks = kept
				cfg.Hooks[ev] = append(cfg.Hooks[ev], g)
			}
		}
	}
	return cfg, notes, nil
}

func eventList() string {
	s := make([]string, len(Events))
	for i, e := range Events {
		s[i] = string(e)
	}
	return strings.Join(s, ", ")
}

func parseGroup(item json.RawMessage) (Group, error) {
	var g struct {
		Matcher *string         `json:"matcher"`
		Hooks   json.RawMessage `json:"hooks"`
		Hook
	}
	if err := json.Unmarshal(item, &g); err != nil {
		return Group{}, fmt.Errorf("it is not an object with \"hooks\": %v", err)
	}
	out := Group{}
	if g.Matcher != nil {
		out.Matcher = *g.Matcher
	}
	if len(g.Hooks) > 0 {
		if err := json.Unmarshal(g.Hooks, &out.Hooks); err != nil {
			return Group{}, fmt.Errorf("its \"hooks\" is not a list of hooks: %v", err)
		}
		return out, nil
	}
	if g.Command != "" {
		out.Hooks = []Hook{g.Hook}
		return out, nil
	}
	return Group{}, errors.New("it has neither \"hooks\" nor \"command\"")
}

var exactMatcher = regexp.MustCompile(`^[A-Za-z0-9_|]+$`)

// compileMatcher returns a function that says whether a tool (by any of its names) matches.
func compileMatcher(m string) (func(names []string) bool, error) {
	m = strings.TrimSpace(m)
	if m == "" || m == "*" {
		return func([]string) bool { return true }, nil
	}
	if exactMatcher.MatchString(m) {
		want := strings.Split(m, "|")
		return func(names []string) bool {
			for _, n := range names {
				if slices.Contains(want, n) {
					return true
				}
			}
			return false
		}, nil
	}
	re, err := regexp.Compile(m)
	if err != nil {
		return nil, err
	}
	return func(names []string) bool { return slices.ContainsFunc(names, re.MatchString) }, nil
}

// ProjectHookFiles are the files a project's hooks are read from, relative to the working
// directory: ours, Claude Code's settings (its "hooks" key), Codex's.
var ProjectHookFiles = []string{".phoenix/hooks.json", ".claude/settings.json", ".codex/hooks.json"}

// PersonHooksFile is the name of the person's hooks file in the configuration directory.
const PersonHooksFile = "hooks.json"

// approvalsFile records the project hooks the person approved, in the configuration directory.
const approvalsFile = "hooks-approved.json"

// ProjectHooks is what a working directory's files offer.
type ProjectHooks struct {
	Cwd string `json:"cwd"`
	// Files are the files that hold hooks; Config is all of them together.
	Files  []string `json:"files,omitempty"`
	Config Config   `json:"config"`
	// Fingerprint identifies this exact configuration; an approval is for one fingerprint.
	Fingerprint string   `json:"fingerprint,omitempty"`
	Allowed     bool     `json:"allowed"`
	Notices     []string `json:"notices,omitempty"`
}

// Hooks holds the person's hooks file and the project hooks they approved. Every run reads
// the files again (they are small), so an edit applies from the next event on and a changed
// project configuration stops running until it is approved again.
type Hooks struct {
	configDir string
	mu        sync.Mutex
	told      map[string]bool
}

// OpenHooks uses the configuration directory (instructions.ConfigDir); "" means the person
// has no hooks and no project hook can be approved.
func OpenHooks(configDir string) *Hooks {
	return &Hooks{configDir: configDir, told: map[string]bool{}}
}

// Path is the person's hooks file ("" without a configuration directory).
func (h *Hooks) Path() string {
	if h == nil || h.configDir == "" {
		return ""
	}
	return filepath.Join(h.configDir, PersonHooksFile)
}

// Person reads the person's hooks. A missing file is no hooks; a file that cannot be used
// is no hooks with a notice.
func (h *Hooks) Person() (Config, []string) {
	path := h.Path()
	if path == "" {
		return Config{}, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Config{}, nil
	}
	if err != nil {
		return Config{}, []string{fmt.Sprintf("your hooks in %s were not used: %v", path, err)}
	}
	cfg, notes, err := ParseConfig(b)
	if err != nil {
		return Config{}, []string{fmt.Sprintf("your hooks in %s were not used: %v; fix the file or edit it in Settings → Hooks", path, err)}
	}
	for i, n := range notes {
		notes[i] = path + ": " + n
	}
	return cfg, notes
}

// PersonText is the person's hooks file as written ("" when there is none).
func (h *Hooks) PersonText() (string, error) {
	path := h.Path()
	if path == "" {
		return "", errors.New("there is no configuration directory (set HOME or XDG_CONFIG_HOME)")
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	return string(b), err
}

// SavePerson checks and saves the person's hooks file. Text that is not a hooks file is
// refused with the reason and nothing is written; what a file holds that cannot be used is
// returned as notes (the file is saved as written).
func (h *Hooks) SavePerson(text string) ([]string, error) {
	path := h.Path()
	if path == "" {
		return nil, errors.New("there is no configuration directory (set HOME or XDG_CONFIG_HOME)")
	}
	if strings.TrimSpace(text) == "" {
		text = `{"hooks": {}}`
	}
	_, notes, err := ParseConfig([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("the hooks were not saved: %v", err)
	}
	if err := writeFileAtomic(path, []byte(text)); err != nil {
		return nil, fmt.Errorf("save %s: %w", path, err)
	}
	return notes, nil
}

func writeFileAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Project reads the hooks a working directory's files offer and whether the person approved
// exactly them.
func (h *Hooks) Project(cwd string) ProjectHooks {
	p := ProjectHooks{Cwd: cwd, Config: Config{Hooks: map[Event][]Group{}}}
	if cwd == "" {
		return p
	}
	for _, rel := range ProjectHookFiles {
		path := filepath.Join(cwd, rel)
		b, err := readText(path, 1<<20, true)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			continue
		}
		if err != nil {
			p.Notices = append(p.Notices, fmt.Sprintf("%s was skipped: %v", rel, err))
			continue
		}
		cfg, notes, err := ParseConfig([]byte(b))
		if err != nil {
			p.Notices = append(p.Notices, fmt.Sprintf("%s was skipped: %v", rel, err))
			continue
		}
		for _, n := range notes {
			p.Notices = append(p.Notices, rel+": "+n)
		}
		if cfg.Count() == 0 {
			continue
		}
		p.Files = append(p.Files, rel)
		for _, ev := range Events {
			p.Config.Hooks[ev] = append(p.Config.Hooks[ev], cfg.Hooks[ev]...)
		}
	}
	if len(p.Files) == 0 {
		return p
	}
	for ev, gs := range p.Config.Hooks {
		if len(gs) == 0 {
			delete(p.Config.Hooks, ev)
		}
	}
	canon, _ := json.Marshal(struct {
		Files  []string
		Config Config
	}{p.Files, p.Config})
	sum := sha256.Sum256(canon)
	p.Fingerprint = hex.EncodeToString(sum[:])
	if h != nil && h.configDir != "" {
		approved, _ := h.readApprovals()
		p.Allowed = approved[cwd] == p.Fingerprint
	}
	return p
}

type approvals struct {
	Projects map[string]string `json:"projects"`
}

func (h *Hooks) readApprovals() (map[string]string, error) {
	b, err := os.ReadFile(filepath.Join(h.configDir, approvalsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	var a approvals
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, fmt.Errorf("%s does not decode: %v", approvalsFile, err)
	}
	if a.Projects == nil {
		a.Projects = map[string]string{}
	}
	return a.Projects, nil
}

// ErrHooksChanged refuses an approval of a configuration that is no longer the project's.
var ErrHooksChanged = errors.New("the project's hooks changed since they were shown; look at them again before allowing them")

// AllowProject records the person's approval of the working directory's hooks as they are
// now, identified by the fingerprint the person was shown.
func (h *Hooks) AllowProject(cwd, fingerprint string) error {
	if h == nil || h.configDir == "" {
		return errors.New("project hooks cannot be allowed: there is no configuration directory to remember it in")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if cur := h.Project(cwd); cur.Fingerprint == "" || cur.Fingerprint != fingerprint {
		return ErrHooksChanged
	}
	approved, err := h.readApprovals()
	if err != nil {
		return fmt.Errorf("allow the hooks of %s: %w", cwd, err)
	}
	approved[cwd] = fingerprint
	b, _ := json.MarshalIndent(approvals{Projects: approved}, "", "  ")
	if err := writeFileAtomic(filepath.Join(h.configDir, approvalsFile), b); err != nil {
		return fmt.Errorf("allow the hooks of %s: %w", cwd, err)
	}
	return nil
}

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
	// StopHookActive is false: Phoenix Desktop does not continue a turn for a Stop hook.
	StopHookActive *bool `json:"stop_hook_active,omitempty"`

	// ToolAliases are other agents' names for the tool, which matchers also match (not sent).
	ToolAliases []string `json:"-"`
}

// Runner runs one hook command (bash -c) with the event on its stdin, in the working
// directory, and returns its exit status; ctx's end kills it and its processes.
type Runner interface {
	Run(ctx context.Context, command string, stdin []byte, stdout, stderr io.Writer) (int, error)
}

// Result is one hook's run.
type Result struct {
	Event   Event  `json:"event"`
	Command string `json:"command"`
	Project bool   `json:"project,omitempty"`
	Exit    int    `json:"exit"`
	Stdout  string `json:"stdout,omitempty"`
	Stderr  string `json:"stderr,omitempty"`
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
	if r.Project {
		who = "project hook"
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

// match is one hook to run for an event.
type match struct {
	hook    Hook
	project bool
}

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

// plan lists the hooks that run for the input: the person's, then the project's if allowed.
func (h *Hooks) plan(in Input) (ms []match, notes []string) {
	person, pn := h.Person()
	notes = append(notes, pn...)
	proj := h.Project(in.Cwd)
	for _, n := range proj.Notices {
		notes = append(notes, "Project hooks: "+n)
	}
	names := append([]string{in.ToolName}, in.ToolAliases...)
	add := func(cfg Config, project bool) {
		for _, g := range cfg.Hooks[in.HookEventName] {
			if in.HookEventName == PreToolUse || in.HookEventName == PostToolUse {
				ok, err := compileMatcher(g.Matcher)
				if err != nil || !ok(names) {
					continue
				}
			}
			for _, hk := range g.Hooks {
				ms = append(ms, match{hook: hk, project: project})
			}
		}
	}
	add(person, false)
	if len(proj.Files) > 0 {
		if proj.Allowed {
			add(proj.Config, true)
		} else {
			notes = append(notes, fmt.Sprintf("This project has hooks (%s) that do not run until you allow them: look at them in Settings → Hooks, or run phoenix-desktop hooks allow --cwd %s.",
				strings.Join(proj.Files, ", "), in.Cwd))
		}
	}
	return ms, h.tell(notes, in.Cwd)
}

// Has reports whether any hook (the person's or the allowed project's) is configured for
// the event in cwd, without running one; callers skip building the input otherwise.
func (h *Hooks) Has(ev Event, cwd string) bool {
	if h == nil {
		return false
	}
	person, _ := h.Person()
	if len(person.Hooks[ev]) > 0 {
		return true
	}
	proj := h.Project(cwd)
	return len(proj.Files) > 0
}

// Run runs the hooks configured for the input's event, at once (as Claude Code and Codex do),
// the person's through person and the allowed project's through project, and gathers what
// they said. A hook that fails or times out does not stop the others, nor the turn.
func (h *Hooks) Run(ctx context.Context, in Input, person, project Runner) Outcome {
	if h == nil {
		return Outcome{}
	}
	ms, notes := h.plan(in)
	out := Outcome{Notices: notes}
	if len(ms) == 0 {
		return out
	}
	stdin, err := json.Marshal(in)
	if err != nil {
		out.Notices = append(out.Notices, "hooks were not run: the event does not encode: "+err.Error())
		return out
	}
	// A line, so that a shell's `read` gets it whole.
	stdin = append(stdin, '\n')
	out.Results = make([]Result, len(ms))
	var wg sync.WaitGroup
	for i, m := range ms {
		r := person
		if m.project {
			r = project
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out.Results[i] = runOne(ctx, r, m, in.HookEventName, stdin)
		}()
	}
	wg.Wait()
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

func runOne(ctx context.Context, r Runner, m match, ev Event, stdin []byte) Result {
	res := Result{Event: ev, Command: m.hook.Command, Project: m.project, Timeout: m.hook.timeout()}
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
	if ev == UserPromptSubmit {
		// Claude Code adds a prompt hook's plain output to the prompt as context.
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
