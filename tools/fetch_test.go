package tools

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/proxy"
)

// page is a small documentation page, and the Markdown a model should get from it.
const page = `<html><head><title>Docs</title><script>alert(1)</script></head><body>
<nav><a href="/">Home</a></nav><main><h1>Hello</h1><p>See <a href="/next">next</a>.</p>
<img src="/logo.png" alt="Logo"></main></body></html>`

// site counts the requests it gets, so a test can tell that a refused fetch sent nothing.
type site struct {
	*httptest.Server
	hits atomic.Int32
}

func newSite(t *testing.T, tlsServer bool) *site {
	t.Helper()
	s := &site{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		switch r.URL.Path {
		case "/big":
			w.Header().Set("Content-Type", "text/plain")
			for i := range 20000 {
				fmt.Fprintf(w, "line %05d of a long text file\n", i)
			}
		case "/photo.jpg":
			w.Header().Set("Content-Type", "image/jpeg")
			_, _ = w.Write([]byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"))
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte(page))
		}
	})
	if tlsServer {
		s.Server = httptest.NewTLSServer(h)
	} else {
		s.Server = httptest.NewServer(h)
	}
	t.Cleanup(s.Close)
	return s
}

func fetchCall(t *testing.T, f *FetchURL, ctx context.Context, env Env, url string, start int64) Output {
	t.Helper()
	args, _ := json.Marshal(map[string]any{"url": url, "start_index": start})
	return f.Run(ctx, env, args)
}

// checkPage checks a fetched page came back as Markdown, with its header.
func checkPage(t *testing.T, out Output, url string) {
	t.Helper()
	if out.Outcome != domain.OutcomeSuccess {
		t.Fatalf("outcome %s: %s", out.Outcome, out.Content)
	}
	for _, want := range []string{url + " (HTTP 200 OK, text/html, converted to Markdown)", "Title: Docs", "# Hello",
		"See [next](", "[Image: Logo](" + strings.TrimSuffix(url, "/") + "/logo.png)"} {
		if !strings.Contains(out.Content, want) {
			t.Errorf("the result lacks %q:\n%s", want, out.Content)
		}
	}
	if strings.Contains(out.Content, "alert") || strings.Contains(out.Content, "Home") {
		t.Errorf("the result holds the page's script or navigation:\n%s", out.Content)
	}
	if out.Display == nil || !strings.HasPrefix(out.Display.Summary, "200 · ") {
		t.Errorf("display %+v", out.Display)
	}
}

// In Restricted mode — and in a mode this build does not know, or none — fetch_url reaches
// nothing and tells the model to ask for Project mode (REQ-BED-014: Restricted has no
// network).
func TestFetchRefusedInRestrictedMode_REQ_BED_014(t *testing.T) {
	s := newSite(t, false)
	for _, mode := range []domain.Mode{domain.ModeRestricted, "", "sandboxed-v9"} {
		out := fetchCall(t, NewFetchURL(), t.Context(), Env{Cwd: t.TempDir(), Mode: mode, ProxySocket: "/nonexistent.sock"}, s.URL, 0)
		if out.Outcome != domain.OutcomeError || out.Content != fetchRefusedRestricted || !strings.Contains(out.Content, domain.ToolRequestModeUpgrade) {
			t.Errorf("mode %q: %s %q", mode, out.Outcome, out.Content)
		}
	}
	if n := s.hits.Load(); n != 0 {
		t.Errorf("the server got %d requests from a Restricted conversation", n)
	}
}

// In Unrestricted mode the page is fetched directly.
func TestFetchUnrestricted(t *testing.T) {
	s := newSite(t, false)
	out := fetchCall(t, NewFetchURL(), t.Context(), Env{Cwd: t.TempDir(), Mode: domain.ModeUnrestricted}, s.URL+"/", 0)
	checkPage(t, out, s.URL+"/")
}

