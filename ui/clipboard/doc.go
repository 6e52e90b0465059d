// Package clipboard reads what the desktop's clipboard holds beyond text: an image (what
// screenshot tools and "Copy image" put there) or a list of files copied in a file manager.
// Fyne's clipboard is text only, so the composer asks this package first when the person
// pastes, and lets Fyne paste text when it finds neither.
//
// It reads through the desktop's own tools, xclip on X11 and wl-paste (wl-clipboard) on
// Wayland, rather than a Go clipboard library: golang.design/x/clipboard, the well-kept one,
// reads only PNG and text on X11 (no JPEG or BMP target, no list of targets, no file lists)
// and not Wayland at all, and links libX11 itself. A tool lists every target the owner
// offers, reads any of them, runs outside the window's event loop (the app may own the
// clipboard itself and must stay free to answer), and is bounded here by a timeout and a size
// cap. Which tool is tried first, and what is read when the clipboard offers several things,
// is said beside the tables in clipboard.go.
//
// The package may import nothing of this module; package ui imports it.
package clipboard
