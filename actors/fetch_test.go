package actors

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/proxy"
	"github.com/phoenix-desktop/phoenix/sandbox"
)

// fetch_url in a Project conversation goes through the app's real proxy and the runtime's
// host card, as a command's connection does (issue 27, item 4): a new host publishes
// HostApprovalRequested; Allow once fetches the page; Deny refuses it with the proxy's
// reason in the result, told once (not again by the refusal lines, and not to the next
// command).
func TestFetchURLAsksWithTheHostCard_REQ_BED_015(t *testing.T) {
	if ok, why := sandbox.ProjectAvailable(); !ok {
		t.Skip("Project mode is unavailable here: " + why)
	}
	var hits atomic.Int32
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<title>Docs</title><main><h1>Hello from the docs</h1></main>"))
	}))
	t.Cleanup(site.Close)
	_, port, _ := net.SplitHostPort(site.Listener.Addr().String())

	// The proxy as the app wires it (cmd/phoenix-desktop/network.go): names resolve to a
	// documentation address that reaches the test server, and a new host is asked about
	// through the runtime.
	dir, err := os.MkdirTemp("", "fu") // short: a socket path has at most 107 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	rules, err := proxy.LoadRules(filepath.Join(dir, "network.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rt atomic.Pointer[Runtime]
	fake := netip.MustParseAddr("192.0.2.7")
	px, err := proxy.Start(proxy.Options{
		Dir: filepath.Join(dir, "s"), Rules: rules,
		Ask: func(ctx context.Context, r proxy.Request) (proxy.Decision, error) {
			d, err := rt.Load().AskHost(ctx, r.Project, r.Conversation, r.Host, r.Port)
			switch {
			case err != nil:
				return proxy.Deny, err
			case d == HostAllowOnce:
				return proxy.AllowOnce, nil
			case d == HostAllowAlways:
				return proxy.AllowAlways, nil
			}
			return proxy.Deny, nil
		},
		Resolve: func(context.Context, string) ([]netip.Addr, error) { return []netip.Addr{fake}, nil },
		Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, site.Listener.Addr().String())
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { px.Close() })

	h := newHarness(t, withProxy(px))
	rt.Store(h.rt)
	c := h.create(NewConversation{})
	docs := fmt.Sprintf("http://docs.example.test:%s/", port)
	other := fmt.Sprintf("http://other.example.test:%s/", port)
	h.send(c.ID, "upgrade: read the docs\nfetch: "+docs+"\nfetch: "+other+"\nbash: echo after")
	st := h.waitState(c.ID, domain.StateAwaitingModeApproval).State.(domain.AwaitingModeApproval)
	if err := h.rt.DecideUpgrade(context.Background(), c.ID, st.Exec, domain.ModeProject); err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct {
		host string
		d    HostDecision
	}{{"docs.example.test", HostAllowOnce}, {"other.example.test", HostDeny}} {
		req := waitEvent(t, h, func(e HostApprovalRequested) bool { return e.ConvID == c.ID })
		if req.Host != want.host || fmt.Sprint(req.Port) != port || req.Project != h.cwd {
			t.Fatalf("card %+v; want %s:%s of %s", req, want.host, port, h.cwd)
		}
		if err := h.rt.AnswerHost(req.RequestID, want.d); err != nil {
			t.Fatal(err)
		}
	}
	end := h.waitRest(c.ID)
	if end.Mode != domain.ModeProject {
		t.Fatalf("mode %s", end.Mode)
	}
	res := results(h.history(c.ID))
	if len(res) != 4 {
		t.Fatalf("results %+v", res)
	}
	if res[1].Outcome != domain.OutcomeSuccess {
		t.Fatalf("allowed once: %s", res[1].Content)
	}
	mustContain(t, res[1].Content, "# Hello from the docs")
	if res[2].Outcome != domain.OutcomeError {
		t.Fatalf("denied: %s", res[2].Content)
	}
	mustContain(t, res[2].Content, "the proxy refused other.example.test:"+port+": you denied it")
	if strings.Count(res[2].Content, "you denied it") != 1 {
		t.Errorf("the refusal is told more than once:\n%s", res[2].Content)
	}
	mustContain(t, res[3].Content, "after")
	if strings.Contains(res[3].Content, "refused") {
		t.Errorf("the next command's result repeats the fetch's refusal:\n%s", res[3].Content)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("the server got %d requests; want 1 (the denied host reaches nothing)", n)
	}
}
