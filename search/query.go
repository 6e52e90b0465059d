package search

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/dgraph-io/badger/v4"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/persistence"
)

// Query is one search.
type Query struct {
	Text string
	// IncludeArchived searches archived conversations too.
	IncludeArchived bool
	// Limit bounds the hits returned; zero means 50.
	Limit int
	// EveryHit lifts the cap of three hits per conversation: the sidebar's "Show more" pages
	// through every matching message.
	EveryHit bool
}

// Hit is one message that holds every word of the query.
type Hit struct {
	ConvID   string             `json:"conversation"`
	Title    string             `json:"title"`
	Archived bool               `json:"archived,omitempty"`
	Seq      uint64             `json:"seq"`
	Kind     domain.MessageKind `json:"kind"`
	// Line is the line of the message where a word of the query is, shortened around it.
	Line  string    `json:"line"`
	Score float64   `json:"score"`
	At    time.Time `json:"at,omitzero"`
}

// Result is what a search found, best first.
type Result struct {
	Hits []Hit `json:"hits"`
	// Matches counts every matching message, of which Hits are the best (at most three per
	// conversation).
	Matches int `json:"matches"`
	// Indexing says the index is still catching up with the store, so some may be missing.
	Indexing bool `json:"indexing,omitempty"`
}

type docRef struct {
	conv string
	seq  uint64
}

type candidate struct {
	score   float64
	matched int
}

// Search finds the messages that hold every word of the query (whole words, any case), ranked
// by BM25, at most three per conversation. The last word, while it is being typed (the query
// does not end in a space or punctuation) and has at least minPrefixRunes letters, also
// finds the words it begins: "refac" finds "refactor" and "refactoring".
func (x *Index) Search(q Query) (Result, error) {
	if x.closed.Load() {
		return Result{}, ErrClosed
	}
	terms := queryTerms(q.Text)
	switch {
	case len(terms) == 0:
		return Result{}, ErrEmptyQuery
	case len(terms) > maxQueryTerms:
		return Result{}, ErrTooManyTerms
	}
	limit := q.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	sums, err := x.src.List(q.IncludeArchived)
	if err != nil && !errors.Is(err, persistence.ErrCorrupt) {
		return Result{}, fmt.Errorf("search: list the conversations: %w", err)
	}
	allowed := make(map[string]persistence.Summary, len(sums))
	for _, s := range sums {
		allowed[s.ID] = s
	}
	n := float64(max(x.docs.Load(), 1))
	avg := float64(x.terms.Load()) / n
	if avg <= 0 {
		avg = 1
	}
	prefixLast := typingLastWord(q.Text, terms)
	cands := map[docRef]*candidate{}
	err = x.db.View(func(txn *badger.Txn) error {
		var ps []posting
		for i, t := range terms {
			// A whole term is its own key prefix; the word being typed takes every term
			// that starts with it, each message once (its counts summed).
			prefix := postingPrefix(t)
			if prefixLast && i == len(terms)-1 {
				prefix = postingPrefix(t)[:len(prefix)-1]
			}
			opts := badger.DefaultIteratorOptions
			opts.Prefix = prefix
			opts.PrefetchSize = 256
			it := txn.NewIterator(opts)
			seen := map[docRef]bool{}
			found := map[docRef]posting{}
			for it.Rewind(); it.Valid(); it.Next() {
				key := it.Item().Key()
				end := bytes.IndexByte(key[len(prefixPosting):], 0)
				if end < 0 {
					continue
				}
				conv, block, ok := splitPosting(key, len(prefixPosting)+end+1)
				if !ok {
					continue
				}
				err := it.Item().Value(func(v []byte) error {
					var err error
					ps, err = decodePostings(v, block, ps[:0])
					return err
				})
				if err != nil {
					it.Close()
					return fmt.Errorf("read the postings of %q: %w", t, err)
				}
				_, allowedConv := allowed[conv]
				for _, p := range ps {
					d := docRef{conv, p.seq}
					seen[d] = true
					if !allowedConv {
						continue
					}
					if c := cands[d]; i != 0 && (c == nil || c.matched != i) {
						continue
					}
					if prev, ok := found[d]; ok {
						p.tf += prev.tf
					}
					found[d] = p
				}
			}
			it.Close()
			df := len(seen)
			idf := math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
			for d, p := range found {
				c := cands[d]
				if c == nil {
					c = &candidate{}
					cands[d] = c
				}
				tf, dl := float64(p.tf), float64(p.dl)
				c.score += idf * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*dl/avg))
				c.matched++
			}
		}
		return nil
	})
	if err != nil {
		return Result{}, fmt.Errorf("search: %w; delete the search-index directory in the data directory and it is rebuilt", err)
	}
	type scored struct {
		docRef
		score float64
	}
	var all []scored
	for d, c := range cands {
		if c.matched == len(terms) {
			all = append(all, scored{d, c.score})
		}
	}
	slices.SortFunc(all, func(a, b scored) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		if c := allowed[b.conv].UpdatedAt.Compare(allowed[a.conv].UpdatedAt); c != 0 {
			return c
		}
		if c := strings.Compare(a.conv, b.conv); c != 0 {
			return c
		}
		return int(int64(b.seq) - int64(a.seq))
	})
	res := Result{Matches: len(all), Indexing: !x.isSynced()}
	perConv := map[string]int{}
	for _, s := range all {
		if len(res.Hits) >= limit {
			break
		}
		if perConv[s.conv] >= maxHitsPerConv && !q.EveryHit {
			continue
		}
		m, err := x.src.Message(s.conv, s.seq)
		if err != nil {
			// Deleted since the index was read, or unreadable: the store reports the
			// latter where the conversation is opened.
			continue
		}
		perConv[s.conv]++
		sum := allowed[s.conv]
		res.Hits = append(res.Hits, Hit{ConvID: s.conv, Title: sum.Title, Archived: sum.Archived, Seq: s.seq,
			Kind: m.Kind, Line: matchLine(docText(m), terms, prefixLast), Score: s.score, At: m.At})
	}
	return res, nil
}

