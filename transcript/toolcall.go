package transcript

import (
	"encoding/json"
	"fmt"

	"github.com/phoenix-desktop/phoenix/domain"
)

// keyArgument names, for each tool, the argument that identifies a call, and how many runes
// of it are shown (0: all of it, which a person needs to judge a command before approving).
// TestKeyArgumentsExistInTheSchemas checks each is a property of its tool's schema.
var keyArgument = map[string]struct {
	name string
	max  int
}{
	domain.ToolBash:               {"command", 0},
	domain.ToolPatch:              {"path", 0},
	domain.ToolReadImage:          {"path", 0},
	domain.ToolFetchURL:           {"url", 0},
	domain.ToolKeywordSearch:      {"query", 0},
	domain.ToolThink:              {"thoughts", 120},
	domain.ToolSubmitResult:       {"result", 120},
	domain.ToolRequestModeUpgrade: {"reason", 120},
	domain.ToolSpawnAgents:        {"tasks", 0},
	domain.ToolTodo:               {"todos", 0},
}

// ToolCallSummary is the argument that identifies a tool call at a glance: the full command
// for bash, the path for patch and read_image, the address for fetch_url, the query for
// keyword_search, the number of tasks for spawn_agents, the progress of a todo list; the raw
// arguments when they do not parse.
func ToolCallSummary(c domain.ToolCall) string {
	var args map[string]json.RawMessage
	if json.Unmarshal([]byte(c.Arguments), &args) != nil {
		return OneLine(c.Arguments, 200)
	}
	key, known := keyArgument[c.Name]
	if !known {
		return OneLine(c.Arguments, 120)
	}
	switch c.Name {
	case domain.ToolSpawnAgents:
		return fmt.Sprintf("%d tasks", len(SpawnTasks(c)))
	case domain.ToolTodo:
		items, err := domain.ParseTodo(c.Arguments)
		if err != nil {
			return OneLine(c.Arguments, 120)
		}
		return TodoSummary(items)
	case domain.ToolPatch:
		var patches []json.RawMessage
		_ = json.Unmarshal(args["patches"], &patches)
		p := stringArg(args, key.name)
		if len(patches) > 1 {
			p += fmt.Sprintf(" (%d changes)", len(patches))
		}
		return p
	}
	v := stringArg(args, key.name)
	if key.max > 0 {
		v = OneLine(v, key.max)
	}
	return v
}

func stringArg(args map[string]json.RawMessage, key string) string {
	var s string
	if raw, ok := args[key]; ok && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}

// SpawnTasks lists the tasks of a spawn_agents call.
func SpawnTasks(c domain.ToolCall) []string {
	var args domain.SpawnAgentsArgs
	_ = json.Unmarshal([]byte(c.Arguments), &args)
	return args.Tasks
}
