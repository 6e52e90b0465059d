package mcptest

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// AuthServer is a small OAuth 2.1 authorization server of our own (metadata, /authorize,
// /token with PKCE and refresh, /register) in front of a streamable-HTTP MCP server from the
// SDK that takes only its bearer tokens.
type AuthServer struct {
	AS, MCP *httptest.Server
	CIMD    *httptest.Server // the app's Client ID Metadata Document, when the test serves one

	Mu sync.Mutex
	// Switches, set under Mu.
	IssOverride   string // sent as iss instead of the issuer
	StateOverride string // sent as state instead of the one received
	RefuseRefresh bool
	TakeCIMD      bool // advertise client_id_metadata_document_supported
	// CallScope, when set, is a scope tools/call needs beyond those of the sign-in: a token
	// without it is answered 403 insufficient_scope naming it (a step-up).
	CallScope string
	// DenyCall answers every tools/call 403 insufficient_scope naming CallScope, granted or
	// not; DenyList does the same to tools/list.
	DenyCall, DenyList bool
	// Clients, when set, are the only clients (id → secret) the server knows: it offers no
	// registration and takes client_secret_basic at its token endpoint (pre-registration).
	Clients map[string]string
	// Resource, when set, is the resource the protected resource metadata names instead of
	// the MCP server's own address.
	Resource string
	// what happened
	scopes     []string // the scope parameter of each /authorize
	registered []string // client ids /register gave
	clientIDs  []string // client ids /authorize saw
	grants     []string // grant types /token served
	codes      map[string]codeGrant
	access     map[string]time.Time // access token → expiry
	granted    map[string][]string  // access token → scopes
	refresh    map[string]string    // refresh token → client id
}

type codeGrant struct{ challenge, clientID, redirect, scope string }

// NewAuthServer starts the authorization server and the MCP server behind it; both stop with t.
func NewAuthServer(t testing.TB) *AuthServer {
	a := &AuthServer{codes: map[string]codeGrant{}, access: map[string]time.Time{}, refresh: map[string]string{}, granted: map[string][]string{}}
	a.AS = httptest.NewServer(http.HandlerFunc(a.serveAS))
	t.Cleanup(a.AS.Close)

	mux := http.NewServeMux()
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return NewServer() }, nil)
	a.MCP = httptest.NewServer(mux)
	t.Cleanup(a.MCP.Close)
	prmURL := a.MCP.URL + "/.well-known/oauth-protected-resource/mcp"
	mux.Handle("/mcp", a.stepUp(prmURL, auth.RequireBearerToken(a.verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: prmURL})(mcpHandler)))
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, _ *http.Request) {
		a.Mu.Lock()
		resource := a.Resource
		a.Mu.Unlock()
		if resource == "" {
			resource = a.MCP.URL + "/mcp"
		}
		writeJSON(w, map[string]any{"resource": resource, "authorization_servers": []string{a.AS.URL}, "scopes_supported": []string{"tools"}})
	})
	return a
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func randomText() string { return rand.Text() }

func (a *AuthServer) verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	a.Mu.Lock()
	defer a.Mu.Unlock()
	exp, ok := a.access[token]
	if !ok || time.Now().After(exp) {
		return nil, auth.ErrInvalidToken
	}
	return &auth.TokenInfo{Expiration: exp, Scopes: []string{"tools"}}, nil
}

