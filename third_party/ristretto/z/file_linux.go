/*
 * SPDX-FileCopyrightText: © Hypermode Inc. <hello@hypermode.com>
 * SPDX-License-Identifier: Apache-2.0
 */

package z

import (
	"fmt"
)

// Truncate would truncate the mmapped file to the given size. On Linux, we truncate
// the underlying file and then call mremap, but on other systems, we unmap first,
// then truncate, then re-map.
func (m *MmapFile) Truncate(maxSz int64) error {
	if err := m.Sync(); err != nil {
		return fmt.Errorf("while sync file: %s, error: %v\n", m.Fd.Name(), err)
	}
	if err := m.Fd.Truncate(maxSz); err != nil {
		return fmt.Errorf("while truncate file: %s, error: %v\n", m.Fd.Name(), err)
	}

	// The mapping may move: resident.go must know where it is.
	mappedMu.Lock()
	defer mappedMu.Unlock()
	forget(m.Data)
	data, err := mremap(m.Data, int(maxSz)) // Mmap up to max size.
	if err != nil {
		remember(m.Data)
		return err
	}
	m.Data = data
	remember(m.Data)
	return nil
}
