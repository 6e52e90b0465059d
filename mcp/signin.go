package mcp

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// callbackPath is where the loopback listener takes the authorization server's redirect.
const callbackPath = "/callback"

// SignIn signs the person in to the URL server name (as a conversation in cwd resolves it):
// it connects with the SDK's authorization-code handler, which discovers the authorization
// server from the server's 401 (protected resource metadata, then RFC 8414 or OpenID
// metadata), registers the app (a Client ID Metadata Document, Options.ClientMetadataURL,
// where the server takes one; dynamic registration otherwise) and builds the authorization
// URL with PKCE; open shows that URL to the person (a browser, or a printed line); a one-shot
// listener on 127.0.0.1 takes the redirect and checks its state, the handler checks iss and
// exchanges the code. The tokens go to the secrets store, and every conversation's failed
// start of the server is retried.
func (h *Hub) SignIn(ctx context.Context, name, cwd string, open func(authURL string) error) error {
	c, ok := h.configFor(name, cwd)
	switch {
	case !ok:
		return fmt.Errorf("sign in to %s: there is no MCP server of that name", name)
	case !c.IsURL() || c.IsSSE():
		return fmt.Errorf("sign in to %s: only a URL (streamable HTTP) server signs in; this one is %s", name, c.Kind())
	}
	if cwd == "" {
		cwd, _ = os.UserHomeDir()
	}
	rc, err := c.resolved(name, cwd, h.opts.LookupEnv)
	if err != nil {
		return err
	}
	store, err := h.tokenStore()
	if err == nil && store == nil {
		err = errors.New("there is no keyring or private file to keep the tokens in")
	}
	if err != nil {
		return fmt.Errorf("sign in to %s: %w", name, err)
	}

	cb, err := listenCallback()
	if err != nil {
		return fmt.Errorf("sign in to %s: %w", name, err)
	}
	defer cb.close()
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL: cb.redirect,
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: clientName, RedirectURIs: []string{cb.redirect}, TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		}},
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			return cb.await(ctx, args.URL, open)
		},
		RequestRefreshToken: true,
		// iss is always compared when it is sent; a server that sends it without saying so in
		// its metadata is still held to it.
		AcceptUnadvertisedIss: true,
		Client:                h.authClient(rc.URL),
		NewTokenSource: func(ctx context.Context, oc *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			if err := bounded(func() error { return saveAuth(store, rc.URL, fromConfig(oc, tok)) }); err != nil {
				return nil, err
			}
			return oc.TokenSource(ctx, tok), nil
		},
	}
	if h.opts.ClientMetadataURL != "" {
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: h.opts.ClientMetadataURL}
	}
	handler, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		return fmt.Errorf("sign in to %s: %w", name, err)
	}
	rec := &recordingHandler{AuthorizationCodeHandler: handler}
	client := sdk.NewClient(&sdk.Implementation{Name: clientName, Version: "1"}, nil)
	session, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: rc.URL,
		HTTPClient: withHeaders(h.opts.HTTPClient, rc.Headers), OAuthHandler: rec}, nil)
	if authErr := rec.failure(); authErr != nil {
		err = authErr // the handler's own words, not the transport's wrapping of them
	}
	if err != nil {
		return fmt.Errorf("sign in to %s: %w", name, err)
	}
	session.Close()
	if !rec.asked() {
		return fmt.Errorf("sign in to %s: the server did not ask for a sign-in (it answered without one)", name)
	}
	// Every conversation whose start needed the sign-in starts the server again: a Retry
	// clears "needs sign-in" as it clears a failed start.
	h.Retry(name)
	return nil
}

// recordingHandler keeps what the authorization flow said, since the transport wraps it, and
// runs the flow once: a refused sign-in is not sent to the browser again when the transport
// retries (the listener is one-shot anyway).
type recordingHandler struct {
	*auth.AuthorizationCodeHandler
	mu     sync.Mutex
	called bool
	err    error
}

func (r *recordingHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		resp.Body.Close()
		return r.err
	}
	r.called = true
	r.err = r.AuthorizationCodeHandler.Authorize(ctx, req, resp)
	return r.err
}

func (r *recordingHandler) failure() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

func (r *recordingHandler) asked() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.called
}

// callback is the one-shot loopback listener the authorization server redirects the browser
// to: it takes the first redirect whose state is the one sent, and nothing after it.
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

func listenCallback() (*callback, error) {
	// 127.0.0.1 rather than localhost: a name could resolve elsewhere (RFC 8252, 8.3).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
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
	cb.state = u.Query().Get("state")
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
