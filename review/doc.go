// Package review is what the Changes view and the headless changes and revert commands
// show of a conversation's work: the files that differ between two trees, each with its
// hunks numbered from 1 in the order git prints them, and the line arithmetic that reverts
// one hunk and nothing else.
//
// The diff itself comes from git (checkpoint.Repo.DiffTrees, the same git and attributes as
// every snapshot) and is parsed with github.com/sourcegraph/go-diff, a maintained parser of
// unified and git diffs (quoted names, extended headers, "\ No newline at end of file"),
// rather than by hand. A hunk is reverted on the file's bytes, not on the diff's text: the
// lines of the current file the hunk covers are replaced by the lines of the base file it
// came from, so line endings, a missing final newline and every line outside the hunk stay
// byte for byte as they are.
//
// The package runs nothing and knows nothing of conversations or the store; it imports
// go-diff and the standard library only. The actors (actors/review.go) pick the trees of a
// scope and carry out a revert as an undoable restore.
package review
