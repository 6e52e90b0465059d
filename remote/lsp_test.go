package remote

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/lsp"
	"github.com/phoenix-desktop/phoenix/remote/remotetest"
)

// remoteGopls puts a copy of this machine's gopls where the remote test user can run it (the
// app side's is in root's home) and returns the server's spec for that side.
func remoteGopls(t *testing.T, s *remotetest.Server) lsp.Spec {
	t.Helper()
	gopls, err := exec.LookPath("gopls")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("gopls is not installed; scripts/setup.sh installs it")
		}
		t.Skip("gopls is not installed; bash scripts/setup.sh installs it")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	dir, err := os.MkdirTemp(s.Home, "bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	copyFile(t, gopls, filepath.Join(dir, "gopls"), 0o755)
	for _, p := range []string{dir, filepath.Join(dir, "gopls")} {
		if err := os.Chown(p, s.UID, s.UID); err != nil {
			t.Fatal(err)
		}
	}
	return lsp.Spec{Name: "gopls", Command: filepath.Join(dir, "gopls"), Languages: map[string]string{".go": "go"},
		Env: map[string]string{"PATH": filepath.Dir(goBin) + ":/usr/bin:/bin", "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local"}}
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestRemotePatchIsCheckedByGoplsThere_REQ_LSP_001: a remote conversation's language server
// (gopls) runs on the host, as the remote user, and the errors a patch introduced come back
// with the patch's output; a language tool is answered there; the server dies with the
// session.
func TestRemotePatchIsCheckedByGoplsThere_REQ_LSP_001(t *testing.T) {
	noLeaks(t)
	s := remotetest.Start(t)
	spec := remoteGopls(t, s)
	proj := s.ProjectDir(t)
	for name, text := range map[string]string{
		"go.mod":  "module example.com/m\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tvar n int = 1\n\tfmt.Println(n)\n}\n",
	} {
		p := filepath.Join(proj, name)
		remotetest.WriteFile(t, p, text)
		if err := os.Chown(p, s.UID, s.UID); err != nil {
			t.Fatal(err)
		}
	}
	c := dial(t, s)
	defer c.Close()
	servers := &LanguageServers{Specs: []lsp.Spec{spec}, StartTimeout: 2 * time.Minute, RequestTimeout: time.Minute}
	where := Call{Conversation: "conv", Cwd: proj, Mode: domain.ModeUnrestricted, LanguageServers: servers}
	out, err := c.Run(context.Background(), where, toolCall(t, domain.ToolPatch, map[string]any{"path": "main.go",
		"patches": []map[string]any{{"operation": "overwrite", "new_text": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tvar n int = \"one\"\n\tfmt.Println(n)\n}\n"}}}))
	if err != nil || out.Outcome != domain.OutcomeSuccess {
		t.Fatalf("patch: %v %+v", err, out)
	}
	if !strings.Contains(out.Content, `main.go:6:14: cannot use "one" (untyped string constant) as int value in variable declaration`) ||
		out.Display == nil || !strings.Contains(out.Display.Summary, "1 new error (gopls)") {
		t.Fatalf("the patch's new error is not reported from the host:\n%s\n%+v", out.Content, out.Display)
	}
	// gopls runs there, as the remote user.
	var found bool
	for _, pid := range s.UserProcesses() {
		if b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline")); strings.Contains(string(b), spec.Command) {
			found = true
		}
	}
	if !found {
		t.Errorf("no gopls of the remote user runs")
	}
	out, err = c.Run(context.Background(), where, toolCall(t, domain.ToolDiagnostics, map[string]any{"path": "main.go"}))
	if err != nil || !strings.Contains(out.Content, "cannot use") {
		t.Errorf("diagnostics on the host: %v %+v", err, out)
	}
	// Without the configuration (language servers off), a language tool says so.
	out, _ = c.Run(context.Background(), Call{Conversation: "other", Cwd: proj, Mode: domain.ModeUnrestricted},
		toolCall(t, domain.ToolDiagnostics, map[string]any{"path": "main.go"}))
	if !strings.Contains(out.Content, "language servers are off") {
		t.Errorf("a language tool without servers: %+v", out)
	}
	c.Close()
	endMaster(t, s)
	s.WaitNoProcesses(t)
}
