// Package crashtest gives tests what a crash leaves of a Badger directory: a copy of its files
// taken while the database is open, as the disk holds them (the store's and the search
// index's tests of a crash of an older version open such copies).
//
// It imports nothing of ours; only tests import it (AGENTS.md rule 9).
package crashtest
