package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"
)

// coldStartRowName heads the cold-start rows (issue 28): a headless one-turn chat as a script
// runs it, beside the binary's own start.
const coldStartRowName = "one-turn chat from cold"

// errNoApp says the rows that start the app binary were not given one.
var errNoApp = errors.New("needs the app binary (Options.App; phoenix-desktop bench passes itself)")

// appEnv is a private home for the app started by a row: no settings, keys, MCP servers,
// instructions or Fyne preferences of the person's are read or changed.
func appEnv(home string) []string {
	env := []string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
	}
	// GOGC and GOMEMLIMIT pass through so that a run can measure the app under another
	// collector setting (the soak with a window: docs/ARCHITECTURE.md, "Memory over a long
	// life").
	for _, k := range []string{"PATH", "LANG", "LC_ALL", "TMPDIR", "GOGC", "GOMEMLIMIT"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// runOnce starts the app with args in dir and returns its wall time and peak RSS (the VmHWM
// it writes as it exits; see EnvPeakRSSFile).
func runOnce(ctx context.Context, app, dir string, env []string, args ...string) (wall, rssMiB float64, err error) {
	r, err := runMeasured(ctx, app, dir, env, args...)
	return r.wall, r.rssMiB, err
}

// appRun is what one start of the app measured.
type appRun struct {
	// wall is from the start to the exit; cpu the process's user and system time (the
	// kernel's account, rusage), which a busy machine leaves almost alone where it stretches
	// the wall time: what tells a change apart on a shared machine (issue 39).
	wall, cpu, rssMiB float64
}

// runMeasured starts the app with args in dir and returns its wall time, CPU time and peak
// RSS (the VmHWM it writes as it exits; see EnvPeakRSSFile).
func runMeasured(ctx context.Context, app, dir string, env []string, args ...string) (appRun, error) {
	peak := filepath.Join(dir, ".peak-rss")
	_ = os.Remove(peak)
	cmd := exec.CommandContext(ctx, app, args...)
	cmd.Dir, cmd.Env = dir, append(slices.Clip(env), EnvPeakRSSFile+"="+peak)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return appRun{}, fmt.Errorf("%s %v: %w: %s", filepath.Base(app), args, err, lastLines(out.String()))
	}
	r := appRun{wall: ms(time.Since(start)), cpu: ms(cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime())}
	var err error
	if r.rssMiB, err = readPeakRSS(peak); err != nil {
		return appRun{}, fmt.Errorf("%s %v: %w", filepath.Base(app), args, err)
	}
	return r, nil
}

// installedCopy copies the app binary into dir the way cp, dpkg or an installer writes it, and
// returns the copy's path. The rows start the copy, not the binary itself, because a binary
// fresh from `go build` (the linker writes it through a memory map) sits in the page cache in
// 2 MiB folios, which the kernel maps whole when the program touches any byte of one: the
// same program then peaks some 12 MiB higher than after a cp, or after a restart when it is
// read from disk (measured on Linux 6.18: --version 49 MiB fresh from the linker, 37 MiB as
// a cp, 37 MiB read back from disk). People run an installed binary.
func installedCopy(app, dir string) (string, error) {
	src, err := os.Open(app)
	if err != nil {
		return "", fmt.Errorf("open the app binary: %w", err)
	}
	defer src.Close()
	dst := filepath.Join(dir, "phoenix-desktop")
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return "", fmt.Errorf("copy the app binary: %w", err)
	}
	// Plain 64 KiB writes, as cp and dpkg make: the wrapper hides the file's ReadFrom, which
	// would hand the copy to the kernel (copy_file_range), whose folio sizes are its own.
	if _, err := io.CopyBuffer(struct{ io.Writer }{out}, src, make([]byte, 64<<10)); err != nil {
		out.Close()
		return "", fmt.Errorf("copy the app binary: %w", err)
	}
	if err := out.Close(); err != nil {
		return "", fmt.Errorf("copy the app binary: %w", err)
	}
	return dst, nil
}

// appPlace is where a row runs the app binary: a temporary directory with a private home
// (appEnv), a working directory, and an installed copy of the binary.
type appPlace struct {
	dir, app, work string
	env            []string
}

func newAppPlace(o Options, prefix string) (*appPlace, error) {
	if o.App == "" {
		return nil, errNoApp
	}
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, err
	}
	p := &appPlace{dir: dir, work: filepath.Join(dir, "work"), env: appEnv(filepath.Join(dir, "home"))}
	for _, d := range []string{filepath.Join(dir, "home"), p.work} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			p.remove()
			return nil, err
		}
	}
	if p.app, err = installedCopy(o.App, dir); err != nil {
		p.remove()
		return nil, err
	}
	return p, nil
}

