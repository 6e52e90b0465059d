package mcp

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// A project's .mcp.json is kept parsed while it stays the same (issue 39), and a change, a
// replacement or a removal is seen at the next read.
func TestProjectConfigFollowsItsFile(t *testing.T) {
	cwd := t.TempDir()
	path := filepath.Join(cwd, ProjectFileName)
	past := time.Now().Add(-time.Hour)
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		past = past.Add(time.Second)
		if err := os.Chtimes(path, past, past); err != nil {
			t.Fatal(err)
		}
	}
	names := func() []string {
		t.Helper()
		c, err := projectConfig(cwd)
		if err != nil {
			t.Fatal(err)
		}
		return c.Names()
	}
	write(`{"mcpServers":{"one":{"command":"echo"}}}`)
	for range 2 {
		if got := names(); !slices.Equal(got, []string{"one"}) {
			t.Fatalf("servers %v; want [one]", got)
		}
	}
	write(`{"mcpServers":{"two":{"command":"echo"}}}`)
	if got := names(); !slices.Equal(got, []string{"two"}) {
		t.Fatalf("after an edit: servers %v; want [two]", got)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if got := names(); len(got) != 0 {
		t.Fatalf("after removal: servers %v; want none", got)
	}
}
