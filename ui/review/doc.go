// Package review is the Changes view: every file a conversation changed in a scope (this
// turn, this conversation, uncommitted), a file list beside a unified diff — or old and new
// side by side when the window is wide enough — its lines coloured as the chat's code blocks
// are (ui/markdown's highlighter, lexed a hunk at a time in the background), with Revert and
// Mark reviewed per file and Revert per hunk, and comments on lines (click a line's number,
// Shift+click another to make a range, or move with the arrow keys; write the comment below).
//
// Only the rows on screen are laid out: the diff is one widget.List of rows (file headers,
// hunk headers, lines) whose templates are reused as it scrolls, so a change of 200 files
// and 20,000 lines opens and scrolls at the speed of a short one.
//
// When the scope shown is given again (the conversation changed while the view was open),
// the row on top, the selected lines and the comment being written stay where those lines
// still are, and a file marked reviewed keeps its mark only while its diff is the one it
// was marked on (keep.go).
//
// The view is a widget that shows what it is given (SetChanges) and says what the person
// asks for through Options' callbacks; it calls nothing itself. Package ui wires it to the
// actors (reviewpane.go). It may import Fyne, review (the files and hunks it shows, and the
// comments it makes) and ui/markdown (the highlighter), nothing else of this module.
package review