func (x *Index) isSynced() bool {
	select {
	case <-x.synced:
		return true
	default:
		return false
	}
}

// splitPosting reads the conversation and block from a posting key after its term prefix.
func splitPosting(key []byte, prefixLen int) (string, uint64, bool) {
	rest := key[prefixLen:]
	if len(rest) < 10 || rest[len(rest)-9] != 0 {
		return "", 0, false
	}
	return string(rest[:len(rest)-9]), binary.BigEndian.Uint64(rest[len(rest)-8:]), true
}

// matchLine returns the first line of text that holds a query term, shortened around the
// term when it is long. With prefixLast the last term may begin a longer word.
func matchLine(text string, terms []string, prefixLast bool) string {
	first := ""
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if first == "" {
			first = line
		}
		runes := []rune(line)
		lower := make([]rune, len(runes))
		for i, r := range runes {
			lower[i] = unicode.ToLower(r)
		}
		for i, t := range terms {
			if at := wordIndex(lower, []rune(t), prefixLast && i == len(terms)-1); at >= 0 {
				return window(runes, at)
			}
		}
	}
	return window([]rune(first), 0)
}

// wordIndex finds term in line as a whole word, or with prefix as the start of one.
func wordIndex(line, term []rune, prefix bool) int {
	for i := 0; i+len(term) <= len(line); i++ {
		if !slices.Equal(line[i:i+len(term)], term) {
			continue
		}
		if (i == 0 || !isWordRune(line[i-1])) && (prefix || i+len(term) == len(line) || !isWordRune(line[i+len(term)])) {
			return i
		}
	}
	return -1
}

func window(runes []rune, at int) string {
	if len(runes) <= maxLineRunes {
		return string(runes)
	}
	start := max(0, at-lineContextRunes)
	end := min(len(runes), start+maxLineRunes)
	out := string(runes[start:end])
	if start > 0 {
		out = "…" + out
	}
	if end < len(runes) {
		out += "…"
	}
	return out
}
