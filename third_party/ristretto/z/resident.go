/*
 * SPDX-FileCopyrightText: © Hypermode Inc. <hello@hypermode.com>
 * SPDX-License-Identifier: Apache-2.0
 */

package z

import "sync"

// Phoenix Desktop's patch (../README.md): the pages of Badger's mapped files that this
// process touched count in its resident memory for as long as the file stays mapped — every
// table, written through its mapping when it is made, every page of a memtable log or value
// log written, every page a read faulted in — though the kernel keeps them in its page cache
// either way. A window left open through 2,000 turns held some 10 MiB more that way (issue
// 43). Two things drop them from the process (never from the page cache, never from the
// disk):
//
//   - Msync, once a mapping's pages are written back: a table just made, a log at each sync;
//   - ReleaseMapped, which the app calls at rest: what reads faulted in.
//
// Every mapping made here is of a file and shared (MAP_SHARED), so a page dropped is read
// again from the page cache, with its latest contents, at its next access (madvise(2),
// MADV_DONTNEED). On any other memory the same advice would zero it, so a range is advised
// only while it is one of these mappings: mapped holds each live one by its first byte, and
// mappedMu is held while one is made, moved (mremap), unmapped or advised.
var (
	mappedMu sync.Mutex
	mapped   = map[*byte][]byte{}
)

// remember records b, just mapped; forget drops it, about to be unmapped or moved. Both with
// mappedMu held.
func remember(b []byte) {
	if len(b) > 0 {
		mapped[&b[0]] = b
	}
}

func forget(b []byte) {
	if len(b) > 0 {
		delete(mapped, &b[0])
	}
}

// release drops b's pages from the resident memory if b is (within) one of the live
// mappings.
func release(b []byte) {
	if len(b) == 0 {
		return
	}
	mappedMu.Lock()
	defer mappedMu.Unlock()
	if m, ok := mapped[&b[0]]; ok && len(b) <= len(m) {
		dropResident(b)
	}
}

// ReleaseMapped drops the pages of every mapped file from the process's resident memory;
// they stay in the page cache and come back at their next access. It returns how many
// mappings it advised.
func ReleaseMapped() int {
	mappedMu.Lock()
	defer mappedMu.Unlock()
	for _, b := range mapped {
		dropResident(b)
	}
	return len(mapped)
}
