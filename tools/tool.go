package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/imaging"
	"github.com/phoenix-desktop/phoenix/sandbox"
)

// Env is what a tool call knows about its conversation.
type Env struct {
	// Cwd is the conversation's fixed working directory (REQ-BED-010).
	Cwd string
	// Mode decides the sandbox. Anything other than ModeUnrestricted is treated as
	// Restricted, so a missing mode never loosens it.
	Mode domain.Mode
	// TempDir is the conversation's private temp dir, the only writable place in Restricted
	// mode. It is required there.
	TempDir string
	// ProxySocket is the unix socket of the app's network proxy for this conversation, used
	// in Project mode only; empty means no network at all.
	ProxySocket string
	// ImageLimits are the limits images are fitted to for the conversation's model.
	ImageLimits imaging.Limits
}

// restricted reports whether commands run sandboxed (Restricted or Project mode, or a mode
// this build does not know), with a read-only home.
func (e Env) restricted() bool { return e.Mode != domain.ModeUnrestricted }

// SandboxPolicy is the one mapping from a conversation's mode to the sandbox's policy, for
// bash and for MCP servers alike: Unrestricted runs without the sandbox; Project makes the
// working tree writable (except its protected files) and reaches the network through the
// proxy's socket only; anything else — Restricted, an empty or unknown mode — is Restricted,
// so a missing mode never loosens the sandbox.
func SandboxPolicy(env Env) sandbox.Policy {
	switch env.Mode {
	case domain.ModeUnrestricted:
		return sandbox.Policy{TempDir: env.TempDir, Unrestricted: true}
	case domain.ModeProject:
		return sandbox.Policy{TempDir: env.TempDir, Project: &sandbox.Project{Tree: env.Cwd, ProxySocket: env.ProxySocket}}
	}
	return sandbox.Policy{TempDir: env.TempDir}
}

// Image is an image a tool returns to the model; the caller stores Data as a blob under
// Ref.SHA256 and puts Ref in the tool result.
type Image struct {
	Ref  domain.ImageRef
	Data []byte
}

// Output is the whole outcome of one tool run: the model's part (Outcome, Content, Images)
// and the UI's part (Display).
type Output struct {
	Outcome domain.Outcome
	Content string
	Display *domain.ToolDisplay
	Images  []Image
}

// Result turns the output into the tool result that answers call.
func (o Output) Result(call domain.ToolCall) domain.ToolResult {
	r := domain.ToolResult{
		CallID:  call.ID,
		Name:    call.Name,
		Outcome: o.Outcome,
		Content: o.Content,
		Display: o.Display,
	}
	for _, img := range o.Images {
		r.Images = append(r.Images, img.Ref)
	}
	return r
}

// Tool is one tool. Run must return when ctx is cancelled, promptly.
type Tool interface {
	Name() string
	Run(ctx context.Context, env Env, args json.RawMessage) Output
}

// Registry holds the tools this package implements, by name.
type Registry struct {
	tools map[string]Tool
}

// NewRegistry returns a registry with bash, patch, think, keyword_search, read_image,
// fetch_url and todo.
func NewRegistry() *Registry {
	r := &Registry{tools: map[string]Tool{}}
	for _, t := range []Tool{NewBash(), NewPatch(), NewThink(), NewKeywordSearch(), NewReadImage(), NewFetchURL(), NewTodo()} {
		r.tools[t.Name()] = t
	}
	return r
}

// Names lists the registered tools, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.tools))
	for n := range r.tools {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Get returns the tool of that name.
func (r *Registry) Get(name string) (Tool, bool) {
	t, ok := r.tools[name]
	return t, ok
}

// Run runs one tool call. An unknown tool, arguments that are not a JSON object, and a panic
// inside the tool all become error outputs: the conversation always gets a result.
func (r *Registry) Run(ctx context.Context, env Env, call domain.ToolCall) (out Output) {
	t, ok := r.tools[call.Name]
	if !ok {
		return errorf("There is no tool named %q here. Available tools: %s.", call.Name, strings.Join(r.Names(), ", "))
	}
	if !domain.ValidJSONObject(call.Arguments) {
		return errorf("The arguments of %s are not a JSON object: %s", call.Name, abbreviate(call.Arguments, 200))
	}
	if ctx.Err() != nil {
		return cancelled("Cancelled before it started.")
	}
	defer func() {
		if v := recover(); v != nil {
			out = errorf("The %s tool failed with an internal error (%v); this is a bug in Phoenix, not in your call.\n%s",
				call.Name, v, abbreviate(string(debug.Stack()), 2000))
		}
	}()
	out = t.Run(ctx, env, json.RawMessage(call.Arguments))
	if out.Outcome == "" {
		return errorf("The %s tool returned no outcome; this is a bug in Phoenix.", call.Name)
	}
	return out
}

// decodeArgs decodes a tool's arguments strictly: unknown fields are errors, so a model that
// misspells a field learns it at once instead of having it ignored.
func decodeArgs(tool string, args json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("invalid arguments for %s: %w", tool, err)
	}
	return nil
}

func errorf(format string, a ...any) Output {
	msg := fmt.Sprintf(format, a...)
	return Output{Outcome: domain.OutcomeError, Content: msg, Display: &domain.ToolDisplay{Summary: firstLine(msg, 120)}}
}

func cancelled(msg string) Output {
	return Output{Outcome: domain.OutcomeCancelled, Content: msg, Display: &domain.ToolDisplay{Summary: "cancelled"}}
}

// firstLine is the first line of s, cut to at most n runes.
func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return abbreviate(s, n)
}

// abbreviate cuts s to at most n runes, marking the cut.
func abbreviate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// WithRefusals appends what Project mode's proxy refused during a command (lines, one per
// refused connection) to the command's output, so that the model learns why a connection
// failed instead of guessing from a tool's error message. A line the output already quotes
// (fetch_url's usually does) is not repeated. One home for the words, whether the proxy runs
// here or on a remote project's machine.
func WithRefusals(content string, lines []string) string {
	lines = slices.DeleteFunc(slices.Clone(lines), func(l string) bool { return strings.Contains(content, l) })
	if len(lines) == 0 {
		return content
	}
	var b strings.Builder
	b.WriteString(content)
	if content != "" && !strings.HasSuffix(content, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString("[The network proxy refused these connections; in Project mode commands reach only the hosts the person allowed, and you may ask them to allow one:]\n")
	for _, l := range lines {
		b.WriteString("- " + l + "\n")
	}
	return b.String()
}
