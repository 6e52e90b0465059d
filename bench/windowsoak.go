package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
)

// The soak of issue 43 as the issue ran it: the app's binary with its window on Xvfb (the
// offline demo model, no conversation open in the window), soakConversations conversations
// made and driven by the command line beside it (`chat --continue`, served by the open app:
// the same path a script takes), each turn a bash `true` call and a reply. The app's
// resident memory (/proc/PID/status, as it is: no collection forced) is read once its window
// is up and settled, after the first soakEarly turns, after all of them, and once every
// conversation rested (the app unloads one windowSoakRestAfter after its last turn here,
// through actors.EnvPassivateAfter, instead of 10 minutes). Then its idle CPU over
// windowSoakIdle, beside a bare Fyne window's started after it on the same display. A quick
// run (--quick) takes a tenth of the turns and shorter windows.

const windowSoakRowName = "soak with a window"

const (
	// windowSoakRestAfter is the app's passivation time in this run.
	windowSoakRestAfter = 3 * time.Second
	// windowSoakRest is how long the bench waits after the last turn before it reads the
	// memory at rest: the conversations' rest and the passivation check that follows it
	// (a quarter of windowSoakRestAfter), the collection the Go runtime forces every 2
	// minutes on a process that allocates nothing, and its background scavenger returning
	// the pages freed, as it does over the minutes an app stays open.
	windowSoakRest = 150 * time.Second
	// windowSoakIdle is how long each window's CPU is counted (after idleSettle for the
	// bare window, which has just started).
	windowSoakIdle = 20 * time.Second
)

var convLineRE = regexp.MustCompile(`Conversation (\S+) in `)

// windowSoakSpread is how many turns before each point the soak reads VmRSS after, for the
// note's least, median and most.
const windowSoakSpread = 20

// spreadOf is "least–median–most MiB" of the readings.
func spreadOf(v []float64) string {
	if len(v) == 0 {
		return "(none)"
	}
	s := slices.Sorted(slices.Values(v))
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return fmt.Sprintf("%.1f–%.1f–%.1f MiB", s[0], med, s[len(s)-1])
}

