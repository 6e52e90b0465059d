// Package filepick is the window's file and folder picker (issue 36, the keyboard all the
// way): Fyne's file dialogs take Space but not Enter on their buttons, keep Escape in their
// fields and offer no way to type a path and go there. This one is built for a person at the
// keyboard: a path field (Enter goes to a folder or chooses what it names, Tab completes a
// name), the folder's list (Up and Down move, Enter opens a folder or chooses a file,
// Backspace or Alt+Up goes to the parent, typing a letter jumps to a name), a toggle for
// hidden files (Ctrl+H), Home and the starting folder as places, Cancel and Open (or Choose)
// as the app's buttons, Escape to cancel. The focus goes back to what had it when the picker
// closes, and the last folder is remembered per use in the app's preferences.
//
// A folder that cannot be read, or a file gone by the time it is chosen, gives a line in the
// picker saying so; the picker stays where it was.
//
// The picker never reads the disk on the UI goroutine, since a folder on a mount whose server
// went away (NFS, sshfs) can block a read for minutes and would freeze the whole window. Its
// reader (reader.go) lists folders, checks a typed path and a file before it is chosen, and
// reads the names Tab completes from (as the path is typed), each on its own goroutine, and
// hands the result back through Options.Do (fyne.Do). The latest request wins: one that
// supersedes a read under way cancels it, and the earlier result, if it ever comes, is
// dropped; so is everything that comes after the picker closed. A read taking longer than
// readingDelay shows "Reading <folder>…" in the list's place, and Escape, Home or another
// folder still work. A read the kernel holds cannot be interrupted: its goroutine ends when
// the kernel lets it go. The list is a widget.List (only the rows
// on screen exist), folders first, so a folder of ten thousand entries opens quickly.
//
// It imports ui/button (every button of the window is made there) and nothing else of ours;
// package ui opens it for Attach and for the "Choose…" folder buttons.
package filepick
