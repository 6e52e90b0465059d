package ui

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
)

// DraftsBackend keeps each conversation's unsent draft in the store (issue 41).
// *actors.Runtime satisfies it; a Backend without it keeps drafts only while the window is
// open.
type DraftsBackend interface {
	Draft(ctx context.Context, id string) (Draft, error)
	SaveDraft(ctx context.Context, id string, d Draft) error
}

// Draft is a conversation's unsent text and attached images, as the store keeps them.
type Draft = actors.Draft

var _ DraftsBackend = (*actors.Runtime)(nil)

// draftDelay is how long typing must pause before the draft is written: a write flushes the
// store to the disk, too much for every key, and a pause is where a crash would cost the least.
const draftDelay = 400 * time.Millisecond

// draftKeeper writes the composer's text to the store as the person types, debounced, and
// reads it back the first time a conversation is opened, so a closed window, a restart or a
// crash loses no unsent words, nor the images attached to them.
type draftKeeper struct {
	m *MainWindow
	b DraftsBackend
	// written is what was last handed to the store per conversation (draftKey) and read the
	// ones whose stored draft was asked for; both belong to the UI goroutine.
	written map[string]string
	read    map[string]bool

	mu      sync.Mutex
	pending map[string]Draft // drafts not yet written, by conversation
	timer   *time.Timer
	// writing serialises the writes, so an older text never lands after a newer one.
	writing sync.Mutex
	failed  bool
}

func newDraftKeeper(m *MainWindow) *draftKeeper {
	k := &draftKeeper{m: m, written: map[string]string{}, read: map[string]bool{}, pending: map[string]Draft{}}
	k.b, _ = m.b.(DraftsBackend)
	return k
}

// draftKey tells drafts apart: the text and the attached images (by identity: an image is
// never changed in place).
func draftKey(text string, atts []*attachment) string {
	key := text
	for _, a := range atts {
		key += fmt.Sprintf("\x00%p", a)
	}
	return key
}

// changed is the composer's OnChanged, and follows every change of the attachments: the open
// conversation's draft is now text with its attachments.
func (k *draftKeeper) changed(text string) {
	if k == nil || k.b == nil || k.m.current == nil {
		return // the window is still being built, or keeps no drafts
	}
	cs := k.m.current
	key := draftKey(text, cs.draft.atts)
	if k.written[cs.id] == key {
		return
	}
	k.written[cs.id] = key
	d := Draft{Text: text}
	for _, a := range cs.draft.atts {
		d.Images = append(d.Images, actors.Attachment{Name: a.name, Data: a.data})
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.pending[cs.id] = d
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
	k.pending = map[string]Draft{}
	k.mu.Unlock()
	for id, d := range pending {
		// The call's own context is cancelled right after it: the failure is judged by the
		// window's (a closing window's cancelled write is no failure to show).
		call, cancel := context.WithTimeout(ctx, callTimeout)
		err := k.b.SaveDraft(call, id, d)
		cancel()
		if err != nil && !k.failed && ctx.Err() == nil {
			k.failed = true
			k.m.do(func() {
				k.m.showInline("Your unsent message could not be kept for the next start (" + err.Error() +
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
		d, err := k.b.Draft(ctx, cs.id)
		if err != nil || d.Empty() {
			return
		}
		// Thumbnails are made here, off the UI goroutine; an image that no longer reads as
		// one is left out.
		var atts []*attachment
		for _, img := range d.Images {
			if a, err := newAttachment(img.Name, img.Data); err == nil {
				atts = append(atts, a)
			}
		}
		k.m.do(func() {
			if cs.draft.text != "" || len(cs.draft.atts) > 0 || k.written[cs.id] != "" {
				return
			}
			cs.draft.text, cs.draft.atts = d.Text, atts
			k.written[cs.id] = draftKey(d.Text, atts)
			if k.m.current == cs {
				k.m.loadDraft()
			}
		})
	}()
}
