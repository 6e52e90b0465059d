package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/phoenix-desktop/phoenix/secrets"
)

// OAuth for URL (streamable HTTP) servers. A sign-in is the person's act (Settings' "Sign in",
// `phoenix-desktop mcp login NAME`): signin.go runs the SDK's authorization-code handler
// (discovery from the 401's WWW-Authenticate, PKCE, a Client ID Metadata Document where the
// authorization server takes one and dynamic registration otherwise, iss checked) against a
// one-shot loopback listener, and saves the tokens in the secrets store, one entry per server
// URL. Every later connection (this file) only sends and refreshes those tokens: a server that
// answers 401 is "needs sign-in", never a browser opened in the middle of a conversation.

// TokenStore keeps the sign-in tokens; secrets.Store satisfies it. Get answers
// secrets.ErrNotFound when nothing is stored under the name.
type TokenStore interface {
	Get(name string) (string, error)
	Set(name, value string) error
}

// ErrNeedsSignIn is why a URL server that answered 401 (or whose refresh was refused) is not
// used: the person has to sign in once more.
var ErrNeedsSignIn = errors.New(`needs sign-in: the server answered 401 Unauthorized; press "Sign in" on its card in Settings → MCP, or run phoenix-desktop mcp login NAME`)

// tokenEntry is the name of a server's tokens in the secrets store: one entry per server URL,
// so two names for the same server share one sign-in and a changed URL asks again.
func tokenEntry(serverURL string) string { return "mcp-oauth " + serverURL }

// savedAuth is what a sign-in keeps: the tokens and what refreshing them needs. It lives only
// in the secrets store, never in mcp.json or a log.
type savedAuth struct {
	Token        *oauth2.Token    `json:"token"`
	ClientID     string           `json:"client_id"`
	ClientSecret string           `json:"client_secret,omitempty"`
	AuthURL      string           `json:"auth_url,omitempty"`
	TokenURL     string           `json:"token_url"`
	AuthStyle    oauth2.AuthStyle `json:"auth_style,omitempty"`
	// Scopes are the scopes the sign-in asked for.
	Scopes []string `json:"scopes,omitempty"`
	// Issuer is the authorization server the client is registered with, and Registered marks
	// a client the app registered there itself (dynamic registration): the next sign-in at
	// the same issuer uses it again instead of registering one more.
	Issuer     string `json:"issuer,omitempty"`
	Registered bool   `json:"registered,omitempty"`
	// StepUp are the scopes a server asked for since (a 403 insufficient_scope naming scopes
	// the sign-in did not ask for): the next sign-in asks for Scopes and StepUp together.
	StepUp []string `json:"step_up,omitempty"`
}

func (s *savedAuth) config() *oauth2.Config {
	return &oauth2.Config{ClientID: s.ClientID, ClientSecret: s.ClientSecret, Scopes: s.Scopes,
		Endpoint: oauth2.Endpoint{AuthURL: s.AuthURL, TokenURL: s.TokenURL, AuthStyle: s.AuthStyle}}
}

func fromConfig(cfg *oauth2.Config, tok *oauth2.Token) *savedAuth {
	return &savedAuth{Token: tok, ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, AuthURL: cfg.Endpoint.AuthURL,
		TokenURL: cfg.Endpoint.TokenURL, AuthStyle: cfg.Endpoint.AuthStyle, Scopes: cfg.Scopes}
}

// tokenStore is the store of sign-in tokens, opened on first use (the Secret Service's probe
// must not slow down a start that has no URL server); nil when the hub has none.
func (h *Hub) tokenStore() (TokenStore, error) {
	if h.opts.Tokens == nil {
		return nil, nil
	}
	return h.opts.Tokens()
}

// loadAuth reads a server's saved sign-in; nil, nil when there is none.
func loadAuth(store TokenStore, serverURL string) (*savedAuth, error) {
	if store == nil {
		return nil, nil
	}
	raw, err := store.Get(tokenEntry(serverURL))
	if errors.Is(err, secrets.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the sign-in of %s: %w", redactURL(serverURL), err)
	}
	var s savedAuth
	if err := json.Unmarshal([]byte(raw), &s); err != nil || s.Token == nil {
		// The decoder's error may quote the tokens: never pass it on.
		return nil, nil
	}
	return &s, nil
}

