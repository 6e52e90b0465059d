package ui

import (
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/ui/cheaptest"
)

// TestIdleWindowRepaintsOnceSoFyneDropsRenderers (issue 43): Fyne destroys the renderers
// of what it no longer shows only in a frame that repainted a canvas, and an idle window is
// never repainted. So after an event, once the window has been quiet for the renderer
// cache's expiry, it repaints once and later gives the freed memory back; then it stays
// idle (no repaint without a new event), and the next event starts the spell again.
func TestIdleWindowRepaintsOnceSoFyneDropsRenderers(t *testing.T) {
	var id string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		id = f.add(domain.NewConversationParams{Title: "Resting", Cwd: "/w", Model: "gpt-4o"},
			domain.Message{Kind: domain.KindUser, Text: "question"}).ID
	})
	h.settle()
	var repaints int
	var givenBack atomic.Int32
	h.m.sweep.after, h.m.sweep.free = 30*time.Millisecond, time.Millisecond
	h.m.sweep.repaint = func() { repaints++ }
	h.m.sweep.giveBack = func() { givenBack.Add(1) }
	if h.m.sweep.timer != nil {
		// What the start armed, with the real expiry, is not the test's spell.
		h.m.sweep.timer.Stop()
		h.m.sweep.timer = nil
	}
	before := repaints

	h.f.publish(actors.MessageCommitted{ConvID: id, Message: domain.Message{Kind: domain.KindAssistant, Text: "an answer while the window sits idle"}})
	h.waitFor("the repaint after the quiet spell", func() bool { return repaints > before })
	h.waitFor("the memory given back after Fyne's clean", func() bool { return givenBack.Load() >= 1 })
	h.settle()
	if n := repaints - before; n != 1 {
		t.Fatalf("the idle window repainted %d times after one event, want once", n)
	}
	if n := givenBack.Load(); n != 1 {
		t.Fatalf("the memory was given back %d times after one quiet spell, want once", n)
	}

	h.f.publish(actors.MessageCommitted{ConvID: id, Message: domain.Message{Kind: domain.KindAssistant, Text: "another answer"}})
	h.waitFor("the repaint after the next quiet spell", func() bool { return repaints-before == 2 })
}

// TestRendererExpiryFollowsFyne: the quiet spell is Fyne's renderer expiry, FYNE_CACHE when
// the person set it, as Fyne reads it.
func TestRendererExpiryFollowsFyne(t *testing.T) {
	t.Setenv("FYNE_CACHE", "")
	if d := rendererExpiry(); d != time.Minute {
		t.Errorf("default expiry %v, want Fyne's minute", d)
	}
	t.Setenv("FYNE_CACHE", "90s")
	if d := rendererExpiry(); d != 90*time.Second {
		t.Errorf("expiry with FYNE_CACHE=90s: %v", d)
	}
}

// TestGiveBackTrimsTheCHeap (issue 43): what the window gives back at rest includes what its
// C side freed (Mesa's textures of text no longer drawn, X's and fontconfig's buffers), which
// glibc keeps in its heap unless trimmed: 16 MiB freed there, between blocks still held,
// must leave the resident memory (all but the pages the freed blocks share with their
// neighbours).
func TestGiveBackTrimsTheCHeap(t *testing.T) {
	debug.FreeOSMemory()
	const n, size = 256, 64 << 10
	cheaptest.Fragment(n, size)
	before := rssAnonKiB(t)
	giveBackMemory()
	after := rssAnonKiB(t)
	if freed := before - after; freed < 3*n*size/4>>10 {
		t.Errorf("giving the memory back returned %d KiB of the %d KiB the C heap freed", freed, n*size>>10)
	}
}

// rssAnonKiB is this process's resident anonymous memory (/proc/self/status).
func rssAnonKiB(t *testing.T) int {
	t.Helper()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "RssAnon:"); ok {
			kib, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err != nil {
				t.Fatalf("RssAnon of /proc/self/status: %q", line)
			}
			return kib
		}
	}
	t.Fatal("no RssAnon in /proc/self/status")
	return 0
}
