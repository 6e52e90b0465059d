// Package cheaptest leaves memory that C code freed in glibc's heap, not given back to the
// system, for the test of the window's trim at rest (ui's giveBackMemory, malloc_trim): the
// window's C side (Mesa, GLFW, X, fontconfig) frees memory the same way.
//
// It imports nothing of ours; only tests import it (AGENTS.md rule 9).
package cheaptest