func (p *appPlace) remove() { _ = os.RemoveAll(p.dir) }

func lastLines(s string) string {
	if len(s) > 400 {
		s = "…" + s[len(s)-400:]
	}
	return s
}

// coldStartRows pairs each one-turn chat (a new data directory each time, the offline demo
// model, a prompt that runs no tool) with `--version` just before it, so that load changes hit
// both alike; the difference is what the chat waits for beyond the binary's own start
// (loading it, its package initialisation, the runtime's).
func coldStartRows(ctx context.Context, o Options) ([]Row, error) {
	p, err := newAppPlace(o, "phoenix-bench-cold-")
	if err != nil {
		return nil, err
	}
	defer p.remove()
	dir, app, work, env := p.dir, p.app, p.work, p.env
	var version, chat, diff, versionRSS, chatRSS, again, againDiff, versionCPU, chatCPU, cpuDiff []float64
	n := samplesOf(o, 20, 3)
	// The data directory most chats open: one that exists, where the first pair made it.
	kept := filepath.Join(dir, "data-kept")
	for i := -1; i < n; i++ { // the first round only warms the page cache
		vrun, err := runMeasured(ctx, app, work, env, "--version")
		if err != nil {
			return nil, err
		}
		crun, err := runMeasured(ctx, app, work, env, "chat", "--demo", "--data-dir", filepath.Join(dir, fmt.Sprintf("data-%d", i+1)), "hello")
		if err != nil {
			return nil, err
		}
		v, vr, c, cr := vrun.wall, vrun.rssMiB, crun.wall, crun.rssMiB
		a, _, err := runOnce(ctx, app, work, env, "chat", "--demo", "--data-dir", kept, "hello")
		if err != nil {
			return nil, err
		}
		if i < 0 {
			continue
		}
		version, chat, diff = append(version, v), append(chat, c), append(diff, c-v)
		versionRSS, chatRSS = append(versionRSS, vr), append(chatRSS, cr)
		again, againDiff = append(again, a), append(againDiff, a-v)
		versionCPU, chatCPU, cpuDiff = append(versionCPU, vrun.cpu), append(chatCPU, crun.cpu), append(cpuDiff, crun.cpu-vrun.cpu)
	}
	r1 := summarise("phoenix-desktop --version (the binary's own start)", "ms", 0, version)
	r1.Note = "exec, dynamic loading, the Go runtime and every package's initialisation, one line printed"
	r2 := summarise(coldStartRowName+" (demo model, no tool)", "ms", 0, chat)
	r2.Note = "chat --demo hello in a new data directory and a private home: store, runtime, conversation, one streamed reply, shutdown"
	// Issue 39's targets (issue 28's were 20 ms and 35 MiB).
	r3 := differenceRow(coldStartRowName+" − --version (paired difference)", 10, diff, "each sample: the chat minus the --version run just before it")
	r4 := summarise("peak RSS, --version", "MiB", 0, versionRSS)
	r5 := summarise("peak RSS, "+coldStartRowName, "MiB", 25, chatRSS)
	r5.Note = "VmHWM of the chat process (the kernel's, written by the app as it exits: EnvPeakRSSFile), a copy of the binary as an install leaves it (see installedCopy); most of it is the binary's own pages"
	// The same chat in a data directory that exists (no target: issue 39's is the new
	// directory's): what creating the store costs is the difference between the two.
	r6 := summarise(coldStartRowName+", existing data directory", "ms", 0, again)
	r6.Note = "chat --demo hello in the data directory the earlier samples of this row wrote (one more conversation each)"
	r7 := differenceRow(coldStartRowName+", existing data directory − --version (paired difference)", 0, againDiff, "each sample: the chat minus the --version run before the new directory's chat")
	// CPU time beside the wall time (no target: issue 39's are the wall's): on a busy machine
	// the wall time of a 30 ms process is mostly waiting for a core, its CPU time is not.
	r8 := summarise("CPU time, --version", "ms", 0, versionCPU)
	r8.Note = "user + system time of the process (rusage), threads summed"
	r9 := summarise("CPU time, "+coldStartRowName, "ms", 0, chatCPU)
	r9.Note = "user + system time of the new data directory's chat (rusage), threads summed: more than its wall time when its threads ran on two cores at once"
	r10 := differenceRow("CPU time, "+coldStartRowName+" − --version (paired difference)", 0, cpuDiff, "each sample: the chat's CPU time minus that of the --version run just before it")
	return []Row{r1, r2, r3, r4, r5, r6, r7, r8, r9, r10}, nil
}
