package fakellm

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
)

// Texts the client (package llm) puts at the start of synthetic user-role messages. They are
// not the person's words, so the model skips them when it looks for the program. They must
// match llm.SystemNoticePrefix and llm.ToolImagesPrefix (a test in llm checks it).
const (
	SystemNoticePrefix = "System notice: "
	ToolImagesPrefix   = "Images returned by tool call "
)

// action is one thing a step does: a text answer or one tool call.
type action struct {
	text string
	tool string
	args any
}

// failSpec makes the first attempts of a step fail with an HTTP error.
type failSpec struct {
	status  int
	times   int // how many attempts fail; -1 for all
	context bool
}

// step is one line of a program, with the modifiers written above it.
type step struct {
	actions []action
	delay   time.Duration
	fail    *failSpec
	usage   int
	// stop is the finish reason the answer ends with instead of the normal one.
	stop string
	// window makes requests larger than this many tokens fail as a provider with that
	// context window would.
	window int
	// reason is the reasoning streamed before the step's answer.
	reason string
}

// program is a parsed user message: its steps, and the modifiers written after the last one,
// which apply to the final answer.
type program struct {
	steps []step
	final step
}

var lineRE = regexp.MustCompile(`^([a-z]+):\s?(.*)$`)

// unescape turns \n, \t and \\ into what they stand for, so that one line can carry a
// multi-line file or text.
func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case 'n':
				b.WriteByte('\n')
				i++
				continue
			case 't':
				b.WriteByte('\t')
				i++
				continue
			case '\\':
				b.WriteByte('\\')
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// parseAction reads one "key: argument" part; ok is false for prose and modifiers.
func parseAction(key, arg string) (action, bool) {
	switch key {
	case "echo":
		return action{text: unescape(arg)}, true
	case "bash":
		return action{tool: domain.ToolBash, args: map[string]any{"command": arg}}, true
	case "think":
		return action{tool: domain.ToolThink, args: map[string]any{"thoughts": unescape(arg)}}, true
	case "search":
		terms := strings.Fields(arg)
		if terms == nil {
			terms = []string{}
		}
		return action{tool: domain.ToolKeywordSearch, args: map[string]any{"query": arg, "search_terms": terms}}, true
	case "image":
		return action{tool: domain.ToolReadImage, args: map[string]any{"path": arg}}, true
	case "fetch":
		return action{tool: domain.ToolFetchURL, args: map[string]any{"url": strings.TrimSpace(arg)}}, true
	case "upgrade":
		return action{tool: domain.ToolRequestModeUpgrade, args: map[string]any{"reason": arg}}, true
	case "agents":
		tasks := []string{}
		for _, t := range strings.Split(arg, "|") {
			if t = strings.TrimSpace(t); t != "" {
				tasks = append(tasks, unescape(t))
			}
		}
		return action{tool: domain.ToolSpawnAgents, args: map[string]any{"tasks": tasks}}, true
	case "todo":
		return parseTodo(arg), true
	case "patch":
		return parsePatch(arg), true
	case "mcp":
		return parseMCP(arg), true
	case "lsp":
		return parseLanguageTool(arg), true
	}
	return action{}, false
}

// parseMCP reads SERVER TOOL JSON-ARGUMENTS into a call of mcp__SERVER__TOOL; arguments that
// are missing or not a JSON object are sent as {}.
func parseMCP(arg string) action {
	fields := strings.SplitN(strings.TrimSpace(arg), " ", 3)
	name := domain.MCPToolPrefix + strings.Join(fields[:min(2, len(fields))], "__")
	args := map[string]any{}
	if len(fields) == 3 {
		_ = json.Unmarshal([]byte(fields[2]), &args)
	}
	return action{tool: name, args: args}
}

// parseLanguageTool reads TOOL ARGUMENT into a call of a language tool: a place
// PATH:LINE:COLUMN for definition, references and hover; a PATH, or #QUERY, for symbols; a
// PATH or nothing for diagnostics; or a JSON object sent as written.
func parseLanguageTool(arg string) action {
	tool, rest, _ := strings.Cut(strings.TrimSpace(arg), " ")
	rest = strings.TrimSpace(rest)
	if strings.HasPrefix(rest, "{") {
		return action{tool: tool, args: json.RawMessage(rest)}
	}
	args := map[string]any{}
	switch {
	case tool == domain.ToolSymbols && strings.HasPrefix(rest, "#"):
		args["query"] = strings.TrimPrefix(rest, "#")
	case tool == domain.ToolSymbols || tool == domain.ToolDiagnostics:
		if rest != "" {
			args["path"] = rest
		}
	default:
		// The last two colons part the line and column from a path that may hold colons.
		path, line, col := rest, 0, 0
		if i := strings.LastIndexByte(path, ':'); i > 0 {
			col, _ = strconv.Atoi(path[i+1:])
			path = path[:i]
			if j := strings.LastIndexByte(path, ':'); j > 0 {
				line, _ = strconv.Atoi(path[j+1:])
				path = path[:j]
			}
		}
		args["path"], args["line"], args["column"] = path, line, col
	}
	return action{tool: tool, args: args}
}

