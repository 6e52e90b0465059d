package ui

import (
	"context"
	"sync"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
)

// DraftsBackend keeps each conversation's unsent draft in the store (issue 41).
// *actors.Runtime satisfies it; a Backend without it keeps drafts only while the window is
// open.
type DraftsBackend interface {
	Draft(ctx context.Context, id string) (string, error)
	SaveDraft(ctx context.Context, id, text string) error
}

var _ DraftsBackend = (*actors.Runtime)(nil)

// draftDelay is how long typing must pause before the draft is written: a write flushes the
// store to the disk, too much for every key, and a pause is where a crash would cost the least.
const draftDelay = 400 * time.Millisecond

// draftKeeper writes the composer's text to the store as the person types, debounced, and
// reads it back the first time a conversation is opened, so a closed window, a restart or a
// crash loses no unsent words. Only the text is kept: attachments stay for the session.
type draftKeeper struct {
	m *MainWindow
	b DraftsBackend
	// written is the text last handed to the store per conversation and read the ones whose
	// stored draft was asked for; both belong to the UI goroutine.
	written map[string]string
	read    map[string]bool

	mu      sync.Mutex
	pending map[string]string // texts not yet written, by conversation
	timer   *time.Timer
	// writing serialises the writes, so an older text never lands after a newer one.
	writing sync.Mutex
	failed  bool
}

func newDraftKeeper(m *MainWindow) *draftKeeper {
	k := &draftKeeper{m: m, written: map[string]string{}, read: map[string]bool{}, pending: map[string]string{}}
	k.b, _ = m.b.(DraftsBackend)
	return k
}

// changed is the composer's OnChanged: the open conversation's draft is now text.
func (k *draftKeeper) changed(text string) {
	cs := k.m.current
	if k.b == nil || cs == nil || k.written[cs.id] == text {
		return
	}
	k.written[cs.id] = text
	k.mu.Lock()
	defer k.mu.Unlock()
	k.pending[cs.id] = text
	if k.timer != nil {
		k.timer.Stop()
	}
	k.timer = time.AfterFunc(draftDelay, func() { k.write(k.m.ctx) })
}

// write hands every pending draft to the store. A failure is said once: the draft is still in
// the composer, so nothing is lost while the window stays open.
func (k *draftKeeper) write(ctx context.Context) {
	k.writing.Lock()
	defer k.writing.Unlock()
	k.mu.Lock()
	pending := k.pending
	k.pending = map[string]string{}
	k.mu.Unlock()
	for id, text := range pending {
		// The call's own context is cancelled right after it: the failure is judged by the
		// window's (a closing window's cancelled write is no failure to show).
		call, cancel := context.WithTimeout(ctx, callTimeout)
		err := k.b.SaveDraft(call, id, text)
		cancel()
		if err != nil && !k.failed && ctx.Err() == nil {
			k.failed = true
			k.m.do(func() {
				k.m.showInline("Your unsent text could not be kept for the next start (" + err.Error() +
					"): it stays in the composer while the window is open; check the disk and keep typing to try again.")
			})
		}
	}
}

// flush writes what is pending now, before the window goes.
func (k *draftKeeper) flush() {
	if k.b == nil {
		return
	}
	k.mu.Lock()
	if k.timer != nil {
		k.timer.Stop()
	}
	k.mu.Unlock()
	k.write(context.Background())
}

// restore reads a conversation's stored draft the first time it is opened and puts it in the
// composer, unless the person has typed there meanwhile.
func (k *draftKeeper) restore(cs *convState) {
	if k.b == nil || k.read[cs.id] {
		return
	}
	k.read[cs.id] = true
	go func() {
		ctx, cancel := context.WithTimeout(k.m.ctx, callTimeout)
		defer cancel()
		text, err := k.b.Draft(ctx, cs.id)
		if err != nil || text == "" {
			return
		}
		k.m.do(func() {
			if cs.draft.text != "" || k.written[cs.id] != "" {
				return
			}
			cs.draft.text = text
			k.written[cs.id] = text
			if k.m.current == cs {
				k.m.loadDraft()
			}
		})
	}()
}
