// Package search finds words in every message of every conversation the person started: an
// inverted index in its own Badger database beside the store, ranked with BM25, that shows
// the line of each message that matched.
//
// The index is derived data. The store (package persistence) is the only truth: the index
// records, per conversation, how far it has read (a watermark), and catches up from the store
// whenever it is told that a conversation changed (Notify), when it opens, and when asked
// (Sync). A missing, unreadable or older-format index is thrown away and rebuilt; a
// conversation that is no longer in the store is dropped from it. Nothing here is on a
// commit's path: Notify only marks a conversation and wakes the indexer's goroutine, so a
// slow or broken index can never block or lose a commit — at worst search is behind.
//
// Why Badger and not bleve: see DESIGN in index.go.
//
// Layout (format version in keyVersion):
//
//	v                                 format version, decimal
//	p/<term>\x00<conv>\x00<block:8>   the postings of a term in 1,024 consecutive messages of a
//	                                  conversation: (sequence offset, tf, message length) as
//	                                  uvarints, in sequence order
//	f/<conv>\x00<first:8>             the terms of the chunk of messages indexed from sequence
//	                                  first, \x00-separated, so that a conversation's postings
//	                                  can be removed
//	w/<conv>                        watermark: next sequence to index, messages and terms
//	                                indexed so far (uvarints), for BM25's statistics
//
// The package may import domain and persistence (for the Source it reads: *persistence.Store
// satisfies it); it must never write to the store.
package search
