//go:build linux && cgo

package ui

/*
#include <malloc.h>
*/
import "C"

// trimCHeap gives back to the system the free pages of the C heap (glibc's malloc_trim):
// what the window's C side (Mesa's software renderer, GLFW, X, fontconfig) freed, such as
// the textures of text no longer drawn, which glibc otherwise keeps for its next
// allocations. Called by the idle sweep after Fyne's Clean.
func trimCHeap() { C.malloc_trim(0) }
