// Package checkpoint snapshots a working directory so that what the agent changed can be
// undone. It keeps a shadow git repository in the app's data directory: GIT_DIR is there and
// GIT_WORK_TREE is the conversation's working directory, so the person's own repository (if
// there is one) never sees a snapshot, .gitignore files are honoured exactly as git honours
// them (node_modules and build output are not copied), and a directory that is not a git
// repository works too.
//
// Why the git binary and not go-git or an object store of our own, measured on a 5,000-file
// tree (20 MB) with one file changed between snapshots, on the 2-core development VM:
//
//	git add -A && git write-tree (shadow repo)   20–60 ms   first snapshot 1.3 s, 5.5 MB RSS
//	go-git Worktree.AddWithOptions(All)          105–165 ms first snapshot 1.6 s
//
// git's index keeps each file's stat data, so an unchanged file is never read again; go-git
// re-hashes every file on each add and misses the 50 ms target by a factor of two to three.
// An object store of our own would have to re-implement the stat cache, .gitignore
// semantics (nested files, negation, the person's global excludes) and tree diffs, which git
// already does correctly. The price is a dependency on the git binary: without it
// checkpoints are off and the runtime says so (Available).
//
// A snapshot is a git tree id. Trees are never referenced by a commit or a ref, so the
// repository runs no automatic garbage collection (gc.auto=0); the whole repository belongs
// to one conversation and is removed with it.
//
// The first snapshot copies the whole tree, so it refuses one beyond MaxFiles (20,000) or
// MaxBytes (512 MB) of files that .gitignore does not exclude (ErrTooLarge): a conversation
// started in the home directory must not copy it into the data directory. Later snapshots
// only add what changed.
//
// The package knows nothing of conversations, actors or the store: it imports nothing of
// ours. A Repo serialises its own git commands (one index).
package checkpoint
