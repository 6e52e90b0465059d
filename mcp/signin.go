package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/phoenix-desktop/phoenix/secrets"
)

// callbackPath is where the loopback listener takes the authorization server's redirect.
const callbackPath = "/callback"

// SignIn signs the person in to the URL server name (as a conversation in cwd resolves it):
// it connects with the SDK's authorization-code handler, which discovers the authorization
// server from the server's 401 (protected resource metadata, then RFC 8414 or OpenID
// metadata), registers the app (a Client ID Metadata Document, Options.ClientMetadataURL,
// where the server takes one; the client of the server's "oauth" section, or the one this
// app registered there before; dynamic registration otherwise) and builds the authorization
// URL with PKCE; open shows that URL to the person (a browser, or a printed line); a
// listener on 127.0.0.1 takes the redirect and checks its state, the handler checks iss and
// exchanges the code. It lists the server's tools once signed in, so a server that asks at
// its first listing rather than at the handshake signs in too. The tokens go to the secrets
// store, and every conversation's failed start of the server is retried.
//
// A sign-in asks for the scopes the server names, or those of the "oauth" section; after a
// call was refused for want of a scope (savedAuth.StepUp), for the scopes of the last sign-in
// and those together. It stops before the authorization server is asked anything when the
// server's protected resource metadata names another resource.
func (h *Hub) SignIn(ctx context.Context, name, cwd string, open func(authURL string) error) error {
	rc, store, err := h.signInServer("sign in to", "the tokens", name, cwd, nil)
	if err != nil {
		return err
	}
	f := &signInFlow{hub: h, name: name, serverURL: rc.URL, store: store, open: open}
	if err := bounded(func() (err error) {
		f.saved, err = loadAuth(store, rc.URL)
		return err
	}); err != nil {
		return fmt.Errorf("sign in to %s: %w", name, err)
	}
	port := 0
	if o := rc.OAuth; o != nil {
		port = o.CallbackPort
		f.scopes = strings.Fields(o.Scopes)
		if o.ClientID != "" {
			secret := o.ClientSecret
			if secret == "" {
				if err := bounded(func() (err error) {
					secret, err = store.Get(clientSecretEntry(rc.URL))
					if errors.Is(err, secrets.ErrNotFound) {
						return nil
					}
					return err
				}); err != nil {
					return fmt.Errorf("sign in to %s: read its client secret: %w", name, err)
				}
			}
			f.client = &oauthex.ClientCredentials{ClientID: o.ClientID}
			if secret != "" {
				f.client.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: secret}
			}
		}
	}
	if f.cb, err = listenCallback(port); err != nil {
		return fmt.Errorf("sign in to %s: %w", name, err)
	}
	defer f.cb.close()

	client := sdk.NewClient(&sdk.Implementation{Name: clientName, Version: "1"}, nil)
	httpClient := *withHeaders(h.opts.HTTPClient, rc.Headers)
	refusals := &refusalRecorder{base: httpClient.Transport}
	if refusals.base == nil {
		refusals.base = http.DefaultTransport
	}
	httpClient.Transport = refusals
	session, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: rc.URL,
		HTTPClient: &httpClient, OAuthHandler: f}, nil)
	if err == nil {
		_, err = session.ListTools(ctx, nil)
		session.Close()
	}
	if authErr := f.failure(); authErr != nil {
		err = authErr // the flow's own words, not the transport's wrapping of them
	} else if scopes, refused := refusals.last(); err != nil && refused && f.asked() {
		// The request after the sign-in was refused for a scope: the transport retries once
		// and then answers with the 403, and the client's fallbacks bury it.
		err = fmt.Errorf("the sign-in went through, but the server still refuses with 403 Forbidden asking for %s; signing in again will not help, ask whoever runs the server for that permission", scopeWords(scopes))
		if len(scopes) == 0 {
			err = errors.New("the sign-in went through, but the server still refuses with 403 Forbidden (insufficient_scope) without naming the permission it wants; ask whoever runs the server")
		}
	}
	if err != nil {
		return fmt.Errorf("sign in to %s: %w", name, plainWords(err))
	}
	if !f.asked() {
		return fmt.Errorf("sign in to %s: the server did not ask for a sign-in (it answered without one)", name)
	}
	// Every conversation whose start needed the sign-in starts the server again: a Retry
	// clears "needs sign-in" as it clears a failed start.
	h.Retry(name)
	return nil
}

