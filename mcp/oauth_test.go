package mcp

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/mcp/mcptest"
	"github.com/phoenix-desktop/phoenix/secrets"
)

// oauthHub is a hub on a real mcp.json with the server "web" and its tokens in a secrets file.
func oauthHub(t *testing.T, a *mcptest.AuthServer, opts Options) (*Hub, *secrets.FileStore, string) {
	t.Helper()
	dir := t.TempDir()
	store, err := secrets.OpenFile(filepath.Join(dir, "secrets"))
	if err != nil {
		t.Fatal(err)
	}
	opts.Tokens = func() (TokenStore, error) { return store, nil }
	path := filepath.Join(dir, "mcp.json")
	hub, err := OpenHub(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := hub.SetServer("web", ServerConfig{URL: a.Endpoint()}); err != nil {
		t.Fatal(err)
	}
	return hub, store, path
}

func statusOf(h *Hub, name string) Status {
	for _, st := range h.Statuses("") {
		if st.Name == name {
			return st
		}
	}
	return Status{}
}

func saved(t *testing.T, store TokenStore, serverURL string) *savedAuth {
	t.Helper()
	s, err := loadAuth(store, serverURL)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// expireSaved moves the saved access token's expiry into the past, as time would.
func expireSaved(t *testing.T, store TokenStore, serverURL string) {
	t.Helper()
	s := saved(t, store, serverURL)
	s.Token.Expiry = time.Now().Add(-time.Minute)
	if err := saveAuth(store, serverURL, s); err != nil {
		t.Fatal(err)
	}
}

// callEcho starts a conversation's servers and calls the test server's echo tool; a server
// that did not start gives the error, with what the conversation was told.
func callEcho(t *testing.T, hub *Hub) (string, domain.Outcome) {
	t.Helper()
	ctx := context.Background()
	set := hub.NewSet(t.TempDir())
	defer set.Close()
	env := testEnv(t, t.TempDir(), domain.ModeUnrestricted)
	_, notes, notices := readyTools(set, ctx, env)
	out := set.Call(ctx, env, call("mcp__web__echo", `{"text":"signed"}`), nil)
	if out.Outcome != domain.OutcomeSuccess {
		return out.Content + "\n" + strings.Join(append(notes, notices...), "\n"), out.Outcome
	}
	return out.Content, out.Outcome
}

// Issue 26: a URL server that answers 401 "needs sign-in" (not a generic failure); the
// sign-in discovers the authorization server from the 401, registers dynamically, goes
// through the browser with PKCE, and the tool call works; the tokens are in the secrets file
// and nowhere in mcp.json. An expired token is refreshed without the person (the rotated
// tokens saved), and a refused refresh is "needs sign-in" again, its dead tokens gone.
func TestOAuthSignInRefreshAndRefusal(t *testing.T) {
	a := mcptest.NewAuthServer(t)
	hub, store, path := oauthHub(t, a, Options{})
	serverURL := a.Endpoint()

	if out, outcome := callEcho(t, hub); outcome != domain.OutcomeError || !strings.Contains(out, "login web") {
		t.Fatalf("before the sign-in: %s %q", outcome, out)
	}
	if st := statusOf(hub, "web"); st.State != StateNeedsSignIn {
		t.Fatalf("before the sign-in the state is %q (%s), want %q", st.State, st.Error, StateNeedsSignIn)
	}
	// A conversation open while the person signs in uses the server from its next request on.
	open := hub.NewSet(t.TempDir())
	defer open.Close()
	env := testEnv(t, t.TempDir(), domain.ModeUnrestricted)
	if specs, _, _ := readyTools(open, context.Background(), env); len(specs) != 0 {
		t.Fatalf("tools before the sign-in: %v", specNames(specs))
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := hub.SignIn(ctx, "web", "", mcptest.Browser(t)); err != nil {
		t.Fatal(err)
	}
	registered, clientIDs, grants := a.Seen()
	if len(registered) != 1 || len(clientIDs) != 1 || clientIDs[0] != registered[0] || strings.Join(grants, ",") != "authorization_code" {
		t.Fatalf("registered %v, authorized %v, grants %v", registered, clientIDs, grants)
	}
	if st := statusOf(hub, "web"); st.State == StateNeedsSignIn {
		t.Fatalf("after the sign-in the state is still %q", st.State)
	}
	first := saved(t, store, serverURL)
	if first == nil || first.Token.AccessToken == "" || first.Token.RefreshToken == "" || first.ClientID != registered[0] {
		t.Fatalf("saved after the sign-in: %+v", first)
	}
	if out, outcome := callEcho(t, hub); outcome != domain.OutcomeSuccess || out != "signed" {
		t.Fatalf("after the sign-in: %s %q", outcome, out)
	}
	if specs, notes, _ := readyTools(open, context.Background(), env); len(specs) == 0 {
		t.Fatalf("the open conversation did not start the server again after the sign-in: %v", notes)
	}
	conf, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{first.Token.AccessToken, first.Token.RefreshToken, "access_token", "refresh_token"} {
		if strings.Contains(string(conf), secret) {
			t.Fatalf("mcp.json holds %q:\n%s", secret, conf)
		}
	}
	raw, err := os.ReadFile(store.Path())
	if err != nil || !strings.Contains(string(raw), first.Token.RefreshToken) {
		t.Fatalf("the secrets file does not hold the refresh token (%v)", err)
	}

	// Expired: refreshed without the person, the rotated tokens saved.
	a.ExpireAll()
	expireSaved(t, store, serverURL)
	if out, outcome := callEcho(t, hub); outcome != domain.OutcomeSuccess || out != "signed" {
		t.Fatalf("after the expiry: %s %q", outcome, out)
	}
	if _, _, grants = a.Seen(); strings.Join(grants, ",") != "authorization_code,refresh_token" {
		t.Fatalf("grants %v, want a refresh", grants)
	}
	second := saved(t, store, serverURL)
	if second.Token.AccessToken == first.Token.AccessToken || second.Token.RefreshToken == first.Token.RefreshToken {
		t.Fatal("the refreshed tokens were not saved")
	}

	// Refused: needs sign-in again, and the dead tokens are gone.
	a.Mu.Lock()
	a.RefuseRefresh = true
	a.Mu.Unlock()
	a.ExpireAll()
	expireSaved(t, store, serverURL)
	if out, outcome := callEcho(t, hub); outcome != domain.OutcomeError || !strings.Contains(out, "needs sign-in") {
		t.Fatalf("after the refused refresh: %s %q", outcome, out)
	}
	if st := statusOf(hub, "web"); st.State != StateNeedsSignIn {
		t.Fatalf("after the refused refresh the state is %q (%s)", st.State, st.Error)
	}
	if s := saved(t, store, serverURL); s != nil {
		t.Fatal("the refused tokens are still saved")
	}
}

// A redirect whose iss is not the authorization server's, or whose state is not the one sent,
// is refused, and nothing is saved.
func TestOAuthSignInRefusesWrongIssAndState(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(a *mcptest.AuthServer)
		want string
	}{
		{"iss", func(a *mcptest.AuthServer) { a.IssOverride = "http://127.0.0.1:1" }, "issuer"},
		{"state", func(a *mcptest.AuthServer) { a.StateOverride = "forged" }, "state"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := mcptest.NewAuthServer(t)
			tc.set(a)
			hub, store, _ := oauthHub(t, a, Options{})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			err := hub.SignIn(ctx, "web", "", mcptest.Browser(t))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("sign-in: %v, want an error about the %s", err, tc.want)
			}
			if s := saved(t, store, a.Endpoint()); s != nil {
				t.Fatal("tokens were saved")
			}
			if _, _, grants := a.Seen(); len(grants) != 0 {
				t.Fatalf("the code was exchanged: %v", grants)
			}
		})
	}
}

