package lsp

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/sandbox"
)

// goModule is a tiny module of two packages: b calls a.Hello.
var goModule = map[string]string{
	"go.mod":  "module example.com/m\n\ngo 1.22\n",
	"a/a.go":  "package a\n\n// Hello greets.\nfunc Hello() string { return \"hello\" }\n",
	"b/b.go":  "package b\n\nimport \"example.com/m/a\"\n\nfunc Greet() string { return a.Hello() + \"!\" }\n",
	"main.go": "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/m/b\"\n)\n\nfunc main() {\n\tvar n int = 1\n\tfmt.Println(b.Greet(), n)\n}\n",
}

func newSet(t testing.TB, opts Options) *Set {
	s := NewSet(opts)
	t.Cleanup(s.Close)
	return s
}

func TestPatchTypeErrorGetsCompilerWords_REQ_LSP_001(t *testing.T) {
	needProgram(t, "gopls")
	dir := writeTree(t, goModule)
	env := testEnv(t, dir, domain.ModeUnrestricted)
	s := newSet(t, Options{})
	ctx := context.Background()
	path := filepath.Join(dir, "main.go")

	before := edit(t, path, "var n int = 1", `var n int = "one"`)
	rep := s.AfterEdit(ctx, env, path, before, true)
	if len(rep.New) != 1 || !strings.Contains(rep.Text, `main.go:10:14: cannot use "one" (untyped string constant) as int value in variable declaration (compiler)`) {
		t.Fatalf("the type error is not reported with the compiler's words and its place:\n%+v", rep)
	}
	if rep.Summary != "1 new error (gopls)" {
		t.Errorf("summary = %q", rep.Summary)
	}

	// An unrelated second edit: the error that was already there is not new.
	before = edit(t, path, "func main() {", "func main() { // entry")
	if rep := s.AfterEdit(ctx, env, path, before, true); len(rep.New) != 0 || rep.Text != "" {
		t.Fatalf("an error that was there before the edit was reported as new: %+v", rep)
	}
	// A fix: nothing to say.
	before = edit(t, path, `var n int = "one"`, "var n int = 2")
	if rep := s.AfterEdit(ctx, env, path, before, true); rep.Text != "" {
		t.Fatalf("the fix reported %+v", rep)
	}
	// A command (bash) that breaks the open file: its new error is reported; a command that
	// changes nothing costs no question to the server.
	if rep := s.AfterCommand(ctx, env); rep.Text != "" {
		t.Fatalf("a command that changed nothing reported %+v", rep)
	}
	edit(t, path, "fmt.Println(b.Greet(), n)", "fmt.Println(b.Greet(), n, undefinedName)")
	rep = s.AfterCommand(ctx, env)
	if len(rep.New) != 1 || !strings.Contains(rep.Text, "main.go:11:28: undefined: undefinedName (compiler)") || rep.Summary != "1 new error (gopls)" {
		t.Fatalf("the command's error is not reported: %+v", rep)
	}
}

func TestReferencesFindCallersAcrossPackages_REQ_LSP_002(t *testing.T) {
	needProgram(t, "gopls")
	dir := writeTree(t, goModule)
	env := testEnv(t, dir, domain.ModeUnrestricted)
	s := newSet(t, Options{})
	ctx := context.Background()
	a := filepath.Join(dir, "a", "a.go")

	refs, err := s.References(ctx, env, a, 4, 6) // Hello
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(refs, func(l Located) bool { return l.Path == filepath.Join("b", "b.go") && l.Line == 5 && l.Column == 32 }) {
		t.Fatalf("the caller in package b is not among the references: %v", refs)
	}
	defs, err := s.Definition(ctx, env, filepath.Join(dir, "b", "b.go"), 5, 33)
	if err != nil || len(defs) != 1 || defs[0].Path != filepath.Join("a", "a.go") || defs[0].Line != 4 {
		t.Fatalf("definition of a.Hello = %v, %v", defs, err)
	}
	hover, err := s.Hover(ctx, env, a, 4, 6)
	if err != nil || !strings.Contains(hover, "func Hello() string") {
		t.Fatalf("hover = %q, %v", hover, err)
	}
	bad := filepath.Join(dir, "b", "b.go")
	edit(t, bad, "a.Hello()", "a.Hello(1)")
	diags, err := s.Diagnostics(ctx, env, bad)
	if err != nil || len(diags) != 1 || !strings.Contains(diags[0].String(), "b/b.go:5:38: too many arguments in call to a.Hello") {
		t.Fatalf("diagnostics of b.go = %v, %v", diags, err)
	}
	syms, err := s.Symbols(ctx, env, a)
	if err != nil || len(syms) != 1 || !strings.Contains(syms[0].Text, "function Hello") {
		t.Fatalf("symbols = %v, %v", syms, err)
	}
}