// refusalRecorder notes the latest 403 insufficient_scope a sign-in's connection was answered.
type refusalRecorder struct {
	base    http.RoundTripper
	mu      sync.Mutex
	scopes  []string
	refused bool
}

func (r *refusalRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.base.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusForbidden {
		if cs, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate")); insufficientScope(cs) {
			r.mu.Lock()
			r.scopes, r.refused = challengeScopes(cs), true
			r.mu.Unlock()
		}
	}
	return resp, err
}

func (r *refusalRecorder) last() ([]string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.scopes, r.refused
}

// maxSignInRounds bounds the authorization requests of one sign-in: the first, and the
// step-ups of a server that names a new scope each time (the conformance suite allows 3).
const maxSignInRounds = 3

// clientSecretEntry is the name of the client secret of a server's "oauth" section in the
// secrets store, when the section names no environment variable for it.
func clientSecretEntry(serverURL string) string { return "mcp-oauth-client-secret " + serverURL }

// SaveClientSecret keeps the client secret of the URL server name's "oauth" client in the
// secrets store, where its sign-ins read it when the section names no environment variable.
func (h *Hub) SaveClientSecret(name, cwd, secret string) error {
	rc, store, err := h.signInServer("save the client secret of", "it", name, cwd, func(c ServerConfig) error {
		switch {
		case c.OAuth == nil || c.OAuth.ClientID == "":
			return errors.New(`its configuration has no "oauth": {"clientId": …} for the secret to belong to; add it first`)
		case strings.TrimSpace(secret) == "":
			return errors.New("the secret is empty")
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := bounded(func() error { return store.Set(clientSecretEntry(rc.URL), strings.TrimSpace(secret)) }); err != nil {
		return fmt.Errorf("save the client secret of %s: %w", name, err)
	}
	return nil
}

// signInServer finds the URL server name for a sign-in or its client secret (what, the
// words of the errors; kept, what the secrets store would keep): its configuration as the
// working directory cwd sees it (the home folder for none), checked by check when given, and
// the secrets store.
func (h *Hub) signInServer(what, kept, name, cwd string, check func(ServerConfig) error) (ServerConfig, TokenStore, error) {
	c, ok := h.configFor(name, cwd)
	switch {
	case !ok:
		return ServerConfig{}, nil, fmt.Errorf("%s %s: there is no MCP server of that name", what, name)
	case !c.IsURL() || c.IsSSE():
		return ServerConfig{}, nil, fmt.Errorf("%s %s: only a URL (streamable HTTP) server signs in; this one is %s", what, name, c.Kind())
	}
	if check != nil {
		if err := check(c); err != nil {
			return ServerConfig{}, nil, fmt.Errorf("%s %s: %w", what, name, err)
		}
	}
	if cwd == "" {
		cwd, _ = os.UserHomeDir()
	}
	rc, err := c.resolved(name, cwd, h.opts.LookupEnv)
	if err != nil {
		return ServerConfig{}, nil, err
	}
	store, err := h.tokenStore()
	if err == nil && store == nil {
		err = errors.New("there is no keyring or private file to keep " + kept + " in")
	}
	if err != nil {
		return ServerConfig{}, nil, fmt.Errorf("%s %s: %w", what, name, err)
	}
	return rc, store, nil
}

// signInFlow is the OAuth handler of one sign-in. At the server's first challenge it checks
// the protected resource metadata, chooses the client and the scopes, and hands the rest to
// the SDK's authorization-code handler; a later 403 insufficient_scope in the same sign-in
// steps up once more (the SDK asks for the union), unless it names only scopes this sign-in
// asked for already: that is the server's refusal, not something a browser round mends. A
// failed flow is not sent to the browser again when the transport retries.
type signInFlow struct {
	hub       *Hub
	name      string
	serverURL string
	store     TokenStore
	open      func(string) error
	cb        *callback
	saved     *savedAuth                 // the sign-in before this one, if any
	client    *oauthex.ClientCredentials // the "oauth" section's client
	scopes    []string                   // the "oauth" section's scopes

	mu        sync.Mutex
	handler   *auth.AuthorizationCodeHandler
	called    bool
	requested []string // the scopes this sign-in asked for
	rounds    int      // the authorization requests of this sign-in
	err       error
}

var _ auth.OAuthHandler = (*signInFlow)(nil)

func (f *signInFlow) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	f.mu.Lock()
	h := f.handler
	f.mu.Unlock()
	if h == nil {
		return nil, nil
	}
	return h.TokenSource(ctx)
}

func (f *signInFlow) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		resp.Body.Close()
		return f.err
	}
	cs, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if resp.StatusCode == http.StatusForbidden {
		if !insufficientScope(cs) {
			resp.Body.Close()
			return nil // the server's refusal, answered as it is
		}
		if f.handler != nil && len(missing(challengeScopes(cs), f.requested)) == 0 {
			resp.Body.Close()
			f.err = fmt.Errorf("the server still refuses with 403 Forbidden asking for %s, which this sign-in asked for; signing in again will not help, ask whoever runs the server for that permission", scopeWords(challengeScopes(cs)))
			return f.err
		}
	}
	if f.handler == nil {
		h, err := f.newHandler(ctx, cs)
		if err != nil {
			resp.Body.Close()
			f.err = err
			return err
		}
		f.handler = h
	}
	if f.rounds == maxSignInRounds {
		resp.Body.Close()
		f.err = fmt.Errorf("the server asked for more permission %d times in one sign-in; stopping here rather than sending you to the sign-in page again and again: ask whoever runs the server which scopes it needs, and put them in its \"oauth\".\"scopes\"", maxSignInRounds)
		return f.err
	}
	f.rounds++
	f.called = true
	if err := f.handler.Authorize(ctx, req, resp); err != nil {
		f.err = err
		return err
	}
	return nil
}