// Markdown longer than the bash output limit (the one constant) is cut at a line's end,
// and start_index reads on: the parts put together are the whole text.
func TestFetchCapAndStartIndex(t *testing.T) {
	s := newSite(t, false)
	env := Env{Cwd: t.TempDir(), Mode: domain.ModeUnrestricted}
	f := NewFetchURL()
	var whole strings.Builder
	var start int64
	parts := 0
	for {
		out := fetchCall(t, f, t.Context(), env, s.URL+"/big", start)
		if out.Outcome != domain.OutcomeSuccess {
			t.Fatalf("part %d: %s", parts, out.Content)
		}
		_, body, _ := strings.Cut(out.Content, "\n\n")
		if len(body) > OutputLimit+300 {
			t.Fatalf("part %d is %d bytes; the limit is %d", parts, len(body), OutputLimit)
		}
		text, tail, cut := strings.Cut(body, "\n[This is bytes ")
		if !cut {
			t.Fatalf("part %d does not say which bytes it holds:\n%s", parts, out.Content[len(out.Content)-300:])
		}
		whole.WriteString(text)
		parts++
		var from, to int64
		if _, err := fmt.Sscanf(tail, "%d to %d", &from, &to); err != nil || from != start {
			t.Fatalf("part %d: %q", parts, tail)
		}
		if !strings.Contains(tail, "start_index") {
			if !strings.Contains(out.Display.Summary, "cut") {
				t.Errorf("summary %q", out.Display.Summary)
			}
			break
		}
		if !strings.Contains(tail, fmt.Sprintf("start_index %d ", to)) || !strings.HasSuffix(text, "\n") {
			t.Fatalf("part %d does not end at a line or name where to go on: %q", parts, tail)
		}
		start = to
	}
	var want strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&want, "line %05d of a long text file\n", i)
	}
	if parts < 4 || whole.String() != want.String() {
		t.Fatalf("%d parts, %d bytes put together; want %d bytes", parts, whole.Len(), want.Len())
	}
	if out := fetchCall(t, f, t.Context(), env, s.URL+"/big", int64(want.Len())+1); out.Outcome != domain.OutcomeError || !strings.Contains(out.Content, "past the end") {
		t.Errorf("past the end: %s", out.Content)
	}
}

// Binary content, a redirect loop and a server that is gone each get a result that says
// what happened and what to do.
func TestFetchFailuresSayWhy(t *testing.T) {
	s := newSite(t, false)
	env := Env{Cwd: t.TempDir(), Mode: domain.ModeUnrestricted}
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	for url, want := range map[string]string{
		s.URL + "/photo.jpg": "is image/jpeg, not text: fetch_url reads web pages and other text only",
		s.URL + "/loop":      fmt.Sprintf("stopped after %d redirects", domain.FetchMaxRedirects),
		gone.URL:             "fetch_url could not fetch " + gone.URL,
		"ftp://example.org":  "not an http:// or https:// address",
	} {
		out := fetchCall(t, NewFetchURL(), t.Context(), env, url, 0)
		if out.Outcome != domain.OutcomeError || !strings.Contains(out.Content, want) {
			t.Errorf("%s: %s %q; want %q", url, out.Outcome, out.Content, want)
		}
	}
}

// Stop cancels a fetch whose server is slow to answer.
func TestFetchCancel_REQ_BED_005(t *testing.T) {
	arrived := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-r.Context().Done()
	}))
	t.Cleanup(slow.Close)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan Output, 1)
	go func() {
		done <- fetchCall(t, NewFetchURL(), ctx, Env{Cwd: t.TempDir(), Mode: domain.ModeUnrestricted}, slow.URL, 0)
	}()
	<-arrived
	cancel()
	if out := <-done; out.Outcome != domain.OutcomeCancelled {
		t.Fatalf("%s: %s", out.Outcome, out.Content)
	}
}

// projectProxy is the app's real proxy for one Project conversation: names resolve to a
// documentation address whose connections go to the local test servers, and every host
// that is not allowed is asked about through ask.
type projectProxy struct {
	rules   *proxy.Rules
	project string
	sock    string

	mu       sync.Mutex
	names    map[string]netip.Addr
	redirect map[string]string // dialled address → local server
	asked    []proxy.Request
}

func newProjectProxy(t *testing.T, ask func(context.Context, proxy.Request) (proxy.Decision, error)) *projectProxy {
	t.Helper()
	dir, err := os.MkdirTemp("", "fx") // short: a socket path has at most 107 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	p := &projectProxy{project: t.TempDir(), names: map[string]netip.Addr{}, redirect: map[string]string{}}
	if p.rules, err = proxy.LoadRules(filepath.Join(dir, "allowed-hosts.json")); err != nil {
		t.Fatal(err)
	}
	s, err := proxy.Start(proxy.Options{
		Dir: filepath.Join(dir, "s"), Rules: p.rules,
		Ask: func(ctx context.Context, r proxy.Request) (proxy.Decision, error) {
			p.mu.Lock()
			p.asked = append(p.asked, r)
			p.mu.Unlock()
			return ask(ctx, r)
		},
		Resolve: func(_ context.Context, name string) ([]netip.Addr, error) {
			p.mu.Lock()
			defer p.mu.Unlock()
			if a, ok := p.names[name]; ok {
				return []netip.Addr{a}, nil
			}
			return nil, fmt.Errorf("no such host %s", name)
		},
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			p.mu.Lock()
			if to, ok := p.redirect[addr]; ok {
				addr = to
			}
			p.mu.Unlock()
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if p.sock, err = s.Listen(p.project, "conversation-1"); err != nil {
		t.Fatal(err)
	}
	return p
}

// name makes host resolve (in the proxy only) to a documentation address that reaches the
// local server s, and returns s's address under that name.
func (p *projectProxy) name(host string, s *site) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	fake := netip.AddrFrom4([4]byte{192, 0, 2, byte(10 + len(p.names))})
	p.names[host] = fake
	_, port, _ := net.SplitHostPort(s.Listener.Addr().String())
	p.redirect[net.JoinHostPort(fake.String(), port)] = s.Listener.Addr().String()
	scheme, _, _ := strings.Cut(s.URL, "://")
	return scheme + "://" + net.JoinHostPort(host, port) + "/"
}

func (p *projectProxy) askedHosts() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, r := range p.asked {
		out = append(out, fmt.Sprintf("%s:%d", r.Host, r.Port))
	}
	return out
}