func TestTypeScriptEditAndReferences_REQ_LSP_003(t *testing.T) {
	needProgram(t, "typescript-language-server")
	dir := writeTree(t, map[string]string{
		"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2022", "module": "es2022", "moduleResolution": "bundler"}}`,
		"src/util.ts":   "export function double(n: number): number {\n  return n * 2;\n}\n",
		"src/main.ts":   "import { double } from \"./util\";\n\nconst x: number = double(2);\nconsole.log(x);\n",
	})
	env := testEnv(t, dir, domain.ModeUnrestricted)
	// tsserver takes its time on a loaded machine to load the standard library's types.
	s := newSet(t, Options{StartTimeout: 2 * time.Minute})
	ctx := context.Background()
	main := filepath.Join(dir, "src", "main.ts")

	before := edit(t, main, "double(2)", `double("two")`)
	rep := s.AfterEdit(ctx, env, main, before, true)
	if len(rep.New) != 1 || !strings.Contains(rep.Text, "src/main.ts:3:26: Argument of type 'string' is not assignable to parameter of type 'number'.") {
		t.Fatalf("the type error is not reported: %+v", rep)
	}
	refs, err := s.References(ctx, env, filepath.Join(dir, "src", "util.ts"), 1, 17)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(refs, func(l Located) bool { return l.Path == filepath.Join("src", "main.ts") && l.Line == 3 }) {
		t.Fatalf("the call in main.ts is not among the references: %v", refs)
	}
}

func TestCrashingServerIsMarkedDownOnce_REQ_LSP_004(t *testing.T) {
	dir := writeTree(t, map[string]string{"x.fake": "one\n"})
	env := testEnv(t, dir, domain.ModeUnrestricted)
	s := newSet(t, Options{Specs: []Spec{fakeSpec(t, "crash")}})
	path := filepath.Join(dir, "x.fake")

	rep := s.AfterEdit(context.Background(), env, path, "zero\n", true)
	if rep.Summary != "fake-crash down" || !strings.Contains(rep.Text, "cannot allocate the symbol table") {
		t.Fatalf("the crash is not reported with the server's last words: %+v", rep)
	}
	st := s.Status()
	if len(st) != 1 || st[0].State != StateDown || !strings.Contains(st[0].Reason, "cannot allocate the symbol table") {
		t.Fatalf("status = %+v", st)
	}
	if rep := s.AfterEdit(context.Background(), env, path, "one\n", true); rep.Text != "" || rep.Summary != "" || rep.Server != "" {
		t.Fatalf("a server that is down was reported again: %+v", rep)
	}
	if s.Serves(path, dir) {
		t.Error("a server that is down is still offered")
	}
	if _, err := s.References(context.Background(), env, path, 1, 1); err == nil || !strings.Contains(err.Error(), "not available") {
		t.Errorf("a question to a server that is down: %v", err)
	}
}

func TestSilentServerDelaysOneTurnOnly_REQ_LSP_005(t *testing.T) {
	dir := writeTree(t, map[string]string{"x.fake": "one\n"})
	env := testEnv(t, dir, domain.ModeUnrestricted)
	s := newSet(t, Options{Specs: []Spec{fakeSpec(t, "silent")}, StartTimeout: 300 * time.Millisecond})
	path := filepath.Join(dir, "x.fake")

	rep := s.AfterEdit(context.Background(), env, path, "zero\n", true)
	if rep.Summary != "fake-silent down" || !strings.Contains(rep.Text, "did not answer within 300ms") {
		t.Fatalf("the silent server is not reported down: %+v", rep)
	}
	// Later calls never wait on it: a context that is already cancelled still gets the
	// (empty) answer, which it could not if anything waited.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if rep := s.AfterEdit(ctx, env, path, "one\n", true); rep.Text != "" || rep.Summary != "" || rep.Server != "" {
		t.Fatalf("second call: %+v", rep)
	}
	if st := s.Status(); len(st) != 1 || st[0].State != StateDown || st[0].PID != 0 {
		t.Fatalf("status = %+v", st)
	}
}

func TestServerTreeDiesWithConversation_REQ_LSP_006(t *testing.T) {
	needProgram(t, "gopls")
	dir := writeTree(t, goModule)
	env := testEnv(t, dir, domain.ModeUnrestricted)
	s := NewSet(Options{})
	path := filepath.Join(dir, "main.go")
	if _, err := s.Symbols(context.Background(), env, path); err != nil {
		s.Close()
		t.Fatal(err)
	}
	st := s.Status()
	if len(st) != 1 || st[0].State != StateRunning || st[0].PID == 0 {
		s.Close()
		t.Fatalf("status = %+v", st)
	}
	pids := append(descendants(st[0].PID), st[0].PID)
	if len(pids) < 2 {
		t.Errorf("gopls is not found below its supervisor %d", st[0].PID)
	}
	s.Close()
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("process %d of the server outlived its conversation", pid)
		}
	}
	if _, err := s.Symbols(context.Background(), env, path); err == nil {
		t.Error("a closed set started a server again")
	}
}

func TestRestrictedServerOnlyReads_REQ_LSP_007(t *testing.T) {
	needSandbox(t)
	dir := writeTree(t, map[string]string{"go.mod": "module m\n", "x.fake": "one\n"})
	env := testEnv(t, dir, domain.ModeRestricted)
	s := newSet(t, Options{Specs: []Spec{fakeSpec(t, "probe")}})
	rep := s.AfterEdit(context.Background(), env, filepath.Join(dir, "x.fake"), "zero\n", true)
	if !strings.Contains(rep.Text, "probe read=true tree-write=false home-write=false") {
		t.Fatalf("the Restricted server could do more than read, or not read: %+v", rep)
	}
	if _, err := os.Stat(filepath.Join(dir, "written-by-server")); err == nil {
		t.Fatal("the Restricted server wrote into the tree")
	}
}

func TestGoplsWorksRestricted_REQ_LSP_007(t *testing.T) {
	needProgram(t, "gopls")
	needSandbox(t)
	dir := writeTree(t, goModule)
	env := testEnv(t, dir, domain.ModeRestricted)
	s := newSet(t, Options{})
	path := filepath.Join(dir, "main.go")
	before := edit(t, path, "var n int = 1", `var n int = "one"`)
	rep := s.AfterEdit(context.Background(), env, path, before, true)
	if len(rep.New) != 1 || !strings.Contains(rep.Text, "cannot use") {
		t.Fatalf("gopls in the Restricted sandbox did not check the edit: %+v", rep)
	}
}

// The model's tools answer with places, one a line, and say in words what no server serves.
func TestLanguageToolsForTheModel_REQ_LSP_003(t *testing.T) {
	needProgram(t, "gopls")
	dir := writeTree(t, goModule)
	env := testEnv(t, dir, domain.ModeUnrestricted)
	s := newSet(t, Options{})
	if !s.Offered(dir) {
		t.Fatal("the language tools are not offered in a Go module with gopls on PATH")
	}
	ctx := context.Background()
	run := func(name, args string) string {
		out := RunTool(ctx, s, env, domain.ToolCall{ID: "c", Name: name, Arguments: args})
		if out.Outcome != domain.OutcomeSuccess {
			t.Fatalf("%s %s: %s", name, args, out.Content)
		}
		return out.Content
	}
	if got := run(domain.ToolReferences, `{"path":"a/a.go","line":4,"column":7}`); !strings.Contains(got, "b/b.go:5:32: func Greet() string { return a.Hello() + \"!\" }") {
		t.Errorf("references:\n%s", got)
	}
	if got := run(domain.ToolDefinition, `{"path":"b/b.go","line":5,"column":33}`); !strings.HasPrefix(got, "a/a.go:4:6: func Hello()") {
		t.Errorf("definition:\n%s", got)
	}
	if got := run(domain.ToolSymbols, `{"query":"Greet"}`); !strings.Contains(got, "b/b.go:5:6: function Greet") {
		t.Errorf("workspace symbols:\n%s", got)
	}
	if got := run(domain.ToolHover, `{"path":"a/a.go","line":4,"column":7}`); !strings.Contains(got, "Hello greets.") {
		t.Errorf("hover:\n%s", got)
	}
	if got := run(domain.ToolDiagnostics, `{"path":"main.go"}`); got != "No errors or warnings in main.go." {
		t.Errorf("diagnostics:\n%s", got)
	}
	out := RunTool(ctx, s, env, domain.ToolCall{ID: "c", Name: domain.ToolDefinition, Arguments: `{"path":"notes.txt","line":1,"column":1}`})
	if out.Outcome != domain.OutcomeError || !strings.Contains(out.Content, "no language server serves files like") {
		t.Errorf("a file no server serves: %+v", out)
	}
	if NewSet(Options{}).Offered(writeTree(t, map[string]string{"notes.txt": "x"})) {
		t.Error("the language tools are offered in a project of no language")
	}
}

// In Project mode a server may write in the tree, and still nowhere else.
func TestProjectServerWritesOnlyTheTree_REQ_LSP_007(t *testing.T) {
	needSandbox(t)
	if ok, why := sandbox.ProjectAvailable(); !ok {
		missing(t, "Project mode is unavailable: "+why)
	}
	dir := writeTree(t, map[string]string{"go.mod": "module m\n", "x.fake": "one\n"})
	env := testEnv(t, dir, domain.ModeProject)
	s := newSet(t, Options{Specs: []Spec{fakeSpec(t, "probe")}})
	rep := s.AfterEdit(context.Background(), env, filepath.Join(dir, "x.fake"), "zero\n", true)
	if !strings.Contains(rep.Text, "probe read=true tree-write=true home-write=false") {
		t.Fatalf("the Project server's walls are not the tree's: %+v", rep)
	}
}

// A server that starts but never publishes diagnostics delays one edit by its timeout, and
// is then down: the next edit does not wait for it.
func TestMuteServerDelaysOneEditOnly_REQ_LSP_005(t *testing.T) {
	dir := writeTree(t, map[string]string{"x.fake": "one\n"})
	env := testEnv(t, dir, domain.ModeUnrestricted)
	s := newSet(t, Options{Specs: []Spec{fakeSpec(t, "mute")}, StartTimeout: 300 * time.Millisecond, RequestTimeout: 200 * time.Millisecond})
	path := filepath.Join(dir, "x.fake")
	rep := s.AfterEdit(context.Background(), env, path, "zero\n", true)
	if rep.Summary != "fake-mute down" || !strings.Contains(rep.Text, "published no diagnostics within 300ms of an edit") {
		t.Fatalf("the mute server is not reported down: %+v", rep)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if rep := s.AfterEdit(ctx, env, path, "one\n", true); rep.Text != "" || rep.Server != "" {
		t.Fatalf("second edit: %+v", rep)
	}
	if st := s.Status(); len(st) != 1 || st[0].State != StateDown || st[0].PID != 0 {
		t.Fatalf("status = %+v", st)
	}
}
