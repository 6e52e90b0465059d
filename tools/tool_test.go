package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

// coreTools are decided by the domain core and the actors, not run here.
var coreTools = []string{domain.ToolSpawnAgents, domain.ToolSubmitResult, domain.ToolRequestModeUpgrade}

func TestRegistryMatchesCatalogue(t *testing.T) {
	want := map[string]bool{}
	for _, sub := range []bool{false, true} {
		for _, s := range domain.ToolsFor(sub) {
			if !slices.Contains(coreTools, s.Name) {
				want[s.Name] = true
			}
		}
	}
	r := NewRegistry()
	for name := range want {
		if _, ok := r.Get(name); !ok {
			t.Errorf("the catalogue offers %s but the registry has no such tool", name)
		}
	}
	for _, name := range r.Names() {
		if !want[name] {
			t.Errorf("the registry has %s, which the catalogue does not offer", name)
		}
	}
}

// argTypes are the argument structs, by tool; the test below keeps them and the catalogue's
// schemas in step.
var argTypes = map[string]any{
	domain.ToolBash:          bashArgs{},
	domain.ToolPatch:         patchArgs{},
	domain.ToolThink:         thinkArgs{},
	domain.ToolKeywordSearch: searchArgs{},
	domain.ToolReadImage:     readImageArgs{},
	domain.ToolFetchURL:      fetchArgs{},
	domain.ToolTodo:          domain.TodoArgs{},
}

func jsonFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

func TestArgumentsMatchSchemas(t *testing.T) {
	specs := map[string]domain.ToolSpec{}
	for _, s := range domain.ToolsFor(false) {
		specs[s.Name] = s
	}
	for _, s := range domain.ToolsFor(true) {
		specs[s.Name] = s
	}
	for name, args := range argTypes {
		t.Run(name, func(t *testing.T) {
			var schema struct {
				Properties map[string]struct {
					Items struct {
						Properties map[string]json.RawMessage `json:"properties"`
					} `json:"items"`
				} `json:"properties"`
			}
			if err := json.Unmarshal(specs[name].Parameters, &schema); err != nil {
				t.Fatal(err)
			}
			var props []string
			for p := range schema.Properties {
				props = append(props, p)
			}
			slices.Sort(props)
			if got := jsonFields(reflect.TypeOf(args)); !slices.Equal(got, props) {
				t.Errorf("argument fields %v, schema properties %v", got, props)
			}
			if name == domain.ToolTodo {
				var items []string
				for p := range schema.Properties["todos"].Items.Properties {
					items = append(items, p)
				}
				slices.Sort(items)
				if got := jsonFields(reflect.TypeOf(domain.TodoItem{})); !slices.Equal(got, items) {
					t.Errorf("todo item fields %v, schema %v", got, items)
				}
			}
			if name == domain.ToolPatch {
				var items []string
				for p := range schema.Properties["patches"].Items.Properties {
					items = append(items, p)
				}
				slices.Sort(items)
				if got := jsonFields(reflect.TypeOf(patchOne{})); !slices.Equal(got, items) {
					t.Errorf("patch item fields %v, schema %v", got, items)
				}
			}
		})
	}
}

type panicTool struct{}

func (panicTool) Name() string { return "boom" }
func (panicTool) Run(context.Context, Env, json.RawMessage) Output {
	panic("kaboom")
}

type silentTool struct{}

func (silentTool) Name() string                                     { return "silent" }
func (silentTool) Run(context.Context, Env, json.RawMessage) Output { return Output{} }

