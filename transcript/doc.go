// Package transcript is the one home of the words and documents Phoenix Desktop writes
// about a conversation for people: what a state is called (the sidebar's word, the status
// line), the key argument that identifies a tool call at a glance, a conversation's title,
// and the Markdown export. The window (ui) and the command line (cmd/phoenix-desktop: chat,
// show, export) both call these functions, so that the two never describe one conversation
// differently; the export in particular is byte for byte the same from Ctrl+E and from
// `phoenix-desktop export` (golden test).
//
// It is pure text: no I/O, no clock (times are passed in), no widgets, and it imports only
// domain of this module, so that ui may import it.
package transcript
