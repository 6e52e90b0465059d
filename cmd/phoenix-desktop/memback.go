package main

import "runtime/debug"

// trimCHeap gives the C heap's free pages back to the system (glibc's malloc_trim where the
// binary is built with cgo on glibc; nothing elsewhere). A variable so that a test can see
// giveMemoryBack call it.
var trimCHeap = mallocTrim

// giveMemoryBack is the runtime's Config.OnAllRested: once every conversation rested, the
// memory they freed goes back to the system, both Go's (debug.FreeOSMemory: the runtime
// would keep it for turns that may not come for days) and the C side's. The window's C
// libraries (Mesa's llvmpipe rasteriser, GLFW) allocate with glibc's malloc on their own
// threads, and glibc keeps the pages those free in its arenas, never returning the middle
// of an arena by itself: malloc_trim(0) returns every free page of every arena
// (docs/ARCHITECTURE.md, "Memory over a long life").
func giveMemoryBack() {
	debug.FreeOSMemory()
	trimCHeap()
}