// newHandler prepares the SDK's handler for the first challenge cs.
func (f *signInFlow) newHandler(ctx context.Context, cs []oauthex.Challenge) (*auth.AuthorizationCodeHandler, error) {
	httpClient := f.hub.authClient(f.serverURL)
	issuer, err := checkResource(ctx, httpClient, cs, f.serverURL)
	if err != nil {
		return nil, err
	}
	redirect := f.cb.redirect
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL: redirect,
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: clientName, RedirectURIs: []string{redirect}, TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		}},
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			return f.cb.await(ctx, args.URL, f.open)
		},
		RequestRefreshToken: true,
		// iss is always compared when it is sent; a server that sends it without saying so in
		// its metadata is still held to it.
		AcceptUnadvertisedIss: true,
		Client:                httpClient,
		ScopeFilter:           f.chooseScopes,
	}
	reused := false
	switch {
	case f.client != nil:
		cfg.PreregisteredClient = f.client
	case f.saved != nil && f.saved.Registered && issuer != "" && f.saved.Issuer == issuer:
		// The client this app registered at this authorization server before: registering
		// one more at every sign-in would leave the server a trail of dead clients.
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: f.saved.ClientID, Issuer: issuer}
		if f.saved.ClientSecret != "" {
			cfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: f.saved.ClientSecret}
		}
		reused = true
	}
	if u := f.hub.opts.ClientMetadataURL; u != "" {
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: u}
	}
	cfg.NewTokenSource = func(ctx context.Context, oc *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
		s := fromConfig(oc, tok)
		s.Issuer = issuer
		// A client the app registered itself: not the section's, not a metadata document.
		s.Registered = reused || (f.client == nil && oc.ClientID != f.hub.opts.ClientMetadataURL)
		if err := bounded(func() error { return saveAuth(f.store, f.serverURL, s) }); err != nil {
			return nil, err
		}
		return oc.TokenSource(ctx, tok), nil
	}
	h, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		return nil, err
	}
	return h, nil
}

