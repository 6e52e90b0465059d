//go:build !linux

package mcp

import "os"

// exitNote is empty where the app does not run servers through its sandbox.
func exitNote(*os.Process) string { return "" }