// Where the authorization server takes Client ID Metadata Documents, the app's document URL
// is its client id and nothing is registered.
func TestOAuthSignInWithClientIDMetadataDocument(t *testing.T) {
	a := mcptest.NewAuthServer(t)
	docURL := a.ServeClientMetadata(t, clientName, callbackPath)
	hub, store, _ := oauthHub(t, a, Options{ClientMetadataURL: docURL})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := hub.SignIn(ctx, "web", "", mcptest.Browser(t)); err != nil {
		t.Fatal(err)
	}
	registered, clientIDs, _ := a.Seen()
	if len(registered) != 0 || len(clientIDs) != 1 || clientIDs[0] != docURL {
		t.Fatalf("registered %v, client ids %v; want the document's URL", registered, clientIDs)
	}
	if s := saved(t, store, a.Endpoint()); s == nil || s.ClientID != docURL {
		t.Fatalf("saved %+v", s)
	}
	if out, outcome := callEcho(t, hub); outcome != domain.OutcomeSuccess || out != "signed" {
		t.Fatalf("after the sign-in: %s %q", outcome, out)
	}
}

// The loopback listener is one-shot and checks the state itself.
func TestOAuthCallbackIsOneShot(t *testing.T) {
	cb, err := listenCallback(0)
	if err != nil {
		t.Fatal(err)
	}
	defer cb.close()
	ctx := context.Background()
	res, err := cb.await(ctx, "https://as.example/authorize?state=s1", func(string) error {
		resp, err := http.Get(cb.redirect + "?code=c&state=s1&iss=x")
		if err == nil {
			resp.Body.Close()
		}
		return err
	})
	if err != nil || res.Code != "c" || res.Iss != "x" {
		t.Fatalf("%+v %v", res, err)
	}
	resp, err := http.Get(cb.redirect + "?code=c2&state=s1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusGone {
		t.Fatalf("a second redirect got %s", resp.Status)
	}
	if !errors.Is(needsSignInError("x", ServerConfig{}), ErrNeedsSignIn) {
		t.Fatal("needsSignInError does not wrap ErrNeedsSignIn")
	}
}