// chooseScopes is the sign-in's ScopeFilter: the section's scopes, else those the server
// names; after a call was refused for want of a scope, the last sign-in's and those as well.
// What it returns is what this sign-in asks for (the SDK adds offline_access and, on a step-up
// within the sign-in, what it was granted already).
func (f *signInFlow) chooseScopes(discovered []string) []string {
	scopes := discovered
	if len(f.scopes) > 0 {
		scopes = f.scopes
	}
	if f.saved != nil && len(f.saved.StepUp) > 0 {
		scopes = union(union(scopes, f.saved.Scopes), f.saved.StepUp)
	}
	f.requested = union(f.requested, scopes) // under f.mu: the SDK calls it from Authorize
	return scopes
}

func (f *signInFlow) failure() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

func (f *signInFlow) asked() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.called
}

// callback is the loopback listener the authorization server redirects the browser to: for
// each authorization URL shown it takes the first redirect, whose state must be the one sent,
// and nothing after it.
type callback struct {
	redirect string
	srv      *http.Server
	mu       sync.Mutex
	state    string
	done     bool
	result   chan callbackResult
}

type callbackResult struct {
	res *auth.AuthorizationResult
	err error
}

// listenCallback listens on port of 127.0.0.1, any free one for 0.
func listenCallback(port int) (*callback, error) {
	// 127.0.0.1 rather than localhost: a name could resolve elsewhere (RFC 8252, 8.3).
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil && port != 0 {
		return nil, fmt.Errorf(`open the loopback port %d of the server's "oauth"."callbackPort" for the browser's redirect (another program may hold it; close it and sign in again): %w`, port, err)
	}
	if err != nil {
		return nil, fmt.Errorf("open a loopback port for the browser's redirect: %w", err)
	}
	cb := &callback{redirect: "http://" + ln.Addr().String() + callbackPath, result: make(chan callbackResult, 1)}
	mux := http.NewServeMux()
	mux.HandleFunc(callbackPath, cb.serve)
	cb.srv = &http.Server{Handler: mux}
	go cb.srv.Serve(ln)
	return cb, nil
}

func (cb *callback) close() { cb.srv.Close() }

// await shows the person authURL and waits for the redirect.
func (cb *callback) await(ctx context.Context, authURL string, open func(string) error) (*auth.AuthorizationResult, error) {
	u, err := url.Parse(authURL)
	if err != nil {
		return nil, fmt.Errorf("the authorization URL cannot be read: %w", err)
	}
	cb.mu.Lock()
	cb.state, cb.done = u.Query().Get("state"), false
	cb.mu.Unlock()
	if err := open(authURL); err != nil {
		return nil, fmt.Errorf("open the sign-in page: %w", err)
	}
	select {
	case r := <-cb.result:
		return r.res, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("the browser did not come back from the sign-in page: %w", ctx.Err())
	}
}

func (cb *callback) serve(w http.ResponseWriter, r *http.Request) {
	cb.mu.Lock()
	if cb.done || cb.state == "" {
		cb.mu.Unlock()
		http.Error(w, "This sign-in link was used already, or no sign-in is waiting.", http.StatusGone)
		return
	}
	cb.done = true
	want := cb.state
	cb.mu.Unlock()
	q := r.URL.Query()
	var res callbackResult
	switch {
	case q.Get("error") != "":
		res.err = fmt.Errorf("the authorization server refused the sign-in: %s %s", q.Get("error"), q.Get("error_description"))
	case q.Get("state") != want:
		// Another page (or another sign-in) sent the browser here: its code must not be used.
		res.err = errors.New("the redirect's state does not match the sign-in that was started; start the sign-in again")
	case q.Get("code") == "":
		res.err = errors.New("the redirect carries no authorization code")
	default:
		res.res = &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if res.err != nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, "<p>Sign-in failed: %s</p><p>You can close this tab.</p>", html.EscapeString(res.err.Error()))
	} else {
		fmt.Fprint(w, "<p>Phoenix Desktop: signed in. You can close this tab.</p>")
	}
	cb.result <- res
}