// stepUp answers a tools/call whose valid token lacks CallScope with 403 insufficient_scope.
func (a *AuthServer) stepUp(prmURL string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.Mu.Lock()
		need, denyCall, denyList := a.CallScope, a.DenyCall, a.DenyList
		a.Mu.Unlock()
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if need == "" || !ok || r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string `json:"method"`
		}
		json.Unmarshal(body, &msg)
		a.Mu.Lock()
		granted, known := a.granted[token]
		a.Mu.Unlock()
		if known && ((msg.Method == "tools/call" && (denyCall || !slices.Contains(granted, need))) || (msg.Method == "tools/list" && denyList)) {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope=%q, resource_metadata=%q`, need, prmURL))
			http.Error(w, `{"error":"insufficient_scope"}`, http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (a *AuthServer) serveAS(w http.ResponseWriter, r *http.Request) {
	a.Mu.Lock()
	defer a.Mu.Unlock()
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server":
		meta := map[string]any{
			"issuer": a.AS.URL, "authorization_endpoint": a.AS.URL + "/authorize", "token_endpoint": a.AS.URL + "/token",
			"registration_endpoint": a.AS.URL + "/register", "response_types_supported": []string{"code"},
			"code_challenge_methods_supported": []string{"S256"}, "grant_types_supported": []string{"authorization_code", "refresh_token"},
			"token_endpoint_auth_methods_supported": []string{"none"}, "scopes_supported": []string{"tools", "offline_access"},
			"authorization_response_iss_parameter_supported": true, "client_id_metadata_document_supported": a.TakeCIMD,
		}
		if a.Clients != nil {
			delete(meta, "registration_endpoint")
			meta["token_endpoint_auth_methods_supported"] = []string{"client_secret_basic"}
		}
		writeJSON(w, meta)
	case "/register":
		if a.Clients != nil {
			http.NotFound(w, r)
			return
		}
		var md struct {
			RedirectURIs []string `json:"redirect_uris"`
		}
		if err := json.NewDecoder(r.Body).Decode(&md); err != nil || len(md.RedirectURIs) == 0 {
			http.Error(w, `{"error":"invalid_client_metadata"}`, http.StatusBadRequest)
			return
		}
		id := "client-" + randomText()
		a.registered = append(a.registered, id)
		w.WriteHeader(http.StatusCreated)
		writeJSON(w, map[string]any{"client_id": id, "redirect_uris": md.RedirectURIs, "token_endpoint_auth_method": "none"})
	case "/authorize":
		q := r.URL.Query()
		if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("response_type") != "code" {
			http.Error(w, "PKCE (S256) is required", http.StatusBadRequest)
			return
		}
		redirect, err := url.Parse(q.Get("redirect_uri"))
		if err != nil || redirect.Hostname() != "127.0.0.1" {
			http.Error(w, "the redirect must be a loopback address", http.StatusBadRequest)
			return
		}
		if strings.HasPrefix(q.Get("client_id"), "https://") && !a.checkCIMD(q.Get("client_id"), redirect) {
			http.Error(w, "the client's metadata document does not allow this redirect", http.StatusBadRequest)
			return
		}
		a.clientIDs = append(a.clientIDs, q.Get("client_id"))
		a.scopes = append(a.scopes, q.Get("scope"))
		code := randomText()
		a.codes[code] = codeGrant{challenge: q.Get("code_challenge"), clientID: q.Get("client_id"), redirect: q.Get("redirect_uri"), scope: q.Get("scope")}
		back := redirect.Query()
		back.Set("code", code)
		back.Set("state", q.Get("state"))
		if a.StateOverride != "" {
			back.Set("state", a.StateOverride)
		}
		back.Set("iss", a.AS.URL)
		if a.IssOverride != "" {
			back.Set("iss", a.IssOverride)
		}
		redirect.RawQuery = back.Encode()
		http.Redirect(w, r, redirect.String(), http.StatusFound)
	case "/token":
		r.ParseForm()
		grant := r.PostForm.Get("grant_type")
		a.grants = append(a.grants, grant)
		if a.Clients != nil {
			user, pass, ok := r.BasicAuth()
			id, _ := url.QueryUnescape(user)
			secret, _ := url.QueryUnescape(pass)
			if want, known := a.Clients[id]; !ok || !known || secret != want {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnauthorized)
				json.NewEncoder(w).Encode(map[string]string{"error": "invalid_client"})
				return
			}
		}
		var clientID, scope string
		switch grant {
		case "authorization_code":
			g, ok := a.codes[r.PostForm.Get("code")]
			delete(a.codes, r.PostForm.Get("code"))
			sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
			if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge || g.redirect != r.PostForm.Get("redirect_uri") ||
				g.clientID != clientOf(r) {
				tokenError(w, "invalid_grant")
				return
			}
			clientID, scope = g.clientID, g.scope
		case "refresh_token":
			id, ok := a.refresh[r.PostForm.Get("refresh_token")]
			if !ok || a.RefuseRefresh {
				tokenError(w, "invalid_grant")
				return
			}
			delete(a.refresh, r.PostForm.Get("refresh_token")) // rotated
			clientID = id
		default:
			tokenError(w, "unsupported_grant_type")
			return
		}
		access, refresh := "at-"+randomText(), "rt-"+randomText()
		a.access[access] = time.Now().Add(time.Hour)
		a.granted[access] = strings.Fields(scope)
		a.refresh[refresh] = clientID
		writeJSON(w, map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": 3600, "refresh_token": refresh, "scope": scope})
	default:
		http.NotFound(w, r)
	}
}

// clientOf is the client of a token request: in the form, or as HTTP Basic's user name.
func clientOf(r *http.Request) string {
	if id := r.PostForm.Get("client_id"); id != "" {
		return id
	}
	user, _, _ := r.BasicAuth()
	id, _ := url.QueryUnescape(user)
	return id
}

func tokenError(w http.ResponseWriter, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	json.NewEncoder(w).Encode(map[string]string{"error": code})
}

// checkCIMD fetches a client's metadata document, as an authorization server does, and checks
// that it names itself and allows the redirect (any port of a loopback redirect, RFC 8252).
func (a *AuthServer) checkCIMD(clientID string, redirect *url.URL) bool {
	resp, err := a.CIMD.Client().Get(clientID)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var doc struct {
		ClientID     string   `json:"client_id"`
		RedirectURIs []string `json:"redirect_uris"`
	}
	if json.NewDecoder(resp.Body).Decode(&doc) != nil || doc.ClientID != clientID {
		return false
	}
	for _, u := range doc.RedirectURIs {
		if p, err := url.Parse(u); err == nil && p.Hostname() == redirect.Hostname() && p.Path == redirect.Path {
			return true
		}
	}
	return false
}

// ExpireAll makes every access token the server gave dead, as time would.
func (a *AuthServer) ExpireAll() {
	a.Mu.Lock()
	defer a.Mu.Unlock()
	for k := range a.access {
		a.access[k] = time.Time{}
	}
}

// Seen is what the server did: the client ids it registered, the client ids it authorized,
// the grant types its token endpoint served.
func (a *AuthServer) Seen() (registered, clientIDs, grants []string) {
	a.Mu.Lock()
	defer a.Mu.Unlock()
	return append([]string(nil), a.registered...), append([]string(nil), a.clientIDs...), append([]string(nil), a.grants...)
}

// Scopes are the scope parameters of the authorization requests, in order.
func (a *AuthServer) Scopes() []string {
	a.Mu.Lock()
	defer a.Mu.Unlock()
	return append([]string(nil), a.scopes...)
}

// Browser follows the sign-in page to its redirect, as the person's browser would.
func Browser(t testing.TB) func(string) error {
	return func(authURL string) error {
		resp, err := (&http.Client{}).Get(authURL)
		if err != nil {
			t.Logf("browser: %v", err)
			return nil
		}
		resp.Body.Close()
		return nil
	}
}

// Endpoint is the MCP server's address, which takes only the authorization server's tokens.
func (a *AuthServer) Endpoint() string { return a.MCP.URL + "/mcp" }

// ServeClientMetadata serves a Client ID Metadata Document for a loopback redirect at an
// HTTPS address, makes the authorization server take such documents, and returns the address.
func (a *AuthServer) ServeClientMetadata(t testing.TB, clientName, callbackPath string) string {
	a.CIMD = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"client_id": "https://" + r.Host + r.URL.Path, "client_name": clientName,
			"redirect_uris": []string{"http://127.0.0.1" + callbackPath}, "grant_types": []string{"authorization_code", "refresh_token"},
			"token_endpoint_auth_method": "none"})
	}))
	t.Cleanup(a.CIMD.Close)
	a.Mu.Lock()
	a.TakeCIMD = true
	a.Mu.Unlock()
	return a.CIMD.URL + "/oauth/client.json"
}
