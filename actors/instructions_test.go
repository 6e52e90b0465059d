package actors

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func withInstructionsDir(dir string) harnessOption {
	return func(c *Config) { c.InstructionsDir = dir }
}

func TestProjectInstructionsReachTheSystemPrompt(t *testing.T) {
	personal := t.TempDir()
	h := newHarness(t, withInstructionsDir(personal))
	repo := h.cwd
	cwd := filepath.Join(repo, "pkg")
	writeFile(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(repo, "AGENTS.md"), "Use tabs in Go files.")
	writeFile(t, filepath.Join(cwd, "CLAUDE.md"), "Run make check before finishing.")
	writeFile(t, filepath.Join(personal, "AGENTS.md"), "Answer in English.")

	c := h.create(NewConversation{Cwd: cwd})
	set, err := h.rt.Instructions(context.Background(), c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(set.Labels(), ", "); !strings.HasSuffix(got, "../AGENTS.md, CLAUDE.md") || len(set.Files) != 3 {
		t.Fatalf("labels = %s", got)
	}
	if end := h.turn(c.ID, "echo: hello"); end.State.Kind() != domain.StateIdle {
		t.Fatalf("state %s", end.State.Kind())
	}
	sys := h.srv.LastChat().SystemPrompt()
	for _, want := range []string{"Use tabs in Go files.", "Run make check before finishing.", "Answer in English.", "## ../AGENTS.md", "## CLAUDE.md"} {
		mustContain(t, sys, want)
	}
	if strings.Index(sys, "Use tabs") > strings.Index(sys, "Run make check") {
		t.Fatalf("nearest file is not last:\n%s", sys)
	}

	// Reload reads the files again for the next request; until then the old text is used.
	writeFile(t, filepath.Join(cwd, "AGENTS.md"), "New rule: no globals.")
	h.turn(c.ID, "echo: again")
	if strings.Contains(h.srv.LastChat().SystemPrompt(), "no globals") {
		t.Fatal("an edited file reached the model before Reload instructions")
	}
	set, err = h.rt.ReloadInstructions(context.Background(), c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if set.Files[len(set.Files)-1].Label != "AGENTS.md" {
		t.Fatalf("after reload: %q", set.Labels())
	}
	h.turn(c.ID, "echo: third")
	sys = h.srv.LastChat().SystemPrompt()
	mustContain(t, sys, "New rule: no globals.")
	if strings.Contains(sys, "Run make check") {
		t.Fatal("CLAUDE.md was read although the directory now has AGENTS.md")
	}

	// The instructions survive a restart unchanged (they come from the store).
	writeFile(t, filepath.Join(cwd, "AGENTS.md"), "Changed on disk after the reload.")
	h.restart()
	h.turn(c.ID, "echo: after restart")
	mustContain(t, h.srv.LastChat().SystemPrompt(), "New rule: no globals.")
}

func TestSubAgentsGetTheSameInstructions(t *testing.T) {
	h := newHarness(t)
	writeFile(t, filepath.Join(h.cwd, "AGENTS.md"), "Sub-agents must read this too.")
	c := h.create(NewConversation{})
	h.turn(c.ID, "agents: echo: from the sub-agent")
	var subSystem string
	for _, chat := range h.srv.Chats() {
		for _, tool := range chat.Tools {
			if tool.Function.Name == domain.ToolSubmitResult {
				subSystem = chat.SystemPrompt()
			}
		}
	}
	if subSystem == "" {
		t.Fatal("no sub-agent request was seen")
	}
	mustContain(t, subSystem, "Sub-agents must read this too.")
}

func TestNoInstructionsAndUnusableFiles(t *testing.T) {
	h := newHarness(t)
	writeFile(t, filepath.Join(h.cwd, "AGENTS.md"), "Should not be sent.")
	c := h.create(NewConversation{NoInstructions: true})
	h.turn(c.ID, "echo: hi")
	if strings.Contains(h.srv.LastChat().SystemPrompt(), "Should not be sent") {
		t.Fatal("--no-instructions still sent the instructions")
	}

	if err := os.WriteFile(filepath.Join(h.cwd, "AGENTS.md"), []byte{0xff, 0xfe, 0x00}, 0o644); err != nil {
		t.Fatal(err)
	}
	c = h.create(NewConversation{})
	var notice string
	for notice == "" {
		if n, ok := (<-h.sub.Events()).(Notice); ok && n.ConvID == c.ID {
			notice = n.Text
		}
	}
	mustContain(t, notice, "AGENTS.md was skipped: it is not UTF-8 text")
	if end := h.turn(c.ID, "echo: still works"); end.State.Kind() != domain.StateIdle {
		t.Fatalf("a bad instructions file stopped the turn: %s", end.State.Kind())
	}
}

// flushCounter is a store that counts the auxiliary records saved with a flush to disk.
type flushCounter struct {
	Store
	flushed, unflushed atomic.Int64
}

func (s *flushCounter) PutAux(id, name string, value []byte) error {
	s.flushed.Add(1)
	return s.Store.PutAux(id, name, value)
}

func (s *flushCounter) PutAuxUnflushed(id, name string, value []byte) error {
	s.unflushed.Add(1)
	return s.Store.PutAuxUnflushed(id, name, value)
}

// Issue 39: creating a conversation (and reloading its instructions) saves what the project's
// files said without a flush of its own: the conversation's record is not flushed either, and
// its first message's flush takes both to the disk. Each flush was two syncs of a cold
// one-turn chat. The records are still saved, and read back.
func TestCreatingAConversationFlushesNothing(t *testing.T) {
	var store *flushCounter
	h := newHarness(t, func(c *Config) {
		store = &flushCounter{Store: c.Store}
		c.Store = store
	})
	writeFile(t, filepath.Join(h.cwd, "AGENTS.md"), "Use tabs in Go files.")
	c := h.create(NewConversation{})
	if _, err := h.rt.ReloadInstructions(context.Background(), c.ID); err != nil {
		t.Fatal(err)
	}
	if n := store.flushed.Load(); n != 0 {
		t.Fatalf("creating a conversation and reloading its instructions flushed %d records to disk, want none", n)
	}
	if n := store.unflushed.Load(); n != 4 {
		t.Fatalf("%d records saved, want the instructions and the commands, at creation and at the reload", n)
	}
	set, err := h.rt.Instructions(context.Background(), c.ID)
	if err != nil || len(set.Files) != 1 {
		t.Fatalf("instructions read back: %+v, %v; want the project's AGENTS.md", set, err)
	}
}
