//go:build !linux

/*
 * SPDX-FileCopyrightText: © Hypermode Inc. <hello@hypermode.com>
 * SPDX-License-Identifier: Apache-2.0
 */

package z

// dropResident does nothing where the app does not run (resident.go).
func dropResident([]byte) {}