func saveAuth(store TokenStore, serverURL string, s *savedAuth) error {
	if store == nil {
		return errors.New("there is no keyring or private file to keep the tokens in")
	}
	b, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("encode the sign-in of %s: %w", redactURL(serverURL), err)
	}
	return store.Set(tokenEntry(serverURL), string(b))
}

// redactURL is a URL without its query and password, for messages.
func redactURL(u string) string { return ServerConfig{URL: u}.Redacted().URL }

// authClient is the HTTP client of discovery, registration and the token endpoint: the
// hub's client without the server's configured headers, which are the server's and must not
// reach an authorization server. By default the SDK refuses to discover on loopback and
// private addresses (a remote server must not point the app at the person's own machine);
// a server the person configured on this machine may have its authorization server here too.
func (h *Hub) authClient(serverURL string) *http.Client {
	if h.opts.HTTPClient != nil {
		return h.opts.HTTPClient
	}
	if u, err := url.Parse(serverURL); err == nil {
		if ip, err := netip.ParseAddr(u.Hostname()); (err == nil && ip.IsLoopback()) || u.Hostname() == "localhost" {
			// A client that dials by itself opts out of the SDK's address checks.
			return &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment,
				DialContext: (&net.Dialer{Timeout: 30 * time.Second}).DialContext}}
		}
	}
	return http.DefaultClient
}

// storedAuth is the OAuth handler of one connection to a URL server: it sends the saved
// tokens, refreshes them without the person (saving what the refresh gave), and turns a 401 —
// no tokens, or tokens the server no longer takes — into ErrNeedsSignIn. A 403
// insufficient_scope naming a scope the sign-in did not ask for is kept with the sign-in
// (savedAuth.StepUp) and asks for a new sign-in, which asks for it too; one naming only scopes
// the sign-in asked for already is the server's refusal, which signing in again would only
// repeat.
type storedAuth struct {
	hub       *Hub
	serverURL string
	// needsSignIn is set when the server answered 401 or the authorization server refused a
	// refresh; the start or call that failed is then reported as "needs sign-in".
	needsSignIn atomic.Bool

	mu sync.Mutex
	// scopes are those of the latest 403 insufficient_scope; refused says whether the
	// sign-in had asked for all of them already.
	scopes  []string
	refused bool

	once    sync.Once
	source  *savingSource
	loadErr error
}

var _ auth.OAuthHandler = (*storedAuth)(nil)

func (h *Hub) storedAuth(serverURL string) *storedAuth {
	return &storedAuth{hub: h, serverURL: serverURL}
}

// TokenSource implements auth.OAuthHandler: the saved tokens, read once per connection.
func (a *storedAuth) TokenSource(context.Context) (oauth2.TokenSource, error) {
	a.once.Do(func() {
		store, err := a.hub.tokenStore()
		if err != nil {
			a.loadErr = fmt.Errorf("read the sign-in of %s: %w", redactURL(a.serverURL), err)
			return
		}
		var saved *savedAuth
		err = bounded(func() (err error) {
			saved, err = loadAuth(store, a.serverURL)
			return err
		})
		if err != nil || saved == nil {
			a.loadErr = err
			return
		}
		// The refreshes outlive the request that first asks: they carry the client, not its
		// context.
		ctx := context.WithValue(context.Background(), oauth2.HTTPClient, a.hub.authClient(a.serverURL))
		a.source = &savingSource{a: a, store: store, ctx: ctx, saved: saved, last: saved.Token.AccessToken,
			base: saved.config().TokenSource(ctx, saved.Token)}
	})
	if a.loadErr != nil || a.source == nil {
		return nil, a.loadErr
	}
	return a.source, nil
}

