// Package persistence is Phoenix Desktop's store: conversations, their messages and image
// blobs in a Badger database, written one transition at a time (REQ-BED-007).
//
// Every change the core decides is committed by Commit in one Badger transaction: the new
// conversation record, the messages the transition produced, and the small summary the
// sidebar lists. Either all of it is on disk or none of it is, so a crash between two
// transitions loses nothing that was acknowledged. Recover brings the conversations a crash
// left busy to rest through the pure core (domain.Transition), so that the rules for what an
// interrupted tool or sub-agent becomes live in one place.
//
// Layout (schema version 1, see schema.go):
//
//	meta/schema             schema version, decimal
//	conv/<id>               domain.Conversation, JSON (its sealed State as kind + fields)
//	sum/<id>                Summary, JSON, for user-initiated conversations only: List reads
//	                        these and never a message
//	kid/<parent>/<child>    empty: the sub-agents of a conversation
//	msg/<id>/<seq:%020d>    domain.Message, JSON, ordered by sequence
//	blob/<sha256>           image bytes, stored once by content hash
//	bcnt/<sha256>           how many conversations reference the blob, decimal
//	cblob/<id>/<sha256>     empty: the conversation references the blob
//	del/<id>                a deletion that has begun and must be finished (see Delete)
//	aux/<id>/<name>         runtime records of a conversation: instructions, queue, checkpoints,
//	                        restores, the unsent draft, the Changes view's comments and marks
//	                        (aux.go); files/<id>/ in the directory
//	                        holds its checkpoint files
//
// Schema changes. People's data directories outlive every build, so the layout above and
// the JSON of every domain type stored in it are a contract. testdata/schema-N.json freezes
// what schema version N wrote (every key and value, exported raw), and TestFixturesOpen
// loads each fixture into a fresh database, opens it as the app does and decodes all of it;
// for the current version every stored field must come back with its value. The rule:
//
//   - A new optional field with omitempty (or omitzero), or a new key prefix that the code
//     treats as absent when missing, needs no migration: the old fixtures keep opening
//     unchanged. Add the field to the next fixture only when the schema version moves.
//   - A change that old data would not decode into with the same meaning (a renamed or
//     removed JSON name, a changed type or encoding, a moved key) bumps the schema version:
//     append a migration to schema.go's migrations, then write the new version's fixture
//     with `go test ./persistence -run TestWriteFixture -write-fixture`. Old fixtures are
//     never edited or deleted: they must keep opening through the migrations.
//   - A new value of an existing string field (an enum such as domain.Mode) needs no
//     migration when every stored value keeps its meaning and the value is safe in an older
//     build's hands; say why in the field's package and add a round-trip test. Example:
//     domain.ModeProject ("project", issue 24). Old data never holds it, so the fixtures
//     decode as before; an older build reading it treats every mode but "unrestricted" as
//     Restricted (tools.Env, mcp), so it fails closed. The schema version does not move,
//     because moving it would make an older build refuse the whole directory.
//
// Besides the keys, the directory holds Badger's files and phoenix.lock, which the store
// flocks so that a second instance fails with ErrLocked. Durability is described at
// Options.SyncWrites; the bad situations (locked, not writable, unreadable, corrupt values,
// too large, closed) each have a sentinel in errors.go.
//
// A full disk is a state, not a crash (space.go): every write first checks that the data
// directory's file system keeps DefaultReserve free and is refused with a DiskFullError
// (ErrDiskFull) otherwise; Badger's memtable logs are small and preallocated so a mapped write
// never meets a missing block; a full disk opens read-only, and the store turns writable by
// itself when there is room. Reading never needs room. A writable store holds Preallocated
// bytes on disk whatever it stores. CheckSpace is the same check for the writers beside the
// store (checkpoints, the search index, temp dirs, settings, the key file, MCP configuration).
//
// The package must never decide what a state means: that is domain's job. It must never
// delete, repair or rewrite data it cannot read; it reports it (ErrCorrupt) and keeps the
// rest usable.
package persistence
