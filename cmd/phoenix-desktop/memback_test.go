package main

import (
	"context"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/llm"
)

// TestAllRestedTrimsTheCHeap (issue 43): once the last conversation in memory rests, the app
// gives back the C heap's free pages too (malloc_trim), not only Go's: the window's C
// libraries' arenas held some 30 MiB above the start after a soak otherwise.
func TestAllRestedTrimsTheCHeap(t *testing.T) {
	trimmed := make(chan struct{}, 8)
	old := trimCHeap
	trimCHeap = func() { old(); trimmed <- struct{}{} }
	t.Cleanup(func() { trimCHeap = old })
	t.Setenv(actors.EnvPassivateAfter, "200ms")

	a, err := openApp(commonFlags{dataDir: t.TempDir(), demo: true, noMCP: true}, llm.Config{}, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.runtime.Create(context.Background(), actors.NewConversation{Cwd: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-trimmed:
	case <-time.After(30 * time.Second):
		t.Fatal("the conversation rested and nothing trimmed the C heap")
	}
}