// checkResource reads the server's protected resource metadata where the SDK's handler will
// (the challenge's resource_metadata, then the well-known addresses at the server's path and
// root) and stops the sign-in when the first document found names another resource: tokens
// for that resource must not be asked for on this server's word (RFC 9728, 3.3). The SDK
// alone would skip such a document and go on as if the server had none, to register at the
// server's own address. It returns the issuer of the authorization server the document
// names, "" when there is none to find.
func checkResource(ctx context.Context, client *http.Client, cs []oauthex.Challenge, serverURL string) (string, error) {
	su, err := url.Parse(serverURL)
	if err != nil {
		return "", fmt.Errorf("the server's URL cannot be read: %w", err)
	}
	var candidates []string
	for _, c := range cs {
		if u := c.Params["resource_metadata"]; u != "" {
			candidates = append(candidates, u)
			break
		}
	}
	wk := *su
	wk.RawQuery, wk.Fragment = "", ""
	if p := strings.Trim(su.Path, "/"); p != "" {
		wk.Path = "/.well-known/oauth-protected-resource/" + p
		candidates = append(candidates, wk.String())
	}
	wk.Path = "/.well-known/oauth-protected-resource"
	candidates = append(candidates, wk.String())
	for _, u := range candidates {
		meta, ok := fetchResourceMetadata(ctx, client, u)
		if !ok {
			continue
		}
		if !resourceCovers(meta.Resource, su) {
			return "", fmt.Errorf("the server's protected resource metadata (%s) names the resource %s, not this server (%s); the sign-in stopped before asking anyone for tokens. Check the server's URL in the configuration, or tell whoever runs it",
				redactURL(u), meta.Resource, redactURL(serverURL))
		}
		if len(meta.AuthorizationServers) == 0 {
			return "", nil
		}
		asm, err := auth.GetAuthServerMetadata(ctx, meta.AuthorizationServers[0], client)
		if err != nil || asm == nil {
			return meta.AuthorizationServers[0], nil
		}
		return asm.Issuer, nil
	}
	return "", nil
}

// fetchResourceMetadata reads one protected resource metadata document; ok is false when
// there is none at u (any failure: the SDK then tries the next address, and so do we).
func fetchResourceMetadata(ctx context.Context, client *http.Client, u string) (meta oauthex.ProtectedResourceMetadata, ok bool) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return meta, false
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return meta, false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return meta, false
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&meta); err != nil || meta.Resource == "" {
		return meta, false
	}
	return meta, true
}

// resourceCovers reports whether the metadata's resource is the server: the same scheme and
// host, and a path that is the server's or one above it.
func resourceCovers(resource string, server *url.URL) bool {
	r, err := url.Parse(resource)
	if err != nil || !strings.EqualFold(r.Scheme, server.Scheme) || !strings.EqualFold(r.Host, server.Host) {
		return false
	}
	rp, sp := strings.TrimSuffix(r.Path, "/"), strings.TrimSuffix(server.Path, "/")
	return rp == "" || rp == sp || strings.HasPrefix(sp, rp+"/")
}

// plainWords is err without a web page in it: an authorization server (or the MCP server, when
// the sign-in fell back to it) that answers with an HTML error page would put its markup in
// the message.
func plainWords(err error) error {
	msg := err.Error()
	lower := strings.ToLower(msg)
	cut := -1
	for _, mark := range []string{"<!doctype", "<html", "<head", "<body", "<pre", "<title", "<h1", "<p>"} {
		if i := strings.Index(lower, mark); i >= 0 && (cut < 0 || i < cut) {
			cut = i
		}
	}
	if cut < 0 {
		return err
	}
	return errors.New(strings.TrimRight(strings.TrimSpace(msg[:cut]), ":") + " (the server answered with a web page instead of JSON)")
}
