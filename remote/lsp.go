package remote

import (
	"context"
	"sync"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/lsp"
	"github.com/phoenix-desktop/phoenix/tools"
)

// Language servers of a remote conversation run on the remote machine, in the agent: it keeps
// each conversation's set (package lsp, the same code as for a local project), started lazily
// on the first patch of a file a server serves, and checks each patch and each writing
// command of that conversation with it before it answers the call, so the new errors come
// back with the tool's output. The language tools (diagnostics, definition, …) are answered
// there too. The servers read the project's files where they are: no file of the project
// crosses the wire for them. The person's server table (lsp.json) comes with each call that
// may use it (LanguageServers); the servers die with the agent — the app closed the session,
// or the connection dropped — as its commands do.

// LanguageServers configures a conversation's language servers on the remote side.
type LanguageServers struct {
	// Specs is the person's table of servers (lsp.Known when nil), programs found on the
	// remote PATH.
	Specs                        []lsp.Spec
	StartTimeout, RequestTimeout time.Duration
}

// isLanguageCall says whether a call may use the conversation's language servers: a patch,
// a command that may change the files they have open, a language tool.
func isLanguageCall(tool string) bool {
	return tool == domain.ToolPatch || tool == domain.ToolBash || domain.IsLanguageTool(tool)
}

// languageSets is the agent's sets, by conversation.
type languageSets struct {
	mu     sync.Mutex
	sets   map[string]*lsp.Set
	closed bool
}

// set returns the conversation's set, made (starting nothing) on first use; nil when the call
// carries no configuration or the agent is ending.
func (l *languageSets) set(conv string, cfg *LanguageServers) *lsp.Set {
	if cfg == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	if s, ok := l.sets[conv]; ok {
		return s
	}
	s := lsp.NewSet(lsp.Options{Specs: cfg.Specs, StartTimeout: cfg.StartTimeout, RequestTimeout: cfg.RequestTimeout})
	if l.sets == nil {
		l.sets = map[string]*lsp.Set{}
	}
	l.sets[conv] = s
	return s
}

// closeAll kills every server's process tree and waits until they are reaped.
func (l *languageSets) closeAll() {
	l.mu.Lock()
	l.closed = true
	all := l.sets
	l.sets = nil
	l.mu.Unlock()
	for _, s := range all {
		s.Close()
	}
}

// runWithLanguageServers runs one call of a conversation whose set is set (nil: none) as the
// app's tool worker does for a local project: a language tool is answered by the set; a patch
// is followed by the errors it introduced, a writing command by those it introduced in the
// files the servers have open.
func runWithLanguageServers(ctx context.Context, set *lsp.Set, reg *tools.Registry, env tools.Env, call domain.ToolCall) tools.Output {
	if domain.IsLanguageTool(call.Name) {
		return lsp.RunTool(ctx, set, env, call)
	}
	edit := set.BeforePatch(call, env.Cwd)
	out := reg.Run(ctx, env, call)
	if set == nil || ctx.Err() != nil {
		return out
	}
	switch {
	case edit != nil && out.Outcome == domain.OutcomeSuccess:
		out = set.AfterEdit(ctx, env, edit.Path, edit.Before, edit.Existed).AppendTo(out)
	case call.Name == domain.ToolBash && env.Mode.Rank() > domain.ModeRestricted.Rank():
		out = set.AfterCommand(ctx, env).AppendTo(out)
	}
	return out
}
