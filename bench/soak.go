package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/actors/rig"
)

// The soak of issue 43: memory over a long life with the app open. The rows drive the app's
// runtime headless, in this process (the same path the CLI beside an open app takes into
// it, without a window: the window's share is the idle rows' business): soakConversations
// conversations each take turns in rotation — a bash `true` call and a reply from the demo
// model — and the resident memory is read at the points of the table. A quick run
// (--quick) takes a tenth of the turns.

const (
	soakConversations = 10
	soakTurns         = 2000
	// soakEarly is the point the growth is measured from.
	soakEarly = 200
	// soakRestAfter is how long a conversation at rest stays in memory in this run (the app
	// keeps one ten minutes): the rest is waited for, not slept through.
	soakRestAfter = 2 * time.Second
)

// EnvSoakHeapProfiles names a directory the soaks write a heap profile into at each point
// (start, after the first turns, after all of them, after the rest): the headless soak its
// own process's as soak-POINT.pb.gz, the soak with a window the app's as window-POINT.pb.gz
// (EnvAppHeapProfile). `go tool pprof -top -sample_index=inuse_space -base` on two of them
// shows what held the difference.
const EnvSoakHeapProfiles = "PHOENIX_BENCH_HEAP_PROFILES"

func soakRows(ctx context.Context, o Options) ([]Row, error) {
	e, err := rig.Start(rig.Options{DemoServer: true, Runtime: func(c *actors.Config) {
		c.Passivation = actors.Passivation{IdleAfter: soakRestAfter, MaxResident: actors.DefaultPassivation.MaxResident}
	}})
	if err != nil {
		return nil, err
	}
	defer e.Close()
	turns, early := soakTurns, soakEarly
	if o.Quick {
		turns, early = soakTurns/10, soakEarly/10
	}
	var parts []string
	// rss is the resident memory once the runtime has given back what it can: a collection,
	// then the pages the heap no longer uses returned as the scavenger returns them over the
	// minutes an app stays open.
	rss := func(point string) (float64, error) {
		runtime.GC()
		debug.FreeOSMemory()
		if dir := os.Getenv(EnvSoakHeapProfiles); dir != "" {
			if err := writeHeapProfile(filepath.Join(dir, "soak-"+point+".pb.gz")); err != nil {
				return 0, err
			}
		}
		kib, err := statusField("VmRSS")
		anon, _ := statusField("RssAnon")
		file, _ := statusField("RssFile")
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		parts = append(parts, fmt.Sprintf("%s %.1f MiB (anonymous %.1f, files %.1f, live heap %.1f)", point,
			float64(kib)/1024, float64(anon)/1024, float64(file)/1024, float64(ms.HeapAlloc)/(1<<20)))
		return float64(kib) / 1024, err
	}
	start, err := rss("start")
	if err != nil {
		return nil, err
	}
	ids := make([]string, soakConversations)
	for i := range ids {
		c, err := e.Runtime.Create(ctx, actors.NewConversation{Cwd: e.Cwd, Title: fmt.Sprintf("soak %d", i)})
		if err != nil {
			return nil, err
		}
		ids[i] = c.ID
	}
	var atEarly float64
	for t := range turns {
		id := ids[t%len(ids)]
		if _, err := e.Turn(ctx, id, fmt.Sprintf("bash: true\n\nturn %d", t), 2*time.Minute); err != nil {
			return nil, fmt.Errorf("turn %d of conversation %s: %w", t, id, err)
		}
		if t+1 == early {
			if atEarly, err = rss(fmt.Sprintf("after-%d-turns", early)); err != nil {
				return nil, err
			}
		}
	}
	atEnd, err := rss(fmt.Sprintf("after-%d-turns", turns))
	if err != nil {
		return nil, err
	}
	// At rest: every conversation passivated, which the runtime reports.
	deadline := time.Now().Add(soakRestAfter + time.Minute)
	for {
		n, err := e.Runtime.Resident(ctx)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%d conversations still in memory %v after their last turn", n, soakRestAfter+time.Minute)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	atRest, err := rss("at-rest")
	if err != nil {
		return nil, err
	}
	what := fmt.Sprintf("%d conversations, %d turns in rotation (each a bash true call and a reply from the demo model) through the app's runtime in the bench's process, headless", soakConversations, turns)
	grow := summarise(fmt.Sprintf("soak: resident memory after %d turns − after %d", soakTurns, soakEarly), "MiB", 20, []float64{atEnd - atEarly})
	grow.Signed = true
	grow.Note = fmt.Sprintf("%s; VmRSS after a collection with the unused pages returned (as the scavenger does over minutes): %s", what, strings.Join(parts, ", "))
	rest := summarise("soak: resident memory at rest − at start", "MiB", 30, []float64{atRest - start})
	rest.Signed = true
	rest.Note = fmt.Sprintf("the same run once every conversation rested (passivated, here %v after its last turn)", soakRestAfter)
	return []Row{grow, rest}, nil
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write the heap profile: %w", err)
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		_ = f.Close()
		return fmt.Errorf("write the heap profile %s: %w", path, err)
	}
	return f.Close()
}