// Authorize implements auth.OAuthHandler. It never opens a browser: a conversation's start or
// call is no moment to ask the person to sign in. A 403 other than insufficient_scope is the
// server's refusal, not a matter of signing in: the request is answered as it was.
func (a *storedAuth) Authorize(ctx context.Context, _ *http.Request, resp *http.Response) error {
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		a.needsSignIn.Store(true)
		return ErrNeedsSignIn
	}
	cs, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if !insufficientScope(cs) {
		return nil
	}
	challenged := challengeScopes(cs)
	var saved *savedAuth
	if _, err := a.TokenSource(ctx); err == nil && a.source != nil {
		saved = a.source.current()
	}
	if saved == nil {
		a.needsSignIn.Store(true)
		return ErrNeedsSignIn
	}
	extra := missing(challenged, saved.Scopes)
	if len(extra) > 0 && a.source.newer(challenged) {
		// The person has signed in with the wider scope since this connection started: the
		// transport sends the request once more, with that sign-in's token.
		return nil
	}
	a.mu.Lock()
	a.scopes, a.refused = challenged, len(extra) == 0
	a.mu.Unlock()
	if len(extra) == 0 {
		return errScopeRefused
	}
	// The next sign-in asks for these too; a failed save still tells the person what to do,
	// and their sign-in then asks for what the server names at that time.
	a.source.stepUp(extra)
	a.needsSignIn.Store(true)
	return ErrNeedsSignIn
}

// errScopeRefused is what Authorize answers a 403 insufficient_scope that a new sign-in
// would not mend; failure says it in words.
var errScopeRefused = errors.New("the server refused the request for want of a scope the sign-in already asked for")

func insufficientScope(cs []oauthex.Challenge) bool {
	for _, c := range cs {
		if c.Params["error"] == "insufficient_scope" {
			return true
		}
	}
	return false
}

// challengeScopes are the scopes a Bearer challenge names.
func challengeScopes(cs []oauthex.Challenge) []string {
	for _, c := range cs {
		if strings.EqualFold(c.Scheme, "bearer") && c.Params["scope"] != "" {
			return strings.Fields(c.Params["scope"])
		}
	}
	return nil
}

