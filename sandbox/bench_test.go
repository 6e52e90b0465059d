//go:build linux

package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkTrue compares `true` run by bash directly with the same through the supervisor
// (unrestricted) and through the supervisor plus the restrict stage. The target is
// at most 10 ms of overhead for the sandbox.
func BenchmarkTrue(b *testing.B) {
	b.Run("plain bash", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("bash", "-c", "true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	run := func(b *testing.B, p Policy) {
		for b.Loop() {
			cmd, err := Command(context.Background(), p, "true")
			if err != nil {
				b.Fatal(err)
			}
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("supervised", func(b *testing.B) { run(b, Policy{Unrestricted: true}) })
	b.Run("sandboxed", func(b *testing.B) {
		if !Probe().Available {
			b.Skip("Landlock unavailable")
		}
		run(b, Policy{TempDir: b.TempDir()})
	})
	pooled := func(b *testing.B, p Policy) {
		if _, err := Run(context.Background(), p, "true", RunOptions{}); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if code, err := Run(context.Background(), p, "true", RunOptions{}); err != nil || code != 0 {
				b.Fatal(code, err)
			}
		}
	}
	b.Run("long-lived supervisor, unrestricted", func(b *testing.B) { pooled(b, Policy{Unrestricted: true}) })
	b.Run("long-lived supervisor, sandboxed", func(b *testing.B) {
		if !Probe().Available {
			b.Skip("Landlock unavailable")
		}
		pooled(b, Policy{TempDir: b.TempDir()})
	})
}

// BenchmarkCancelToGroupGone measures from cancel to Wait returning with every process of
// `sleep 100 & sleep 100; wait` (and a setsid escapee) gone; p50 and p99 are reported, through
// Command ("supervised", "sandboxed") and through Run on a long-lived supervisor.
func BenchmarkCancelToGroupGone(b *testing.B) {
	for _, name := range []string{"supervised", "sandboxed", "long-lived supervised", "long-lived sandboxed"} {
		b.Run(name, func(b *testing.B) {
			longLived := strings.HasPrefix(name, "long-lived")
			p := Policy{TempDir: b.TempDir(), Unrestricted: strings.HasSuffix(name, "supervised")}
			if !p.Unrestricted && !Probe().Available {
				b.Skip("Landlock unavailable")
			}
			pidFile := filepath.Join(p.TempDir, "pids")
			var lat []time.Duration
			for b.Loop() {
				_ = os.Remove(pidFile)
				ctx, cancel := context.WithCancel(context.Background())
				script := `setsid sh -c 'echo $$ >> "$PIDS"; exec sleep 100' &
sleep 100 & echo $! >> "$PIDS"; echo $$ >> "$PIDS"; sleep 100; wait`
				env := append(os.Environ(), "PIDS="+pidFile)
				var wait func() error
				if longLived {
					done := make(chan error, 1)
					go func() {
						_, err := Run(ctx, p, script, RunOptions{Env: env})
						done <- err
					}()
					wait = func() error { return <-done }
				} else {
					cmd, err := Command(ctx, p, script)
					if err != nil {
						b.Fatal(err)
					}
					cmd.Env = env
					if err := cmd.Start(); err != nil {
						b.Fatal(err)
					}
					wait = cmd.Wait
				}
				var pids []int
				for len(pids) < 3 {
					data, _ := os.ReadFile(pidFile)
					pids = nil
					for _, f := range strings.Fields(string(data)) {
						n, _ := strconv.Atoi(f)
						pids = append(pids, n)
					}
				}
				pids = hostPIDs(b, pids)
				start := time.Now()
				cancel()
				_ = wait()
				lat = append(lat, time.Since(start))
				// bash's pid comes last; survivors also looks for its group.
				slices.Reverse(pids)
				if left := survivors(pids); len(left) > 0 {
					b.Fatalf("processes %v survived", left)
				}
			}
			slices.Sort(lat)
			q := func(f float64) float64 {
				return float64(lat[min(len(lat)-1, int(f*float64(len(lat))))].Microseconds()) / 1000
			}
			b.ReportMetric(q(0.50), "p50-ms")
			b.ReportMetric(q(0.99), "p99-ms")
		})
	}
}

// BenchmarkFindGitDirs measures the walk Project mode makes before and after each command to
// find the repositories in the tree (gitwall.go), in a tree of 2,000 directories (a small
// node_modules) holding one vendored repository.
func BenchmarkFindGitDirs(b *testing.B) {
	tree := b.TempDir()
	for i := range 2000 {
		dir := filepath.Join(tree, "node_modules", "p"+strconv.Itoa(i/20), "d"+strconv.Itoa(i%20))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "index.js"), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(tree, "vendor", "lib", ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	walk := func(b *testing.B) {
		for b.Loop() {
			if n := len(findGitDirs(tree)); n != 1 {
				b.Fatalf("found %d repositories; want 1", n)
			}
		}
	}
	// Every directory read, as for a tree changed just now; then the steady state of a tree
	// whose directories have not changed (a Project command's walks after the first), where
	// the kept listings hold.
	b.Run("read", walk)
	defer func(w time.Duration) { racyWindow = w }(racyWindow)
	racyWindow = 0
	findGitDirs(tree)
	b.Run("kept", walk)
}
