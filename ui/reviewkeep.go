package ui

import (
	"context"
	"maps"
	"slices"
	"sync"

	"github.com/phoenix-desktop/phoenix/actors"
)

// ReviewDraftsBackend keeps each conversation's comments waiting for the next message and
// its files marked reviewed in the store (issue 34). *actors.Runtime satisfies it; a
// Backend without it keeps them only while the window is open.
type ReviewDraftsBackend interface {
	ReviewDraft(ctx context.Context, id string) (actors.ReviewDraft, error)
	SaveReviewDraft(ctx context.Context, id string, d actors.ReviewDraft) error
}

var _ ReviewDraftsBackend = (*actors.Runtime)(nil)

// reviewKeeper writes a conversation's comments and marks to the store each time they
// change, and reads them back the first time the conversation or its Changes view opens.
// Its maps belong to the UI goroutine; the writes run in the background, in order.
type reviewKeeper struct {
	b    ReviewDraftsBackend
	read map[string]bool
	ver  map[string]int
	// stored says the store may hold something for the conversation: an empty draft is
	// written only then, not with every message sent.
	stored map[string]bool

	mu      sync.Mutex
	written map[string]int // the newest version written per conversation
}

func newReviewKeeper(b Backend) *reviewKeeper {
	k := &reviewKeeper{read: map[string]bool{}, ver: map[string]int{}, stored: map[string]bool{}, written: map[string]int{}}
	k.b, _ = b.(ReviewDraftsBackend)
	return k
}

// restoreKept reads cs's kept comments and marks once, and puts them before what was added
// meanwhile.
func (r *reviewUI) restoreKept(cs *convState) {
	k := r.keeper
	if k.b == nil || k.read[cs.id] {
		return
	}
	k.read[cs.id] = true
	go func() {
		ctx, cancel := context.WithTimeout(r.m.ctx, callTimeout)
		defer cancel()
		d, err := k.b.ReviewDraft(ctx, cs.id)
		if err != nil || d.Empty() {
			return
		}
		r.m.do(func() {
			if r.m.closed {
				return
			}
			k.stored[cs.id] = true
			added := len(r.comments[cs.id]) > 0 || len(r.marks[cs.id]) > 0
			if len(d.Comments) > 0 {
				r.comments[cs.id] = append(slices.Clone(d.Comments), r.comments[cs.id]...)
			}
			m := maps.Clone(d.Reviewed)
			if m == nil {
				m = map[string]string{}
			}
			maps.Copy(m, r.marks[cs.id])
			r.marks[cs.id] = m
			if w := r.wins[cs.id]; w != nil {
				w.view.SetMarks(m)
			}
			if added {
				r.keep(cs.id)
			}
			r.showDraft(cs)
		})
	}()
}

// keep writes id's comments and marks as they are now.
func (r *reviewUI) keep(id string) {
	k := r.keeper
	if k.b == nil {
		return
	}
	d := actors.ReviewDraft{Comments: slices.Clone(r.comments[id]), Reviewed: maps.Clone(r.marks[id])}
	if len(d.Reviewed) == 0 {
		d.Reviewed = nil
	}
	if d.Empty() && !k.stored[id] {
		return // nothing there to remove
	}
	k.stored[id] = !d.Empty()
	k.ver[id]++
	v := k.ver[id]
	go func() {
		k.mu.Lock()
		defer k.mu.Unlock()
		if k.written[id] > v {
			return // a newer state was written first
		}
		k.written[id] = v
		ctx, cancel := context.WithTimeout(r.m.ctx, callTimeout)
		defer cancel()
		if err := k.b.SaveReviewDraft(ctx, id, d); err != nil {
			r.m.do(func() {
				if w := r.wins[id]; w != nil && !r.m.closed {
					w.view.SetStatus(failureText("keep the comments and marks", err))
				}
			})
		}
	}()
}

// setMark records a file marked reviewed on a diff (diff ""), or no longer, and keeps it.
func (r *reviewUI) setMark(id, path, diff string) {
	if r.marks[id] == nil {
		r.marks[id] = map[string]string{}
	}
	if diff == "" {
		delete(r.marks[id], path)
	} else {
		r.marks[id][path] = diff
	}
	r.keep(id)
}