// A server whose configured Authorization header is refused is told apart from one that needs
// a sign-in: the token in the file is what to mend.
func TestRefusedConfiguredHeaderIsNotASignIn(t *testing.T) {
	a := mcptest.NewAuthServer(t)
	hub, _, _ := oauthHub(t, a, Options{})
	if err := hub.SetServer("web", ServerConfig{URL: a.Endpoint(), Headers: map[string]string{"authorization": "Bearer stale"}}); err != nil {
		t.Fatal(err)
	}
	if out, outcome := callEcho(t, hub); outcome != domain.OutcomeError || !strings.Contains(out, `check the token in its "headers"`) {
		t.Fatalf("%s %q", outcome, out)
	}
	if st := statusOf(hub, "web"); st.State != StateFailed {
		t.Fatalf("the state is %q, want %q", st.State, StateFailed)
	}
}

// signIn runs a sign-in of "web" with the test browser.
func signIn(t *testing.T, hub *Hub) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return hub.SignIn(ctx, "web", "", mcptest.Browser(t))
}

// Issue 33 (auth/scope-step-up): a call answered 403 insufficient_scope naming a scope the
// sign-in did not ask for says so — "needs more permission", the 403 and the scope, not "401"
// — and the next sign-in asks for the scopes before and the challenged one together, with the
// client registered the first time (no second registration); the call then runs.
func TestOAuthStepUpAsksForTheUnionWithTheSameClient(t *testing.T) {
	a := mcptest.NewAuthServer(t)
	a.CallScope = "write"
	hub, store, _ := oauthHub(t, a, Options{})
	if err := signIn(t, hub); err != nil {
		t.Fatal(err)
	}
	out, outcome := callEcho(t, hub)
	if outcome != domain.OutcomeError || !strings.Contains(out, "needs more permission") || !strings.Contains(out, "403") ||
		!strings.Contains(out, "write") || strings.Contains(out, "401") || !strings.Contains(out, "login web") {
		t.Fatalf("the refused call: %s %q", outcome, out)
	}
	if st := statusOf(hub, "web"); st.State != StateNeedsSignIn {
		t.Fatalf("after the 403 the state is %q (%s)", st.State, st.Error)
	}
	if s := saved(t, store, a.Endpoint()); s == nil || strings.Join(s.StepUp, " ") != "write" {
		t.Fatalf("the challenged scope is not kept for the next sign-in: %+v", s)
	}
	if err := signIn(t, hub); err != nil {
		t.Fatal(err)
	}
	scopes := a.Scopes()
	if len(scopes) != 2 || !slices.Contains(strings.Fields(scopes[1]), "write") || !slices.Contains(strings.Fields(scopes[1]), "tools") {
		t.Fatalf("scopes asked for: %q; want the second sign-in to ask for tools and write", scopes)
	}
	registered, clientIDs, _ := a.Seen()
	if len(registered) != 1 || len(clientIDs) != 2 || clientIDs[1] != registered[0] {
		t.Fatalf("registered %v, authorized %v: want one client, used twice", registered, clientIDs)
	}
	if s := saved(t, store, a.Endpoint()); s == nil || len(s.StepUp) != 0 {
		t.Fatalf("the step-up is still pending after the sign-in that asked for it: %+v", s)
	}
	if out, outcome := callEcho(t, hub); outcome != domain.OutcomeSuccess || out != "signed" {
		t.Fatalf("after the second sign-in: %s %q", outcome, out)
	}
}