func windowSoakRows(ctx context.Context, o Options) ([]Row, error) {
	wb, err := startWindowBench(ctx, o, "run the app's window through the soak", "windowsoak")
	if err != nil {
		return nil, err
	}
	defer wb.close()
	dir, display := wb.dir, wb.display
	data, home, work := filepath.Join(dir, "data"), filepath.Join(dir, "home"), filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o700); err != nil {
		return nil, err
	}
	turns, early, rest, idle := soakTurns, soakEarly, windowSoakRest, windowSoakIdle
	if o.Quick {
		turns, early, idle = soakTurns/10, soakEarly/10, 5*time.Second
	}
	w, err := watchMaps(display)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	env := append(appEnv(home), "DISPLAY="+display)
	app := exec.CommandContext(ctx, o.App, "--demo", "--data-dir", data)
	app.Env = append(env, actors.EnvPassivateAfter+"="+windowSoakRestAfter.String())
	profiles := os.Getenv(EnvSoakHeapProfiles)
	if profiles != "" {
		app.Env = append(app.Env, EnvAppHeapProfile+"="+filepath.Join(profiles, "window"))
		// GODEBUG (gctrace=1, scavtrace=1) passes through with the profiles, and the app's
		// output is kept beside them: where the collector's cycle and the scavenger stood at
		// each reading.
		if v, ok := os.LookupEnv("GODEBUG"); ok {
			app.Env = append(app.Env, "GODEBUG="+v)
		}
	}
	app.Dir = work
	var appOut bytes.Buffer
	app.Stdout, app.Stderr = &appOut, &appOut
	if err := app.Start(); err != nil {
		return nil, fmt.Errorf("start the app: %w", err)
	}
	exited := waitProcess(app)
	defer stopGracefully(app, exited)
	if profiles != "" {
		defer func() { _ = os.WriteFile(filepath.Join(profiles, "window-output.txt"), appOut.Bytes(), 0o600) }()
	}
	wait := func(d time.Duration) error {
		select {
		case err := <-exited:
			exited <- err
			return fmt.Errorf("the app exited: %v: %s", err, lastLines(appOut.String()))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d):
			return nil
		}
	}
	if _, err := w.next(60 * time.Second); err != nil {
		return nil, fmt.Errorf("the app's window: %w: %s", err, lastLines(appOut.String()))
	}
	if err := wait(idleSettle); err != nil {
		return nil, err
	}
	pid := app.Process.Pid
	var parts []string
	rss := func(point string) (float64, error) {
		st, err := procStatus(pid, "VmRSS", "RssAnon", "RssFile")
		if err != nil {
			return 0, err
		}
		sm, err := readSmaps(pid)
		if err != nil {
			return 0, err
		}
		ro, err := smapsRollup(pid)
		if err != nil {
			return 0, err
		}
		parts = append(parts, fmt.Sprintf("%s %.1f MiB (anonymous %.1f, files %.1f; %s; %s)", point,
			float64(st["VmRSS"])/1024, float64(st["RssAnon"])/1024, float64(st["RssFile"])/1024, sm, ro))
		if profiles != "" {
			// After the reading, so that writing the profile is not in it.
			if err := appHeapProfile(pid, filepath.Join(profiles, "window"), len(parts), filepath.Join(profiles, "window-"+point+".pb.gz")); err != nil {
				return 0, err
			}
		}
		return float64(st["VmRSS"]) / 1024, nil
	}
	start, err := rss("start")
	if err != nil {
		return nil, err
	}
	// The command line beside the app: served by it, as a script's would be.
	chat := besideApp(ctx, o.App, data, work, env)
	// The app's CPU over the turns, so that a change that trades memory for collections
	// (GOGC) shows what it costs while turns run.
	ticksBefore, err := cpuTicks(pid)
	if err != nil {
		return nil, err
	}
	ids := make([]string, soakConversations)
	for i := range ids {
		out, err := chat("--cwd", work, fmt.Sprintf("bash: true\n\nconversation %d", i))
		if err != nil {
			return nil, err
		}
		m := convLineRE.FindStringSubmatch(out)
		if m == nil {
			return nil, fmt.Errorf("chat printed no conversation id: %s", lastLines(out))
		}
		ids[i] = m[1]
	}
	var atEarly float64
	// The resident memory after each of the windowSoakSpread turns before each point: the
	// note gives their least, median and most beside the reading, which falls anywhere in
	// the collector's cycle (the Go heap swings between what is live and 1.5 × that, GOGC
	// 50), so that a difference between two readings can be told from that swing.
	var spread []float64
	var spreads []string
	for t := len(ids); t < turns; t++ {
		if _, err := chat("--continue", ids[t%len(ids)], fmt.Sprintf("bash: true\n\nturn %d", t)); err != nil {
			return nil, fmt.Errorf("turn %d: %w", t, err)
		}
		if t+1 > turns-windowSoakSpread || (t+1 > early-windowSoakSpread && t+1 <= early) {
			st, err := procStatus(pid, "VmRSS")
			if err != nil {
				return nil, err
			}
			spread = append(spread, float64(st["VmRSS"])/1024)
		}
		if t+1 == early || t+1 == turns {
			spreads = append(spreads, fmt.Sprintf("after the %d turns up to %d %s", len(spread), t+1, spreadOf(spread)))
			spread = spread[:0]
		}
		if t+1 == early {
			if atEarly, err = rss(fmt.Sprintf("after-%d-turns", early)); err != nil {
				return nil, err
			}
		}
	}
	ticksAfter, err := cpuTicks(pid)
	if err != nil {
		return nil, err
	}
	atEnd, err := rss(fmt.Sprintf("after-%d-turns", turns))
	if err != nil {
		return nil, err
	}
	if err := wait(rest); err != nil {
		return nil, err
	}
	atRest, err := rss("at-rest")
	if err != nil {
		return nil, err
	}
	appCPU, err := idleShare(pid, idle, wait)
	if err != nil {
		return nil, err
	}
	bareCPU, err := idleCPU(ctx, o.App, env, idle, BareWindowArg)
	if err != nil {
		return nil, fmt.Errorf("the bare window: %w", err)
	}
	if bareCPU <= 0 {
		return nil, errors.New("the bare window used no CPU at all: the window is too short to tell")
	}
	// /proc counts in USER_HZ, 100 a second on Linux.
	turnCPU := float64(ticksAfter-ticksBefore) * 10 / float64(turns)
	what := fmt.Sprintf("the app's window on Xvfb (offline demo model, no conversation open), %d conversations, %d turns in rotation (each a bash true call and a reply) sent by the command line beside it (chat --continue, served by the app; the app's CPU %.1f ms a turn); VmRSS of the app's process as it is: %s; VmRSS %s",
		soakConversations, turns, turnCPU, strings.Join(parts, ", "), strings.Join(spreads, ", "))
	grow := summarise(fmt.Sprintf("%s: resident memory after %d turns − after %d", windowSoakRowName, soakTurns, soakEarly), "MiB", 20, []float64{atEnd - atEarly})
	grow.Signed = true
	grow.Note = what
	restRow := summarise(windowSoakRowName+": resident memory at rest − at start", "MiB", 30, []float64{atRest - start})
	restRow.Signed = true
	restRow.Note = fmt.Sprintf("the same run %v after the last turn (conversations unloaded %v after their last turn: %s)", rest, windowSoakRestAfter, actors.EnvPassivateAfter)
	cpu := summarise(windowSoakRowName+": idle CPU afterwards ÷ a bare window's", "×", 1.2, []float64{appCPU / bareCPU})
	cpu.Note = fmt.Sprintf("the app's CPU over %v after the rest, %.2f%% of a core, over a bare Fyne window's on the same display (%.2f%%, after %v to settle)", idle, appCPU, bareCPU, idleSettle)
	return []Row{grow, restRow, cpu}, nil
}

