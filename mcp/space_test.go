package mcp

import (
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

var errFull = errors.New("the disk is full")

// Issue 25 item 4: on a disk that is short the configuration and the allowed project servers
// are not written (the files stay as they were, the hub keeps what it had), and once there is
// room they are.
func TestHubRefusesToSaveOnAFullDisk(t *testing.T) {
	dir := t.TempDir()
	var full atomic.Bool
	check := func(string, int64) error {
		if full.Load() {
			return errFull
		}
		return nil
	}
	path := filepath.Join(dir, ConfigFileName)
	hub, err := OpenHub(path, Options{SpaceCheck: check})
	if err != nil {
		t.Fatal(err)
	}
	if err := hub.SetServer("one", ServerConfig{Command: "x"}); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cwd := t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, ProjectFileName), []byte(`{"mcpServers":{"proj":{"command":"y"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}

	full.Store(true)
	if err := hub.SetServer("two", ServerConfig{Command: "x"}); !errors.Is(err, errFull) {
		t.Fatalf("save on a full disk: %v; want the space check's error", err)
	}
	if err := hub.AllowProjectServer(cwd, "proj"); !errors.Is(err, errFull) {
		t.Fatalf("allow on a full disk: %v; want the space check's error", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) || len(hub.Config().Servers) != 1 {
		t.Fatalf("a refused save changed the configuration: %s, %v", after, hub.Config().Servers)
	}
	if ps, err := hub.ProjectServers(cwd); err != nil || len(ps) != 1 || ps[0].Allowed {
		t.Fatalf("a refused allow was recorded: %+v, %v", ps, err)
	}

	full.Store(false)
	if err := hub.SetServer("two", ServerConfig{Command: "x"}); err != nil || len(hub.Config().Servers) != 2 {
		t.Fatalf("save once there is room: %v", err)
	}
	if err := hub.AllowProjectServer(cwd, "proj"); err != nil {
		t.Fatalf("allow once there is room: %v", err)
	}
}
