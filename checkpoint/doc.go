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
// # The change detector: no git when nothing changed
//
// A snapshot costs two git process starts (add, write-tree) even when nothing changed, about
// 5 ms, and the runtime takes one before and one after every Unrestricted bash call: a
// read-only command (true, ls, git status, go test) paid ~10 ms of git per round. So a Repo
// watches its work tree with inotify (github.com/fsnotify/fsnotify, the library Fyne already
// links; watch*.go) and a snapshot returns the last tree id without running git when no event
// arrived since. The rules that make it never miss a change git would have seen:
//
//   - What is watched: every directory of the work tree that .gitignore does not exclude —
//     not only those holding a tracked file: an empty directory, or one of ignored files only
//     (build/ under "*.o"), gets a file later that must be seen. Ignored directories come
//     from `git ls-files --others --ignored --directory`, filtered by `git check-ignore` (the
//     former also names a directory whose files are all ignored though it is not). Also
//     watched: a nested repository's git directory and branch refs (the snapshot records it
//     as its HEAD commit), and each file with more than one hard link (a write through
//     another name is reported to that name's directory only). Never watched: the shadow
//     repository, the project's own .git, ignored directories.
//   - Which events: any (create, write, remove, rename, attribute change) marks the tree
//     dirty; a watcher error or a queue overflow marks it dirty and replaces the watcher.
//     An event that may change what is to be watched (a directory created or removed, a
//     .gitignore changed, a new hard link) also asks for a new watch list. A watched
//     directory moved replaces the watcher: the kernel keeps the watches below it, which
//     fsnotify would go on naming by their old paths. Before trusting "clean", the work
//     tree's path must still name the directory that was watched (device and inode): a tree
//     moved away and made again, or a symbolic link pointed elsewhere, sends no event.
//   - No event still in flight: the kernel queues an event when the write happens, but the
//     watcher reads it a little later. Before trusting "clean", a snapshot writes one byte
//     in place into a marker file kept open in a watched directory of its own
//     (phoenix-watch, in the shadow repository) and waits for its event: one inotify
//     instance has one ordered queue, so every earlier event has been read by then
//     (watchman's cookie files work the same way). One event and no directory change: a
//     new file each time cost ext4 0.25 ms, a rename to a new name 16 µs and two events,
//     the write 2 µs. A barrier that stopped waiting leaves its event behind, alike to the
//     next one's, so the next barrier makes a marker of a new name. ~0.02–0.05 ms.
//   - Order: the watch list is brought up to date first, then the dirty flag is cleared, then
//     git reads the tree. A change git may have missed is an event after the clear, so the
//     next snapshot runs git again. A directory newly watched is listed again once its watch
//     exists, so a subdirectory made in between is not left unwatched; a new watcher starts
//     dirty. A restore (which writes the shadow index) forgets the last id.
//   - Fallback, logged at debug level: past DefaultWatchLimit (4,096) watches — before Linux
//     5.11 all of a person's programs share 8,192, and a 20,000-file tree rarely has 2,000
//     directories — on NFS, SMB, FUSE and other file systems whose changes from elsewhere
//     inotify does not report, when inotify has no instance or watch left, the repository runs
//     git for every snapshot, as before, and tries again after ten minutes.
//
// What inotify cannot see, and so a snapshot may miss until the next event in the tree:
// writes through a shared memory mapping (mmap) with no write, truncate or close after them;
// writes through a hard link made from outside the tree after the watch list was made; a
// change of the person's global excludes file. Git's own stat check would see the first two.
// Each repository's watches count against the user's limit on their own: eight
// conversations on large trees, or several in one directory, watch it each.
//
// Measured on the 5,000-file sample tree (BenchmarkSnapshot5000Unchanged,
// BenchmarkWatchList5000): a snapshot of an unchanged tree 0.05–0.2 ms and no git process;
// a new watch list (after a directory was created or removed) ~12 ms, most of it the two git
// commands; the first one also reads every file's link count (~15 ms more, once).
//
// The owner decides when the detector runs (SetWatching): each costs an inotify instance, of
// which a user has 128 by default for all programs, and two goroutines; Close stops it.
//
// The package knows nothing of conversations, actors or the store: it imports nothing of
// ours. A Repo serialises its own git commands (one index).
package checkpoint
