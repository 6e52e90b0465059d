// Package ui is the Fyne desktop app of Phoenix Desktop: the main window with its sidebar of
// conversations, the chat log, the composer, the status bar, the approval card, the context
// meter and the dialogs for new conversations and settings. The main window (mainwindow.go)
// composes components that each own their widgets in a file of their own (header.go,
// sidebar.go, findbar.go, composerbar.go, statusbar.go, notice.go, project.go); the table is
// in docs/ARCHITECTURE.md, "The window".
//
// Assistant replies, streamed text, continuation summaries and tool output are drawn by
// ui/markdown (GitHub-flavoured Markdown with highlighted code, selectable and copyable);
// that package imports nothing of ours.
//
// The package talks to the agent only through the actors' command API (the Backend interface
// defined here, which *actors.Runtime satisfies) and its event stream (EventSource). Of this
// module it imports only actors, domain and the pure leaves imaging (every image it shows goes
// through imaging.Thumbnail), providers (the Settings dialog's presets) and transcript (the
// words for states and tool calls, and the Markdown export, shared with the command line);
// cmd/phoenix-desktop's TestImportRules enforces this. It must never touch a widget outside the
// UI goroutine: every update that starts on another goroutine goes through fyne.Do (Deps.Do in
// tests). The event handler never blocks the publishing actor; streamed text is coalesced into
// a few repaints per second.
//
// cmd/phoenix-desktop calls Run(app, runtime, runtime.Subscribe(), deps), or NewMainWindow and
// then Window().ShowAndRun(). LoadSettings and SaveSettings read and write the provider
// settings the Settings dialog edits, in the app's preferences.
package ui
