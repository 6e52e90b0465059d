package main

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestHeapProfileOnSignal: with PHOENIX_HEAP_PROFILE set, each SIGUSR2 writes the next heap
// profile (FILE.1, FILE.2), gzipped as go tool pprof reads it; the window soak takes one at
// each of its points this way (issue 43). Without the variable nothing listens.
func TestHeapProfileOnSignal(t *testing.T) {
	base := filepath.Join(t.TempDir(), "heap")
	t.Setenv(EnvHeapProfile, base)
	var stderr bytes.Buffer
	stop := startHeapProfiles(&stderr)
	defer stop()
	for n, name := range []string{base + ".1", base + ".2"} {
		if err := syscall.Kill(os.Getpid(), syscall.SIGUSR2); err != nil {
			t.Fatal(err)
		}
		if !waitForFile(t, name) {
			t.Fatalf("signal %d wrote no heap profile %s: %s", n+1, name, stderr.String())
		}
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
			t.Fatalf("%s is not a gzipped profile: % x", name, b[:min(len(b), 8)])
		}
	}
}

// waitForFile waits, up to 10 s, until name exists with something in it and a complete
// gzip stream (its size unchanged over a tick).
func waitForFile(t *testing.T, name string) bool {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	last := int64(-1)
	for {
		select {
		case <-deadline:
			return false
		case <-tick.C:
			fi, err := os.Stat(name)
			if err != nil {
				continue
			}
			if fi.Size() > 0 && fi.Size() == last {
				return true
			}
			last = fi.Size()
		}
	}
}
