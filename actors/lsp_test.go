package actors

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/lsp"
)

// A patch that breaks a Go module gets gopls's words in its result, and the tool row's
// summary counts them; the conversation's gopls dies with the runtime (issue 35).
func TestPatchGetsLanguageServerErrors_REQ_LSP_001(t *testing.T) {
	if _, err := exec.LookPath("gopls"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("gopls is not installed; bash scripts/setup.sh installs it")
		}
		t.Skip("gopls is not installed; bash scripts/setup.sh installs it")
	}
	h := newHarness(t, func(c *Config) { c.LSP = &lsp.Options{} })
	for p, content := range map[string]string{
		"go.mod":  "module example.com/m\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tvar n int = 1\n\tfmt.Println(n)\n}\n",
	} {
		if err := os.WriteFile(filepath.Join(h.cwd, p), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := h.create(NewConversation{Mode: domain.ModeUnrestricted})
	h.send(c.ID, "patch: main.go ::: var n int = 1 ==> var n int = true")
	h.waitRest(c.ID)
	res := results(h.history(c.ID))
	if len(res) != 1 {
		t.Fatalf("results = %+v", res)
	}
	mustContain(t, res[0].Content, "gopls reports 1 new error in main.go after this change:")
	mustContain(t, res[0].Content, "main.go:6:14: cannot use true (untyped bool constant) as int value in variable declaration")
	if res[0].Display == nil || !strings.HasSuffix(res[0].Display.Summary, "· 1 new error (gopls)") || !strings.Contains(res[0].Display.Diagnostics, "main.go:6:14") {
		t.Fatalf("display = %+v", res[0].Display)
	}
	// The model is offered the language tools, and the demo script calls one.
	h.send(c.ID, "lsp: references main.go:6:6")
	h.waitRest(c.ID)
	res = results(h.history(c.ID))
	if len(res) != 2 || res[1].Outcome != domain.OutcomeSuccess {
		t.Fatalf("results = %+v", res)
	}
	mustContain(t, res[1].Content, "main.go:7:14: fmt.Println(n)")
	for _, r := range h.srv.Requests() {
		offered := false
		for _, tool := range r.Chat.Tools {
			offered = offered || tool.Function.Name == domain.ToolReferences
		}
		if !offered {
			t.Fatalf("a request in a Go module did not offer %s", domain.ToolReferences)
		}
	}
	// A command that breaks the file gopls has open gets the error too.
	h.send(c.ID, `bash: sed -i 's/fmt.Println(n)/fmt.Println(n, missing)/' main.go`)
	h.waitRest(c.ID)
	res = results(h.history(c.ID))
	mustContain(t, res[len(res)-1].Content, "gopls reports 1 new error in main.go after this command:\nmain.go:7:17: undefined: missing")
	if got := LanguageServersText(h.rt.LanguageServers(c.ID)); got != "Language servers in this conversation:\n• gopls: running" {
		t.Errorf("the header's details say %q", got)
	}
	servers := goplsBelow(os.Getpid())
	if len(servers) == 0 {
		t.Fatal("no gopls runs below the test process")
	}
	h.close()
	for _, pid := range servers {
		if syscall.Kill(pid, 0) == nil && !zombie(pid) {
			t.Errorf("gopls (pid %d) outlived its conversation", pid)
		}
	}
}

// goplsBelow lists the live gopls processes whose ancestors include pid.
func goplsBelow(pid int) []int {
	parent, name := map[int]int{}, map[int]string{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		var p int
		if _, err := fmt.Sscan(e.Name(), &p); err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(stat)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open {
			continue
		}
		var state string
		var ppid int
		if _, err := fmt.Sscan(s[end+1:], &state, &ppid); err != nil || state == "Z" {
			continue
		}
		parent[p], name[p] = ppid, s[open+1:end]
	}
	var out []int
	for p, n := range name {
		if n != "gopls" {
			continue
		}
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

func zombie(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && strings.HasPrefix(strings.TrimSpace(s[i+1:]), "Z")
}

// A conversation in a project no language server serves is not offered the language tools,
// and starts no server.
func TestLanguageToolsNotOfferedWithoutServer_REQ_LSP_003(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.LSP = &lsp.Options{} })
	if err := os.WriteFile(filepath.Join(h.cwd, "notes.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := h.create(NewConversation{Mode: domain.ModeUnrestricted})
	h.turn(c.ID, "patch: notes.txt >>> y")
	for _, r := range h.srv.Requests() {
		for _, tool := range r.Chat.Tools {
			if domain.IsLanguageTool(tool.Function.Name) {
				t.Fatalf("%s offered in a project no server serves", tool.Function.Name)
			}
		}
	}
	if res := results(h.history(c.ID)); len(res) != 1 || strings.Contains(res[0].Content, "language server") {
		t.Fatalf("results = %+v", res)
	}
}