// missing are the scopes of want that have does not hold, in want's order.
func missing(want, have []string) []string {
	var out []string
	for _, s := range want {
		if !slices.Contains(have, s) && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// union is a followed by the scopes of b it lacks.
func union(a, b []string) []string {
	return append(slices.Clip(a), missing(b, a)...)
}

// failed reports whether the connection ended in a state only the person can mend: a new
// sign-in, or the server's owner granting a permission.
func (a *storedAuth) failed() bool {
	if a == nil {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.needsSignIn.Load() || a.refused
}

// failure is why the connection of the server name failed (failed is true): ErrNeedsSignIn
// in the person's words, or the server's refusal of a scope.
func (a *storedAuth) failure(name string, cfg ServerConfig) error {
	a.mu.Lock()
	scopes, refused := a.scopes, a.refused
	if refused {
		// A refusal is one request's: the connection goes on for the next.
		a.scopes, a.refused = nil, false
	}
	a.mu.Unlock()
	switch {
	case refused && len(scopes) == 0:
		return fmt.Errorf("MCP server %s refused the request: it answered 403 Forbidden (insufficient_scope) without naming the permission it wants, so signing in again would ask for the same; ask whoever runs the server", name)
	case refused:
		return fmt.Errorf("MCP server %s refused the request: it answered 403 Forbidden asking for %s, which the sign-in already asked for; signing in again will not help, ask whoever runs the server for that permission", name, scopeWords(scopes))
	case scopes != nil:
		return scopeError{name: name, scopes: scopes}
	}
	return needsSignInError(name, cfg)
}

func scopeWords(scopes []string) string {
	if len(scopes) == 1 {
		return "the scope " + scopes[0]
	}
	return "the scopes " + strings.Join(scopes, " ")
}

// scopeError is a call the server answered 403 insufficient_scope for a scope the sign-in did
// not ask for: the person signs in again, and that sign-in asks for it as well.
type scopeError struct {
	name   string
	scopes []string
}

func (e scopeError) Error() string {
	return fmt.Sprintf(`MCP server %s needs more permission: it answered 403 Forbidden asking for %s; sign in again (press "Sign in" on its card in Settings → MCP, or run phoenix-desktop mcp login %s) and the sign-in asks for it too, then try again`,
		e.name, scopeWords(e.scopes), e.name)
}

func (e scopeError) Is(target error) bool { return target == ErrNeedsSignIn }

// savingSource saves every token a refresh gives (a rotated refresh token must outlive the
// app), and forgets the saved sign-in when the authorization server refuses the refresh.
type savingSource struct {
	a     *storedAuth
	store TokenStore
	ctx   context.Context // of the refreshes: the authorization server's HTTP client

	mu    sync.Mutex
	base  oauth2.TokenSource
	saved *savedAuth
	last  string
}

// newer adopts a sign-in saved since this connection read its own (the person signed in
// again, from Settings or another process) when its scopes hold want; ok says whether the
// request should be sent again with it.
func (s *savingSource) newer(want []string) (ok bool) {
	var fresh *savedAuth
	if bounded(func() (err error) {
		fresh, err = loadAuth(s.store, s.a.serverURL)
		return err
	}) != nil || fresh == nil || len(missing(want, fresh.Scopes)) > 0 {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if fresh.Token.AccessToken == s.last {
		return false
	}
	s.saved, s.last = fresh, fresh.Token.AccessToken
	s.base = fresh.config().TokenSource(s.ctx, fresh.Token)
	return true
}

// current is the sign-in as saved now.
func (s *savingSource) current() *savedAuth {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.saved
}

// stepUp keeps scopes with the saved sign-in for the next sign-in to ask for.
func (s *savingSource) stepUp(scopes []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := *s.saved
	next.StepUp = union(next.StepUp, scopes)
	if bounded(func() error { return saveAuth(s.store, s.a.serverURL, &next) }) == nil {
		s.saved = &next
	}
}

func (s *savingSource) Token() (*oauth2.Token, error) {
	s.mu.Lock()
	base := s.base
	s.mu.Unlock()
	tok, err := base.Token()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.base != base {
		// A newer sign-in was adopted meanwhile (newer): this token is the old one's, not
		// to be saved over it.
		return tok, err
	}
	var refused *oauth2.RetrieveError
	if errors.As(err, &refused) {
		// The refresh token is no good any more (revoked, expired, rotated elsewhere): only the
		// person can mend that, so the server needs a sign-in and the dead tokens go.
		s.a.needsSignIn.Store(true)
		_ = bounded(func() error { return s.store.Set(tokenEntry(s.a.serverURL), "") })
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if tok.AccessToken != s.last {
		s.last = tok.AccessToken
		next := *s.saved
		next.Token = tok
		// A failed save keeps the new token for this connection; the next start refreshes
		// again from the saved one, or asks for a sign-in if it was rotated away.
		if bounded(func() error { return saveAuth(s.store, s.a.serverURL, &next) }) == nil {
			s.saved = &next
		}
	}
	return tok, nil
}

// needsSignInError is ErrNeedsSignIn with the server's name, in the command to run too. A
// server whose configuration sends its own Authorization header refused that header: a
// sign-in is not what the person meant, the token in the file is what to mend.
func needsSignInError(name string, cfg ServerConfig) error {
	for k := range cfg.Headers {
		if strings.EqualFold(k, "Authorization") {
			return fmt.Errorf(`MCP server %s answered 401 Unauthorized to the Authorization header of its configuration: check the token in its "headers" (or remove the header to sign in with OAuth instead), then retry it in Settings`, name)
		}
	}
	return signInError{name}
}

type signInError struct{ name string }

func (e signInError) Error() string {
	return "MCP server " + e.name + " " + strings.Replace(ErrNeedsSignIn.Error(), "login NAME", "login "+e.name, 1)
}

func (e signInError) Is(target error) bool { return target == ErrNeedsSignIn }

// failedState is the state of a server whose start failed with err.
func failedState(err error) State {
	if errors.Is(err, ErrNeedsSignIn) {
		return StateNeedsSignIn
	}
	return StateFailed
}

// bounded runs one read or write of the secrets store within secrets.Timeout (secrets.Within):
// a server's requests have no context to end them here. A call that does not answer says
// what to do.
func bounded(f func() error) error {
	err := secrets.Within(f)
	if errors.Is(err, secrets.ErrNoAnswer) {
		return fmt.Errorf("the keyring did not answer within %s: unlock it, then retry the server in Settings", secrets.Timeout)
	}
	return err
}
