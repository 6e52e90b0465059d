package cheaptest

/*
#include <stdlib.h>
#include <string.h>

// Global, so that the compiler cannot see the blocks go unused and drop the calls.
void *phoenix_pin;
void **phoenix_blocks;

// phoenix_fragment mallocs n blocks of size bytes, writes them (so their pages are resident)
// and one small block after them, then frees the n blocks: free gives pages back only from
// the top of a heap, which the small block holds, so glibc keeps them until malloc_trim.
static void phoenix_fragment(int n, int size) {
	phoenix_blocks = malloc(n * sizeof(void *));
	for (int i = 0; i < n; i++) {
		phoenix_blocks[i] = malloc(size);
		memset(phoenix_blocks[i], 1, size);
	}
	phoenix_pin = malloc(64);
	for (int i = 0; i < n; i++) free(phoenix_blocks[i]);
}
*/
import "C"

// Fragment leaves n blocks of size bytes (under glibc's mmap threshold, 128 KiB, so that
// they come from its heap) freed but resident in the C heap.
func Fragment(n, size int) { C.phoenix_fragment(C.int(n), C.int(size)) }
