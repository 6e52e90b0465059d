// Package markdown renders GitHub-flavoured Markdown (CommonMark with tables, strikethrough,
// task lists and autolinks) as Fyne objects, for the chat's assistant replies and, in the
// quiet style of Options.Quiet (smaller, dimmed, italic prose), a thinking model's reasoning.
// As in GitHub's comments, a single line break is kept as a line break (CommonMark's "soft"
// break would join the lines into one paragraph).
//
// goldmark parses the text; the tree is turned into a small block model (parse.go) and each
// block into Fyne objects. Text is laid out by this package rather than by widget.RichText,
// so that identifiers such as foo_bar.go stay one word, inline code is one monospace run, and
// any part of a reply can be selected with the mouse and copied with Ctrl+C: a View knows
// where every character it drew is. Code blocks are highlighted by chroma (the highlighter of
// glamour and Hugo) with a light or a dark style following the theme, carry a language label,
// a Copy button and a Wrap toggle, and scroll sideways when not wrapped; diff blocks are
// coloured line by line with DiffLineColor, which the tool rows use too. Tables are grids
// whose columns fit their content and which scroll sideways when wider than the view.
//
// A View re-renders only the top-level blocks whose source changed since the last SetMarkdown,
// so a streaming reply costs the block that grows, not the whole reply.
//
// SetText shows plain text (a person's message) with the same selection; Mark highlights
// Find's matches behind the glyphs, strongly for the current one, and keeps them as the text
// changes; PlainText is Markdown as the words a reader sees (a search hit's line).
//
// A selection may run past a view into its neighbours (the chat's messages): a view given an
// Options.Span hands its drags, presses, focus loss and copying to that Spanner, which draws
// its part of the selection in each view with SelectRange, in offsets of Text() (span.go;
// TextOf is that text for views not drawn).
//
// The package may import Fyne, goldmark (with its GFM extensions), chroma's engine (never its
// lexers or styles packages, which parse all their definitions when the process starts),
// ui/markdown/syntax (the app's languages and code styles, parsed on first use) and
// ui/measure (the width-aware layout protocol it shares with the chat), and nothing else of
// this module: the chat (package ui) imports it, never the other way round. Colours and
// sizes come from the current Fyne theme.
package markdown
