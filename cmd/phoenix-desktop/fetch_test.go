package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/phoenix-desktop/phoenix/sandbox"
)

// fetch_url headless, in each mode, with the demo model's "fetch:" step against a local
// server: Restricted refuses it and points at request_mode_upgrade (nothing reaches the
// server), Unrestricted fetches directly, and Project fetches through the app's proxy once
// --allow-hosts answers the host card.
func TestChatFetchURLInEachMode(t *testing.T) {
	var hits atomic.Int32
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<title>T</title><main><h1>Fetched heading</h1><p>body words</p></main>"))
	}))
	t.Cleanup(site.Close)
	fetched := site.URL + "/ (HTTP 200 OK, text/html, converted to Markdown)"
	prompt := "fetch: " + site.URL + "/"

	code, out, errs := cli(t, "chat", "--demo", "--mode=unrestricted", "--data-dir", t.TempDir(), "--cwd", t.TempDir(), prompt)
	if code != 0 || !strings.Contains(out, fetched) || hits.Load() != 1 {
		t.Fatalf("unrestricted: exit %d, %d hits\n%s\n%s", code, hits.Load(), out, errs)
	}

	if !sandbox.Probe().Available {
		t.Skip("Landlock unavailable: conversations are Unrestricted only")
	}
	code, out, errs = cli(t, "chat", "--demo", "--data-dir", t.TempDir(), "--cwd", t.TempDir(), prompt)
	if code != 0 || !strings.Contains(out, "fetch_url is unavailable in Restricted mode") || hits.Load() != 1 {
		t.Fatalf("restricted: exit %d, %d hits\n%s\n%s", code, hits.Load(), out, errs)
	}

	if ok, why := sandbox.ProjectAvailable(); !ok {
		t.Skip("Project mode unavailable: " + why)
	}
	code, out, errs = cli(t, "chat", "--demo", "--mode=project", "--allow-hosts=127.0.0.1",
		"--data-dir", t.TempDir(), "--cwd", t.TempDir(), prompt)
	if code != 0 || !strings.Contains(out, fetched) || hits.Load() != 2 {
		t.Fatalf("project: exit %d, %d hits\n%s\n%s", code, hits.Load(), out, errs)
	}
}
