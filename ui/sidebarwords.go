package ui

import (
	"context"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
)

// LastWordsBackend gives the first words of conversations' last messages (actors.LastWords):
// the sidebar shows them for rows whose titles are equal to the end, which nothing else tells
// apart (issue 41: 150 rows of "echo: conversation 1").
type LastWordsBackend interface {
	LastWords(ctx context.Context, ids []string) (map[string]string, error)
}

var _ LastWordsBackend = (*actors.Runtime)(nil)

// lastWords is what LastWords said of a conversation as it was at updated.
type lastWords struct {
	updated time.Time
	words   string
}

// repeatedTitles are the indexes of titles equal to another's, to the end.
func repeatedTitles(titles []string) []int {
	count := map[string]int{}
	for _, t := range titles {
		count[t]++
	}
	var out []int
	for i, t := range titles {
		if count[t] > 1 {
			out = append(out, i)
		}
	}
	return out
}

// tellRepeatsApart gives the rows whose titles repeat their conversation's last words, quoted,
// as their titles, once known; it asks the backend, off the UI goroutine, for the words of
// those it does not know as they are now, and refreshes the sidebar when they come.
func (s *sidebar) tellRepeatsApart(titles []string) {
	b, ok := s.m.b.(LastWordsBackend)
	if !ok {
		return
	}
	if s.words == nil {
		s.words = map[string]lastWords{}
		s.asking = map[string]bool{}
	}
	var ask []string
	asked := map[string]time.Time{}
	for _, i := range repeatedTitles(titles) {
		cs := s.convs[i]
		w, known := s.words[cs.id]
		if known && w.updated.Equal(cs.conv.UpdatedAt) {
			if w.words != "" {
				s.titles[cs] = "“" + w.words + "”"
			}
			continue
		}
		if !s.asking[cs.id] {
			s.asking[cs.id] = true
			ask = append(ask, cs.id)
			asked[cs.id] = cs.conv.UpdatedAt
		}
	}
	if len(ask) == 0 {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(s.m.ctx, callTimeout)
		defer cancel()
		got, _ := b.LastWords(ctx, ask) // what it could not read keeps its title
		s.m.do(func() {
			for _, id := range ask {
				delete(s.asking, id)
				// A conversation without words (or that could not be read) is remembered
				// too, so that it is not asked for again until it changes.
				s.words[id] = lastWords{updated: asked[id], words: got[id]}
			}
			if !s.m.closed {
				s.refresh()
			}
		})
	}()
}
