package cheaptest

/*
#include <stdlib.h>
#include <string.h>

// Global, so that the compiler cannot see the blocks go unused and drop the calls.
void **phoenix_blocks;

// phoenix_fragment mallocs 2n blocks of size bytes and writes them (so their pages are
// resident), then frees every other one: each freed block lies between two kept ones, never
// at the top of a heap (the only place free gives pages back), so glibc keeps their pages
// until malloc_trim.
static void phoenix_fragment(int n, int size) {
	phoenix_blocks = malloc(2 * n * sizeof(void *));
	for (int i = 0; i < 2 * n; i++) {
		phoenix_blocks[i] = malloc(size);
		memset(phoenix_blocks[i], 1, size);
	}
	for (int i = 0; i < 2 * n; i += 2) free(phoenix_blocks[i]);
}
*/
import "C"

// Fragment leaves n blocks of size bytes freed but resident in the C heap, each between two
// blocks it keeps for the rest of the process (n of them too). A size under glibc's mmap
// threshold (128 KiB) comes from its heap.
func Fragment(n, size int) { C.phoenix_fragment(C.int(n), C.int(size)) }
