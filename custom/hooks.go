package custom

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
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
	// SessionStart runs before a conversation's first turn ("startup") and before the first
	// turn after the app opened it again ("resume"); what it prints, or its
	// hookSpecificOutput.additionalContext, goes into the conversation's context.
	SessionStart Event = "SessionStart"
	// SessionEnd runs when a conversation is deleted ("clear") or the app closes with it
	// open ("other"); it is told, nothing more.
	SessionEnd Event = "SessionEnd"
	// SubagentStop runs when a sub-agent's turn ends; it is told, like Stop.
	SubagentStop Event = "SubagentStop"
	// PreCompact runs before the continuation summary of a long conversation is written
	// ("auto"), or of one the person asked to compact ("manual").
	PreCompact Event = "PreCompact"
	// PostToolUseFailure runs after a tool call that failed, instead of PostToolUse; what a
	// hook adds reaches the model beside the error.
	PostToolUseFailure Event = "PostToolUseFailure"
)

// Events are the events hooks can be configured for, in the order Settings lists them.
var Events = []Event{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure,
	PermissionRequest, Stop, SubagentStop, PreCompact, SessionEnd}

// matchedBy says what a group's matcher is matched against for each event that has one:
// tool names for the tool events, the source, trigger or reason for the others (Claude
// Code's). The other events run every group.
func matchedBy(in Input) ([]string, bool) {
	switch in.HookEventName {
	case PreToolUse, PostToolUse, PostToolUseFailure:
		// Other agents' names first, so that a hook sees the name in its author's
		// vocabulary (Claude Code's first) when its matcher names none.
		return append(slices.Clip(in.ToolAliases), in.ToolName), true
	case SessionStart:
		return []string{in.Source}, true
	case PreCompact:
		return []string{in.Trigger}, true
	case SessionEnd:
		return []string{in.Reason}, true
	}
	return nil, false
}

// eventAliases are other agents' names for the same events (crush's and older Codex's
// snake_case, Claude Code's Notification, which fires when it asks for permission).
var eventAliases = map[string]Event{
	"pre_tool_use": PreToolUse, "post_tool_use": PostToolUse, "user_prompt_submit": UserPromptSubmit,
	"stop": Stop, "permission_request": PermissionRequest, "Notification": PermissionRequest,
	"notification": PermissionRequest, "session_start": SessionStart, "session_end": SessionEnd,
	"subagent_stop": SubagentStop, "pre_compact": PreCompact, "post_tool_use_failure": PostToolUseFailure,
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
	// RunAsMe, in the person's own hooks file only, runs the hook as the person, outside the
	// conversation's walls (for a hook that needs the person's keys, network or files
	// elsewhere). It is refused when what it runs was changed after the agent began
	// changing files (Baseline). Without it a hook runs under the conversation's walls; a
	// project's hook always does, whatever its file says.
	RunAsMe bool `json:"runAsMe,omitempty"`
}

// Group is a matcher and the hooks it runs.
type Group struct {
	// Matcher selects tool calls by tool name for the tool events, and SessionStart's source,
	// PreCompact's trigger, SessionEnd's reason (matchedBy): empty or "*" matches every call;
	// names of letters, digits and '_' joined by '|' match exactly; anything else is a
	// regular expression (unanchored). Other events ignore it.
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

// Listed is one hook as a list shows it: its event, its matcher ("*" for every tool) and
// the hook.
type Listed struct {
	Event   Event
	Matcher string
	Hook    Hook
}

// List is every hook of the configuration in Events' order, then each event's groups' order:
// what Settings → Hooks and `phoenix-desktop hooks` show.
func (c Config) List() []Listed {
	var out []Listed
	for _, ev := range Events {
		for _, g := range c.Hooks[ev] {
			m := g.Matcher
			if m == "" {
				m = "*"
			}
			for _, h := range g.Hooks {
				out = append(out, Listed{Event: ev, Matcher: m, Hook: h})
			}
		}
	}
	return out
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

// compileMatcher returns a function that says which of a tool's names (or an event's one
// value) a matcher matches, the first in the order given, and whether any does.
func compileMatcher(m string) (func(names []string) (string, bool), error) {
	m = strings.TrimSpace(m)
	first := func(ok func(string) bool) func([]string) (string, bool) {
		return func(names []string) (string, bool) {
			for _, n := range names {
				if ok(n) {
					return n, true
				}
			}
			return "", false
		}
	}
	if m == "" || m == "*" {
		return func(names []string) (string, bool) {
			if len(names) == 0 {
				return "", true
			}
			return names[0], true
		}, nil
	}
	if exactMatcher.MatchString(m) {
		want := strings.Split(m, "|")
		return first(func(n string) bool { return slices.Contains(want, n) }), nil
	}
	re, err := regexp.Compile(m)
	if err != nil {
		return nil, err
	}
	return first(re.MatchString), nil
}
