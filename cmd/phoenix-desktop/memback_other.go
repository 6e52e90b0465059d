//go:build !linux || !cgo

package main

// mallocTrim: without cgo no C library allocates in this process.
func mallocTrim() {}
