// Package worktree gives a conversation a git worktree of its own (issue 34): `git worktree
// add` on a new branch phoenix/<short title> from the repository's current HEAD, in a folder
// beside the repository (Place), and later merges that branch into the branch it started
// from, keeps the branch without the folder, or removes both.
//
// Git runs as the app's other programs outside the walls do (docs/ARCHITECTURE.md, "Programs
// the app runs in the project outside the walls"): the git found on PATH but never one inside
// the repository or the worktree (hostexec.LookPath), with core.hooksPath set to /dev/null and
// core.fsmonitor off, so nothing the agent wrote in a worktree runs as the person. A merge
// never leaves a half-merged tree: the merge is first computed without touching any working
// tree (git merge-tree --write-tree), and a conflict is reported with its files before
// anything changes.
//
// # What it may import
//
// hostexec and the standard library: the actors, the headless commands and the window use it.
package worktree