// EnvAppHeapProfile names a file the app writes a heap profile to at each SIGUSR2 (FILE.1,
// FILE.2, …; cmd/phoenix-desktop reads it): the window soak sets it when
// EnvSoakHeapProfiles names a directory, and keeps each point's as window-POINT.pb.gz there.
const EnvAppHeapProfile = "PHOENIX_HEAP_PROFILE"

// appHeapProfile asks the app (pid, started with EnvAppHeapProfile=base) for its n-th heap
// profile and moves it to dst once written.
func appHeapProfile(pid int, base string, n int, dst string) error {
	src := fmt.Sprintf("%s.%d", base, n)
	if err := syscall.Kill(pid, syscall.SIGUSR2); err != nil {
		return fmt.Errorf("ask the app for a heap profile: %w", err)
	}
	// The app writes it in a few milliseconds; its size stops changing once it is closed.
	deadline := time.Now().Add(30 * time.Second)
	last := int64(-1)
	for tick := time.NewTicker(200 * time.Millisecond); ; <-tick.C {
		if fi, err := os.Stat(src); err == nil && fi.Size() > 0 && fi.Size() == last {
			tick.Stop()
			return os.Rename(src, dst)
		} else if err == nil {
			last = fi.Size()
		}
		if time.Now().After(deadline) {
			tick.Stop()
			return fmt.Errorf("the app wrote no heap profile %s in 30 s (is it a build with %s?)", src, EnvAppHeapProfile)
		}
	}
}

// idleShare is the share of one core the process pid uses over d; wait waits d unless the
// process ends.
func idleShare(pid int, d time.Duration, wait func(time.Duration) error) (float64, error) {
	before, err := cpuTicks(pid)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	if err := wait(d); err != nil {
		return 0, err
	}
	after, err := cpuTicks(pid)
	if err != nil {
		return 0, err
	}
	// /proc counts in USER_HZ, 100 a second on Linux.
	return 100 * float64(after-before) / 100 / time.Since(start).Seconds(), nil
}

// procStatus reads the named kB fields of /proc/PID/status.
func procStatus(pid int, names ...string) (map[string]int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, fmt.Errorf("read the app's memory: %w", err)
	}
	defer f.Close()
	out := map[string]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		for _, n := range names {
			if rest, ok := strings.CutPrefix(sc.Text(), n+":"); ok {
				v, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
				if err != nil {
					return nil, fmt.Errorf("read %s of /proc/%d/status: %w", n, pid, err)
				}
				out[n] = v
			}
		}
	}
	for _, n := range names {
		if _, ok := out[n]; !ok {
			return nil, fmt.Errorf("no %s in /proc/%d/status", n, pid)
		}
	}
	return out, sc.Err()
}