func (p *projectProxy) env() Env {
	return Env{Cwd: p.project, Mode: domain.ModeProject, ProxySocket: p.sock}
}

// In Project mode fetch_url goes through the conversation's socket of the real proxy, which
// resolves the name and judges the host like a command's connection: an allowed host is
// fetched without asking (over http and https, the tool trusting the test's certificate), a
// new host is asked about — Deny refuses it with the proxy's reason and nothing reaches the
// server, Allow once fetches it — and a project without a proxy is refused.
func TestFetchProjectModeThroughTheProxy_REQ_BED_015(t *testing.T) {
	answer := make(chan proxy.Decision, 1)
	px := newProjectProxy(t, func(ctx context.Context, _ proxy.Request) (proxy.Decision, error) {
		select {
		case d := <-answer:
			return d, nil
		case <-ctx.Done():
			return proxy.Deny, ctx.Err()
		}
	})
	plain, secure := newSite(t, false), newSite(t, true)
	roots := x509.NewCertPool()
	roots.AddCert(secure.Certificate())
	f := &FetchURL{tlsConfig: &tls.Config{RootCAs: roots}}

	docs := px.name("docs.example.test", plain)
	_, port, _ := net.SplitHostPort(plain.Listener.Addr().String())
	if err := px.rules.Allow(px.project, "docs.example.test"); err != nil {
		t.Fatal(err)
	}
	checkPage(t, fetchCall(t, f, t.Context(), px.env(), docs, 0), docs)

	// The test certificate is for example.com.
	api := px.name("example.com", secure)
	if err := px.rules.Allow(px.project, "example.com"); err != nil {
		t.Fatal(err)
	}
	checkPage(t, fetchCall(t, f, t.Context(), px.env(), api, 0), api)
	if got := px.askedHosts(); len(got) != 0 {
		t.Fatalf("allowed hosts were asked about: %v", got)
	}

	other := px.name("other.example.test", plain)
	hits := plain.hits.Load()
	answer <- proxy.Deny
	out := fetchCall(t, f, t.Context(), px.env(), other, 0)
	if out.Outcome != domain.OutcomeError ||
		!strings.Contains(out.Content, "The app's network proxy did not let fetch_url reach other.example.test:"+port) ||
		!strings.Contains(out.Content, "the proxy refused other.example.test:"+port+": you denied it") {
		t.Fatalf("denied: %s %q", out.Outcome, out.Content)
	}
	if got := px.askedHosts(); len(got) != 1 || got[0] != "other.example.test:"+port {
		t.Fatalf("asked about %v; want the new host once", got)
	}
	if plain.hits.Load() != hits {
		t.Fatal("a denied fetch reached the server")
	}

	third := px.name("third.example.test", plain)
	answer <- proxy.AllowOnce
	checkPage(t, fetchCall(t, f, t.Context(), px.env(), third, 0), third)

	noProxy := px.env()
	noProxy.ProxySocket = ""
	if out := fetchCall(t, f, t.Context(), noProxy, docs, 0); out.Outcome != domain.OutcomeError || out.Content != fetchRefusedNoProxy {
		t.Fatalf("no proxy: %q", out.Content)
	}
}

// Stop while the person has not answered the host card: the fetch ends as cancelled and the
// proxy stops asking (the card is withdrawn).
func TestFetchCancelWhileAsking_REQ_BED_005(t *testing.T) {
	asking, withdrawn := make(chan struct{}), make(chan struct{})
	px := newProjectProxy(t, func(ctx context.Context, _ proxy.Request) (proxy.Decision, error) {
		close(asking)
		<-ctx.Done()
		close(withdrawn)
		return proxy.Deny, ctx.Err()
	})
	u := px.name("docs.example.test", newSite(t, false))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan Output, 1)
	go func() { done <- fetchCall(t, NewFetchURL(), ctx, px.env(), u, 0) }()
	<-asking
	cancel()
	if out := <-done; out.Outcome != domain.OutcomeCancelled {
		t.Fatalf("%s: %s", out.Outcome, out.Content)
	}
	<-withdrawn
}
