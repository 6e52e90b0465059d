package ui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/mcp"
	"github.com/phoenix-desktop/phoenix/mcp/mcptest"
	"github.com/phoenix-desktop/phoenix/secrets"
)

// Issue 26: a URL server that answers 401 says "needs sign-in" on its card in Settings → MCP;
// its "Sign in" goes through the (local) authorization server in the browser, the tokens land
// in the secrets file, and the next check of the server is ok.
func TestMCPSignInButton(t *testing.T) {
	a := mcptest.NewAuthServer(t)
	dir := t.TempDir()
	store, err := secrets.OpenFile(filepath.Join(dir, "secrets"))
	if err != nil {
		t.Fatal(err)
	}
	hub, err := mcp.OpenHub(filepath.Join(dir, "mcp.json"), mcp.Options{Tokens: func() (mcp.TokenStore, error) { return store, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if err := hub.SetServer("web", mcp.ServerConfig{URL: a.Endpoint()}); err != nil {
		t.Fatal(err)
	}
	servers := actors.NewMCPServers(hub, actors.SandboxStatus{})
	if st := servers.Check(context.Background(), "web", dir, true); st.State != actors.MCPStateNeedsSignIn {
		t.Fatalf("before the sign-in: %q (%s)", st.State, st.Error)
	}
	browser := mcptest.Browser(t)
	opened := make(chan string, 1)
	old := openSignInPage
	openSignInPage = func(_ *MainWindow, u string) error {
		opened <- u
		return browser(u)
	}
	t.Cleanup(func() { openSignInPage = old })

	h := newHarness(t, func(f *fakeBackend, d *Deps) {
		d.MCP = servers
		f.add(domain.NewConversationParams{ID: "c1", Title: "t", Cwd: dir, Model: domain.DemoModel})
	})
	h.m.showSettings()
	test.Tap(findButton(h.m.win.Canvas().Overlays().Top(), "MCP servers…"))
	p := h.m.mcpPanel
	h.waitFor("the card", func() bool { return hasLabel(p.servers, string(actors.MCPStateNeedsSignIn)) })
	signIn := findButton(p.servers, "Sign in")
	if signIn == nil {
		t.Fatal("the card of a server that needs sign-in has no Sign in button")
	}
	test.Tap(signIn)
	h.waitFor("the sign-in", func() bool { return strings.HasPrefix(p.message.Text, "Signed in to web") })
	if u := <-opened; !strings.HasPrefix(u, a.AS.URL+"/authorize?") {
		t.Fatalf("the browser was sent to %s", u)
	}
	if raw, err := store.Get("mcp-oauth " + a.Endpoint()); err != nil || !strings.Contains(raw, "refresh_token") {
		t.Fatalf("no tokens in the secrets file (%v)", err)
	}
	test.Tap(findButton(p.servers, "Check"))
	h.waitFor("the check", func() bool { return hasLabel(p.servers, string(mcp.StateChecked)) })
	if st := servers.Statuses(dir); len(st) != 1 || len(st[0].Tools) == 0 {
		t.Fatalf("after the sign-in the check found %+v", st)
	}
}