// parseTodo reads a task list, "[x] DONE | [>] IN PROGRESS | [ ] PENDING" (a task without
// a mark is pending, nothing at all clears the list), or a JSON object sent as written, so
// that tests can send arguments the tool refuses.
func parseTodo(arg string) action {
	if strings.HasPrefix(arg, "{") {
		return action{tool: domain.ToolTodo, args: json.RawMessage(arg)}
	}
	marks := map[string]domain.TodoStatus{"[x]": domain.TodoDone, "[>]": domain.TodoInProgress, "[ ]": domain.TodoPending}
	args := domain.TodoArgs{Todos: []domain.TodoItem{}}
	for _, t := range strings.Split(arg, "|") {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		status := domain.TodoPending
		for mark, s := range marks {
			if rest, ok := strings.CutPrefix(t, mark); ok {
				t, status = strings.TrimSpace(rest), s
			}
		}
		args.Todos = append(args.Todos, domain.TodoItem{Content: unescape(t), Status: status})
	}
	return action{tool: domain.ToolTodo, args: args}
}

// parsePatch reads the three patch forms: PATH <<< TEXT (overwrite), PATH >>> TEXT (append)
// and PATH ::: OLD ==> NEW (replace).
func parsePatch(arg string) action {
	op := func(path string, p map[string]any) action {
		return action{tool: domain.ToolPatch, args: map[string]any{"path": strings.TrimSpace(path), "patches": []any{p}}}
	}
	if path, text, ok := strings.Cut(arg, " <<< "); ok {
		return op(path, map[string]any{"operation": "overwrite", "new_text": unescape(text)})
	}
	if path, text, ok := strings.Cut(arg, " >>> "); ok {
		return op(path, map[string]any{"operation": "append_eof", "new_text": unescape(text)})
	}
	if path, rest, ok := strings.Cut(arg, " ::: "); ok {
		old, repl, _ := strings.Cut(rest, " ==> ")
		return op(path, map[string]any{"operation": "replace", "old_text": unescape(old), "new_text": unescape(repl)})
	}
	// No operator: overwrite with nothing, which the tool reports as it sees fit.
	return op(arg, map[string]any{"operation": "overwrite", "new_text": ""})
}

// parseFail reads "429", "500 x3", "500 always" or "context".
func parseFail(arg string) *failSpec {
	f := &failSpec{times: 1}
	for _, w := range strings.Fields(strings.ToLower(arg)) {
		switch {
		case w == "context":
			f.status, f.context = http.StatusBadRequest, true
		case w == "always":
			f.times = -1
		case strings.HasPrefix(w, "x"):
			if n, err := strconv.Atoi(w[1:]); err == nil && n > 0 {
				f.times = n
			}
		default:
			if n, err := strconv.Atoi(w); err == nil && n >= 400 && n <= 599 {
				f.status = n
			}
		}
	}
	if f.status == 0 {
		f.status = http.StatusInternalServerError
	}
	return f
}

// parseProgram reads a user message line by line. Lines that are not steps are prose and are
// ignored, so a message with no steps at all is simply a question.
func parseProgram(text string) program {
	var p program
	var pending step
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		m := lineRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		key, arg := m[1], strings.TrimSpace(m[2])
		switch key {
		case "delay":
			if ms, err := strconv.Atoi(arg); err == nil && ms > 0 {
				pending.delay = time.Duration(ms) * time.Millisecond
			}
			continue
		case "fail":
			pending.fail = parseFail(arg)
			continue
		case "usage":
			if n, err := strconv.Atoi(strings.ReplaceAll(arg, "_", "")); err == nil && n > 0 {
				pending.usage = n
			}
			continue
		case "window":
			if n, err := strconv.Atoi(strings.ReplaceAll(arg, "_", "")); err == nil && n > 0 {
				pending.window = n
			}
			continue
		case "stop":
			if arg != "" {
				pending.stop = arg
			}
			continue
		case "reason":
			pending.reason = unescape(arg)
			continue
		}
		var acts []action
		for _, part := range strings.Split(line, " ;; ") {
			pm := lineRE.FindStringSubmatch(strings.TrimSpace(part))
			if pm == nil {
				continue
			}
			if a, ok := parseAction(pm[1], strings.TrimSpace(pm[2])); ok {
				acts = append(acts, a)
			}
		}
		if len(acts) == 0 {
			continue
		}
		pending.actions = acts
		p.steps = append(p.steps, pending)
		pending = step{}
	}
	p.final = pending
	return p
}

// isSynthetic reports whether a user-role message was made by the client, not typed.
func isSynthetic(m Message) bool {
	t := m.Content.String()
	return strings.HasPrefix(t, SystemNoticePrefix) || strings.HasPrefix(t, ToolImagesPrefix)
}

func lastRealUser(msgs []Message, before int) int {
	for i := before - 1; i >= 0; i-- {
		if msgs[i].Role == "user" && !isSynthetic(msgs[i]) {
			return i
		}
	}
	return -1
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if r := []rune(s); len(r) > 120 {
		s = string(r[:120]) + "…"
	}
	return s
}
