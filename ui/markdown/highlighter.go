package markdown

import (
	"sync"

	"fyne.io/fyne/v2"
)

// highlighter is a View's one background worker that colours its code blocks. A streaming
// reply re-renders its growing code block many times a second; highlighting each version
// would cost the whole block every time (quadratic in its length). Instead the worker takes
// the queued blocks one at a time, and every render replaces the queue with the blocks the
// view still shows, so only the newest source of a block is ever coloured and the versions in
// between are never started. A result for a block that changed meanwhile is still cached (it
// colours the beginning of the next version at once) but not applied.
type highlighter struct {
	mu      sync.Mutex
	queue   []hlJob
	running bool
	// run colours code; nil means highlight. Tests count and hold the runs with it.
	run func(code, lang string) []run
}

// hlJob is one code block to colour, with its source as it was queued.
type hlJob struct {
	c          *codeBlock
	code, lang string
}

// highlightLater queues code blocks to be coloured in the background, dropping queued blocks
// the view no longer shows, and starts the View's worker if it is not running. Results are
// applied on the UI goroutine if the block still shows the same code.
func (v *View) highlightLater(cs []*codeBlock) {
	shown := make(map[*codeBlock]bool, len(v.codes))
	for _, c := range v.codes {
		shown[c] = true
	}
	v.hl.mu.Lock()
	queue := make([]hlJob, 0, len(v.hl.queue)+len(cs))
	for _, j := range v.hl.queue {
		if shown[j.c] {
			queue = append(queue, j)
		}
	}
	for _, c := range cs {
		queue = append(queue, hlJob{c: c, code: c.code, lang: c.lang})
	}
	v.hl.queue = queue
	start := !v.hl.running && len(queue) > 0
	v.hl.running = v.hl.running || start
	v.hl.mu.Unlock()
	if !start {
		return
	}
	do := v.uiDo()
	v.highlighting++
	// The work starts after the current turn of the UI loop, so that it does not take the
	// CPU from the frame that shows the plain code.
	do(func() { go v.highlightQueued(do) })
}

// uiDo is how work reaches the UI goroutine: Options.Do, or fyne.Do.
func (v *View) uiDo() func(func()) {
	if v.opts.Do != nil {
		return v.opts.Do
	}
	return fyne.Do
}

// highlightQueued is the worker: it colours queued blocks until the queue is empty.
func (v *View) highlightQueued(do func(func())) {
	run := v.hl.run
	if run == nil {
		run = highlight
	}
	for {
		v.hl.mu.Lock()
		if len(v.hl.queue) == 0 {
			v.hl.running = false
			v.hl.mu.Unlock()
			do(func() { v.highlighting-- })
			return
		}
		j := v.hl.queue[0]
		v.hl.queue = v.hl.queue[1:]
		v.hl.mu.Unlock()
		runs, final := cachedHighlight(j.code, j.lang)
		if !final {
			runs = run(j.code, j.lang)
			storeHighlight(j.code, j.lang, runs)
		}
		do(func() {
			if j.c.text.text == j.code {
				j.c.text.runs, j.c.text.lay = runs, nil
				j.c.text.Refresh()
			}
		})
	}
}