// A conversation whose server connection is older than the person's step-up sign-in (made
// for another conversation) takes the new sign-in's token at its next 403 and sends the call
// once more, instead of asking for a sign-in that already happened.
func TestOAuthStepUpRetriesWithANewerSignIn(t *testing.T) {
	a := mcptest.NewAuthServer(t)
	a.CallScope = "write"
	hub, _, _ := oauthHub(t, a, Options{})
	if err := signIn(t, hub); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	older := hub.NewSet(t.TempDir())
	defer older.Close()
	env := testEnv(t, t.TempDir(), domain.ModeUnrestricted)
	if specs, notes, _ := readyTools(older, ctx, env); len(specs) == 0 {
		t.Fatalf("the server did not start: %v", notes)
	}
	if out, _ := callEcho(t, hub); !strings.Contains(out, "needs more permission") {
		t.Fatalf("the first call: %q", out)
	}
	if err := signIn(t, hub); err != nil {
		t.Fatal(err)
	}
	out := older.Call(ctx, env, call("mcp__web__echo", `{"text":"again"}`), nil)
	if out.Outcome != domain.OutcomeSuccess || out.Content != "again" {
		t.Fatalf("the older connection's call: %s %q", out.Outcome, out.Content)
	}
	if n := len(a.Scopes()); n != 2 {
		t.Fatalf("%d authorization requests, want the two sign-ins", n)
	}
}

// Issue 33 (auth/scope-retry-limit): a 403 naming only scopes the sign-in already asked for is
// the server's refusal: no "sign in again" (which would loop), no step-up kept, and the server
// stays usable for its other requests.
func TestOAuthRefusedScopeIsNotASignIn(t *testing.T) {
	a := mcptest.NewAuthServer(t)
	a.CallScope = "tools" // asked for at the sign-in (the metadata names it), refused all the same
	hub, store, _ := oauthHub(t, a, Options{})
	if err := signIn(t, hub); err != nil {
		t.Fatal(err)
	}
	a.Mu.Lock()
	a.DenyCall = true
	a.Mu.Unlock()
	out, outcome := callEcho(t, hub)
	if outcome != domain.OutcomeError || !strings.Contains(out, "refused") || !strings.Contains(out, "will not help") ||
		strings.Contains(out, "needs sign-in") || strings.Contains(out, "needs more permission") {
		t.Fatalf("the refused call: %s %q", outcome, out)
	}
	if st := statusOf(hub, "web"); st.State == StateNeedsSignIn {
		t.Fatalf("a refused scope left the server %q (%s)", st.State, st.Error)
	}
	if s := saved(t, store, a.Endpoint()); s == nil || len(s.StepUp) != 0 {
		t.Fatalf("a refused scope was kept for a step-up: %+v", s)
	}
	if n := len(a.Scopes()); n != 1 {
		t.Fatalf("%d authorization requests, want the one sign-in", n)
	}
}

// Issue 33 (auth/scope-retry-limit, at the sign-in): a server that refuses even the request
// after the sign-in, for a scope the sign-in asked for, is told in words; the browser is sent
// once, not again and again.
func TestOAuthSignInRefusedAfterwardsSaysSo(t *testing.T) {
	a := mcptest.NewAuthServer(t)
	a.CallScope, a.DenyList = "tools", true
	hub, _, _ := oauthHub(t, a, Options{})
	err := signIn(t, hub)
	if err == nil || !strings.Contains(err.Error(), "403") || !strings.Contains(err.Error(), "will not help") || strings.Contains(err.Error(), "calling") {
		t.Fatalf("sign-in: %v", err)
	}
	if n := len(a.Scopes()); n != 1 {
		t.Fatalf("%d authorization requests, want 1", n)
	}
}

// Issue 33 (auth/pre-registration): an authorization server that registers nobody takes the
// client of the server's "oauth" section, its secret from the environment variable the
// section names, sent as HTTP Basic; no registration is attempted.
func TestOAuthPreRegisteredClientFromTheConfiguration(t *testing.T) {
	a := mcptest.NewAuthServer(t)
	a.Clients = map[string]string{"desk-app": "s3cret"}
	hub, store, _ := oauthHub(t, a, Options{LookupEnv: func(k string) (string, bool) {
		if k == "WEB_SECRET" {
			return "s3cret", true
		}
		return "", false
	}})
	if err := hub.SetServer("web", ServerConfig{URL: a.Endpoint(), OAuth: &OAuthConfig{ClientID: "desk-app", ClientSecret: "${WEB_SECRET}", Scopes: "tools files"}}); err != nil {
		t.Fatal(err)
	}
	if err := signIn(t, hub); err != nil {
		t.Fatal(err)
	}
	registered, clientIDs, grants := a.Seen()
	if len(registered) != 0 || strings.Join(clientIDs, ",") != "desk-app" || strings.Join(grants, ",") != "authorization_code" {
		t.Fatalf("registered %v, authorized %v, grants %v", registered, clientIDs, grants)
	}
	if got := a.Scopes(); len(got) != 1 || !slices.Contains(strings.Fields(got[0]), "files") {
		t.Fatalf("scopes asked for %q, want the section's", got)
	}
	if s := saved(t, store, a.Endpoint()); s == nil || s.ClientID != "desk-app" || s.Registered {
		t.Fatalf("saved %+v", s)
	}
	if out, outcome := callEcho(t, hub); outcome != domain.OutcomeSuccess || out != "signed" {
		t.Fatalf("after the sign-in: %s %q", outcome, out)
	}
}

