package actors

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/lsp"
	"github.com/phoenix-desktop/phoenix/tools"
)

// Language servers in the loop (package lsp): a conversation makes its set on the first
// patch of a file some server serves (nothing before: a conversation that never edits such a
// file starts nothing and pays nothing), checks each patch with it in the tool's worker, and
// kills the servers with their trees when it stops (cleanup: close, passivation, quit).

// languageServersFor is the conversation's set for a patch or a language tool's call, made
// on first use; nil for every other call, or when language servers are off.
func (a *conversationActor) languageServersFor(call domain.ToolCall) *lsp.Set {
	switch {
	case call.Name == domain.ToolBash:
		// A command can change the files the servers have open; it never starts one.
		return a.lsp
	case call.Name != domain.ToolPatch && !domain.IsLanguageTool(call.Name):
		return nil
	}
	return a.languageServers()
}

// languageServers is the conversation's set, made (starting nothing) on first use; nil when
// language servers are off.
func (a *conversationActor) languageServers() *lsp.Set {
	// A remote conversation's servers run on its host, in the agent (remoteLanguageServers).
	if a.rt.cfg.LSP == nil || a.conv.Host != "" {
		return nil
	}
	if a.lsp == nil {
		a.lsp = lsp.NewSet(*a.rt.cfg.LSP)
		a.rt.lspSets.Store(a.id, a.lsp)
	}
	return a.lsp
}

// remoteLanguageServers is the configuration of a remote conversation's language servers that
// goes with a call that may use them (a patch, a command, a language tool): the agent on the
// host runs them and checks the call there (remote/lsp.go). nil when they are off.
func (a *conversationActor) remoteLanguageServers(call domain.ToolCall) *lsp.Options {
	if call.Name != domain.ToolPatch && call.Name != domain.ToolBash && !domain.IsLanguageTool(call.Name) {
		return nil
	}
	return a.rt.cfg.LSP
}

// languageOffer says whether a conversation's request offers the language tools: where a
// server for the project's files runs or can start, as its lsp.Set finds — the local one, or
// for a remote conversation the one of the agent on its host, which reads the files there.
type languageOffer interface {
	Offered(ctx context.Context, cwd string) bool
}

// localLanguages is a local conversation's set.
type localLanguages struct{ set *lsp.Set }

func (l localLanguages) Offered(_ context.Context, cwd string) bool { return l.set.Offered(cwd) }

// remoteOfferWait bounds the question to the host before a model request, connecting
// included: a host that cannot be reached delays the request by this at most, which then
// goes without the language tools (the next request asks again).
const remoteOfferWait = 5 * time.Second

// remoteLanguages asks a remote conversation's host.
type remoteLanguages struct {
	rt     *Runtime
	convID string
	host   string
	opts   lsp.Options
}

func (r remoteLanguages) Offered(ctx context.Context, cwd string) bool {
	ctx, cancel := context.WithTimeout(ctx, remoteOfferWait)
	defer cancel()
	ok, err := r.rt.cfg.Remote.LanguageToolsOffered(ctx, r.host, r.convID, cwd, r.opts, func(text string) {
		r.rt.publish(Notice{ConvID: r.convID, Level: NoticeInfo, Text: text})
	})
	if err != nil {
		r.rt.log.Info("the language tools are not offered: the host did not say whether its servers serve the project", "conversation", r.convID, "host", r.host, "error", err)
	}
	return ok
}

// languageOffer is what decides whether the conversation's next request offers the language
// tools; nil when language servers are off.
func (a *conversationActor) languageOffer() languageOffer {
	switch {
	case a.rt.cfg.LSP == nil:
		return nil
	case a.conv.Host != "":
		if a.rt.cfg.Remote == nil {
			return nil
		}
		return remoteLanguages{rt: a.rt, convID: a.id, host: a.conv.Host, opts: *a.rt.cfg.LSP}
	}
	return localLanguages{a.languageServers()}
}

// addLanguageTools offers the language tools in a request that offers tools, where a server
// for the project's files runs or can start (it looks at the project once, in the worker).
// The one place the tool list is added, for local and remote conversations alike.
func (w *llmRequestActor) addLanguageTools() {
	if w.langs == nil || w.req.Tools == nil || !w.langs.Offered(w.ctx, w.env.Cwd) {
		return
	}
	w.req.Tools = append(slices.Clip(w.req.Tools), domain.LanguageTools()...)
}

// closeLanguageServers kills the conversation's servers and waits until they are reaped.
func (a *conversationActor) closeLanguageServers() {
	if a.lsp != nil {
		a.rt.lspSets.CompareAndDelete(a.id, a.lsp)
		a.lsp.Close()
		a.lsp = nil
	}
}

// beforeEdit reads the file a patch call is about to change, for the comparison after it;
// nil when the call is not a patch checked by a server.
func (w *toolRunActor) beforeEdit() *lsp.PendingEdit {
	return w.lsps.BeforePatch(w.call, w.env.Cwd)
}

// afterCommand appends the errors a command introduced in the files the running servers
// have open, for a command that could change them (a mode that writes).
func (w *toolRunActor) afterCommand(out tools.Output) tools.Output {
	if w.lsps == nil || w.call.Name != domain.ToolBash || w.env.Mode.Rank() <= domain.ModeRestricted.Rank() || w.ctx.Err() != nil {
		return out
	}
	return withReport(out, w.lsps.AfterCommand(w.ctx, w.env))
}

// afterEdit appends the errors the patch introduced, as the file's language server reports
// them, to the result: the model reads them with the patch's outcome, the tool row shows
// their count and, folded, the list.
func (w *toolRunActor) afterEdit(edit *lsp.PendingEdit, out tools.Output) tools.Output {
	if edit == nil || out.Outcome != domain.OutcomeSuccess || w.ctx.Err() != nil {
		return out
	}
	return withReport(out, w.lsps.AfterEdit(w.ctx, w.env, edit.Path, edit.Before, edit.Existed))
}

// withReport appends a language server's report to a call's output and its tool row.
func withReport(out tools.Output, rep lsp.Report) tools.Output {
	return rep.AppendTo(out)
}

// LanguageServer is one of a conversation's language servers as the header's details show
// it: its name, its state (starting, running, down) and, when down, why.
type LanguageServer struct {
	Name, State, Reason string
}

// LanguageServers lists the language servers the conversation started, none before its
// first edit or question about a file a server serves.
func (r *Runtime) LanguageServers(convID string) []LanguageServer {
	var list []lsp.Status
	if v, ok := r.lspSets.Load(convID); ok {
		list = v.(*lsp.Set).Status()
	} else if r.cfg.Remote != nil {
		// A remote conversation's servers run on its host: as its agent last reported them.
		if c, err := r.cfg.Store.Get(convID); err == nil && c.Host != "" {
			list = r.cfg.Remote.LanguageServers(c.Host, convID)
		}
	}
	var out []LanguageServer
	for _, st := range list {
		out = append(out, LanguageServer{Name: st.Name, State: string(st.State), Reason: st.Reason})
	}
	return out
}

// LanguageServersText is the paragraph the header's details show about them; empty when
// the conversation has started none.
func LanguageServersText(list []LanguageServer) string {
	if len(list) == 0 {
		return ""
	}
	lines := []string{"Language servers in this conversation:"}
	for _, s := range list {
		line := "• " + s.Name + ": " + s.State
		if s.Reason != "" {
			line += " — " + s.Reason
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}