func TestRegistryRunNeverFailsToAnswer(t *testing.T) {
	r := NewRegistry()
	r.tools["boom"] = panicTool{}
	r.tools["silent"] = silentTool{}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name    string
		ctx     context.Context
		call    domain.ToolCall
		outcome domain.Outcome
		want    string
	}{
		{"unknown tool", context.Background(), domain.ToolCall{ID: "1", Name: "nope", Arguments: "{}"}, domain.OutcomeError, `no tool named "nope"`},
		{"malformed arguments", context.Background(), domain.ToolCall{ID: "2", Name: domain.ToolThink, Arguments: `{"thoughts":`}, domain.OutcomeError, "not a JSON object"},
		{"arguments not an object", context.Background(), domain.ToolCall{ID: "3", Name: domain.ToolThink, Arguments: `["x"]`}, domain.OutcomeError, "not a JSON object"},
		{"unknown field", context.Background(), domain.ToolCall{ID: "4", Name: domain.ToolThink, Arguments: `{"thoughts":"x","mood":"ok"}`}, domain.OutcomeError, `unknown field "mood"`},
		{"panic in a tool", context.Background(), domain.ToolCall{ID: "5", Name: "boom", Arguments: "{}"}, domain.OutcomeError, "internal error (kaboom)"},
		{"tool without outcome", context.Background(), domain.ToolCall{ID: "6", Name: "silent", Arguments: "{}"}, domain.OutcomeError, "returned no outcome"},
		{"cancelled before start", done, domain.ToolCall{ID: "7", Name: domain.ToolThink, Arguments: `{"thoughts":"x"}`}, domain.OutcomeCancelled, "before it started"},
		{"think", context.Background(), domain.ToolCall{ID: "8", Name: domain.ToolThink, Arguments: `{"thoughts":"plan: first read, then write"}`}, domain.OutcomeSuccess, "Thought recorded"},
		{"todo", context.Background(), domain.ToolCall{ID: "9", Name: domain.ToolTodo, Arguments: `{"todos":[{"content":"read","status":"done"},{"content":"write","status":"in_progress"},{"content":"test","status":"pending"}]}`},
			domain.OutcomeSuccess, "Task list saved: 1 done, 1 in progress, 1 pending."},
		{"todo cleared", context.Background(), domain.ToolCall{ID: "10", Name: domain.ToolTodo, Arguments: `{"todos":[]}`}, domain.OutcomeSuccess, "Task list cleared."},
		// The model is told why, and that the list it had stands.
		{"todo refused", context.Background(), domain.ToolCall{ID: "11", Name: domain.ToolTodo, Arguments: `{"todos":[{"content":"read","status":"completed"}]}`},
			domain.OutcomeError, `The task list was not changed: item 1 has status "completed"; it must be one of pending, in_progress, done.`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := r.Run(c.ctx, Env{Cwd: t.TempDir()}, c.call)
			if out.Outcome != c.outcome || !strings.Contains(out.Content, c.want) {
				t.Errorf("got %s %q, want %s containing %q", out.Outcome, out.Content, c.outcome, c.want)
			}
			res := out.Result(c.call)
			if res.CallID != c.call.ID || res.Name != c.call.Name || res.Outcome != out.Outcome {
				t.Errorf("Result %+v does not answer %+v", res, c.call)
			}
		})
	}
}

func TestThinkDisplaysFirstLine(t *testing.T) {
	out := NewThink().Run(context.Background(), Env{}, json.RawMessage(`{"thoughts":"Plan the change\nthen test it"}`))
	if out.Outcome != domain.OutcomeSuccess || out.Display.Summary != "Plan the change" {
		t.Errorf("got %+v %+v", out, out.Display)
	}
	if out := NewThink().Run(context.Background(), Env{}, json.RawMessage(`{"thoughts":"  "}`)); out.Outcome != domain.OutcomeError {
		t.Errorf("empty thoughts accepted: %+v", out)
	}
}

func TestResultCarriesImageRefs(t *testing.T) {
	out := Output{Outcome: domain.OutcomeSuccess, Content: "c", Images: []Image{{Ref: domain.ImageRef{SHA256: "ab"}, Data: []byte{1}}}}
	res := out.Result(domain.ToolCall{ID: "x", Name: domain.ToolReadImage})
	if len(res.Images) != 1 || res.Images[0].SHA256 != "ab" || res.Content != "c" {
		t.Errorf("got %+v", res)
	}
}
