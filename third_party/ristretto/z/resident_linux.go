/*
 * SPDX-FileCopyrightText: © Hypermode Inc. <hello@hypermode.com>
 * SPDX-License-Identifier: Apache-2.0
 */

package z

import "golang.org/x/sys/unix"

// dropResident unmaps b's pages from the process (resident.go). It is advice: a failure
// loses nothing (the pages stay mapped), so it is not reported.
func dropResident(b []byte) {
	if len(b) > 0 {
		_ = unix.Madvise(b, unix.MADV_DONTNEED)
	}
}
