// Package startpages drops from the process the pages of the binary's read-only mappings
// (code, constants, the runtime's tables) that it touched: they stay in the page cache and
// come back on their next use (a minor fault, no I/O). The kernel maps 64 KiB around every
// page a program first touches in a file mapping, so the ~270 package initialisations of
// this binary, each touching its own code and data once, make some 20 MB resident that no
// command reads again.
//
// Release runs at five points of a headless one-turn chat (issue 39: its peak resident memory,
// the `peak RSS` bench rows): in this package's initialisation, at about two fifths of the
// binary's; in startpages/late's, at about four fifths; in main once initialisation is over;
// and in the chat, once the store and the runtime are open and again once its turn has come
// to rest, before the store closes. Each costs one madvise and the refaults of the pages
// used again afterwards (see docs/ARCHITECTURE.md, "From cold").
//
// It imports nothing of ours, and nothing that initialises late: its position in package
// initialisation depends on it.
package startpages
