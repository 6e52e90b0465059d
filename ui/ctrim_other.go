//go:build !linux || !cgo

package ui

// trimCHeap has nothing to trim where the C heap is not glibc's (ctrim_glibc.go).
func trimCHeap() {}
