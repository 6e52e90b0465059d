//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Issue 39: what go env answered is kept between runs of the app, so a new process (a
// headless chat) does not start go again for its first command; a go that changed, or one
// that changed just now, is asked again.
func TestGoEnvAnswerIsKeptBetweenRuns(t *testing.T) {
	bin := t.TempDir()
	count := filepath.Join(t.TempDir(), "count")
	fake := func(cache string) {
		t.Helper()
		script := "#!/bin/sh\necho x >> " + count + "\necho " + cache + "\necho /tmp/mod\n"
		if err := os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	runs := func() int {
		b, _ := os.ReadFile(count)
		return strings.Count(string(b), "x")
	}
	fake("/tmp/build-a")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("GOENV", filepath.Join(t.TempDir(), "env"))
	SetProbeFile(filepath.Join(t.TempDir(), "cache", "tool-probes.json"))
	later := time.Now().Add(time.Minute)
	probeNow = func() time.Time { return later }
	newProcess := func() {
		goCacheDirs.Lock()
		goCacheDirs.asked = ""
		goCacheDirs.Unlock()
	}
	t.Cleanup(func() { SetProbeFile(""); probeNow = time.Now; newProcess() })

	newProcess()
	if env := goEnvCaches(); env["GOCACHE"] != "/tmp/build-a" || runs() != 1 {
		t.Fatalf("first run: %v after %d go starts; want /tmp/build-a after 1", env, runs())
	}
	newProcess()
	if env := goEnvCaches(); env["GOCACHE"] != "/tmp/build-a" || env["GOMODCACHE"] != "/tmp/mod" || runs() != 1 {
		t.Fatalf("second run: %v after %d go starts; want the kept answer and no new start", env, runs())
	}

	// Another go: asked again; while it has just changed, its answer is not kept.
	fake("/tmp/build-b")
	probeNow = time.Now
	newProcess()
	if env := goEnvCaches(); env["GOCACHE"] != "/tmp/build-b" || runs() != 2 {
		t.Fatalf("after go changed: %v after %d go starts; want /tmp/build-b after 2", env, runs())
	}
	newProcess()
	if goEnvCaches(); runs() != 3 {
		t.Fatalf("a go changed just now was not asked again (%d starts)", runs())
	}
	// Settled: kept again.
	probeNow = func() time.Time { return later }
	newProcess()
	goEnvCaches()
	newProcess()
	if env := goEnvCaches(); env["GOCACHE"] != "/tmp/build-b" || runs() != 4 {
		t.Fatalf("settled go: %v after %d go starts; want /tmp/build-b after 4", env, runs())
	}
	// An answer older than a day is asked again.
	probeNow = func() time.Time { return later.Add(probeMaxAge + time.Minute) }
	newProcess()
	if goEnvCaches(); runs() != 5 {
		t.Fatalf("an answer older than %v was used (%d starts)", probeMaxAge, runs())
	}
}

// A file that is not the app's (garbage, or too large) is no answers, not a failure.
func TestProbeFileThatDoesNotDecodeIsNoAnswers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tool-probes.json")
	SetProbeFile(path)
	t.Cleanup(func() { SetProbeFile("") })
	now := time.Now()
	for _, body := range []string{"not json", strings.Repeat(" ", probeFileLimit+1)} {
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, ok := rememberedProbe("q", "k", now); ok {
			t.Fatalf("an answer from %.20q", body)
		}
	}
	rememberProbe("q", "k", "a", now)
	if a, ok := rememberedProbe("q", "k", now); !ok || a != "a" {
		t.Fatalf("kept %q, %v; want a", a, ok)
	}
	if _, ok := rememberedProbe("q", "other key", now); ok {
		t.Fatal("an answer given under another key")
	}
}
