//go:build linux && cgo

package main

// #include <malloc.h>
import "C"

// mallocTrim: glibc's malloc_trim(0), which madvises away the free pages of every arena
// (not only the top of the main one, as free does on its own).
func mallocTrim() { C.malloc_trim(0) }