// The section's secret may instead be in the keyring (SaveClientSecret, what
// `mcp login --client-secret` calls); a wrong one is the authorization server's refusal,
// said without a web page.
func TestOAuthClientSecretFromTheKeyring(t *testing.T) {
	a := mcptest.NewAuthServer(t)
	a.Clients = map[string]string{"desk-app": "s3cret"}
	hub, _, _ := oauthHub(t, a, Options{})
	if err := hub.SetServer("web", ServerConfig{URL: a.Endpoint(), OAuth: &OAuthConfig{ClientID: "desk-app"}}); err != nil {
		t.Fatal(err)
	}
	if err := hub.SaveClientSecret("web", "", "wrong\n"); err != nil {
		t.Fatal(err)
	}
	if err := signIn(t, hub); err == nil || strings.Contains(err.Error(), "<") {
		t.Fatalf("a wrong secret: %v", err)
	}
	if err := hub.SaveClientSecret("web", "", "s3cret\n"); err != nil {
		t.Fatal(err)
	}
	if err := signIn(t, hub); err != nil {
		t.Fatal(err)
	}
	if out, outcome := callEcho(t, hub); outcome != domain.OutcomeSuccess || out != "signed" {
		t.Fatalf("after the sign-in: %s %q", outcome, out)
	}
}

// Issue 33 (auth/resource-mismatch): protected resource metadata naming another resource
// stops the sign-in before anything is registered or authorized, in words (no web page).
func TestOAuthSignInStopsAtAResourceMismatch(t *testing.T) {
	a := mcptest.NewAuthServer(t)
	a.Resource = "https://evil.example.com/mcp"
	hub, store, _ := oauthHub(t, a, Options{})
	err := signIn(t, hub)
	if err == nil || !strings.Contains(err.Error(), "https://evil.example.com/mcp") || !strings.Contains(err.Error(), "stopped") || strings.Contains(err.Error(), "<") {
		t.Fatalf("sign-in: %v", err)
	}
	if registered, clientIDs, _ := a.Seen(); len(registered) != 0 || len(clientIDs) != 0 {
		t.Fatalf("registered %v, authorized %v after a mismatch", registered, clientIDs)
	}
	if s := saved(t, store, a.Endpoint()); s != nil {
		t.Fatal("tokens were saved")
	}
}

func TestResourceCovers(t *testing.T) {
	server, _ := url.Parse("http://127.0.0.1:8080/api/mcp")
	for res, want := range map[string]bool{
		"http://127.0.0.1:8080/api/mcp": true, "http://127.0.0.1:8080/api/mcp/": true, "http://127.0.0.1:8080/api": true,
		"http://127.0.0.1:8080": true, "http://127.0.0.1:8080/ap": false, "https://127.0.0.1:8080/api/mcp": false,
		"http://127.0.0.1:9090/api/mcp": false, "https://evil.example.com/mcp": false,
	} {
		if got := resourceCovers(res, server); got != want {
			t.Errorf("resourceCovers(%q) = %v, want %v", res, got, want)
		}
	}
}

// A sign-in that fails at a server answering with an HTML page says so in words.
func TestPlainWordsDropsAWebPage(t *testing.T) {
	err := plainWords(errors.New(`failed to register client: registration failed with status 404 Not Found: <!DOCTYPE html><html><body><pre>Cannot POST /register</pre></body></html>`))
	if strings.Contains(err.Error(), "<") || !strings.Contains(err.Error(), "404 Not Found") || !strings.Contains(err.Error(), "web page") {
		t.Fatalf("%v", err)
	}
	if plain := errors.New("token exchange failed: invalid_grant"); plainWords(plain) != plain {
		t.Fatal("an error without a page was changed")
	}
}
