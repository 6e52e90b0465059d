package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
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
	for _, k := range []string{"PATH", "LANG", "LC_ALL", "TMPDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// runOnce starts the app with args in dir and returns its wall time and peak RSS (its
// VmHWM, from the kernel's accounting when it exits).
func runOnce(ctx context.Context, app, dir string, env []string, args ...string) (wall, rssMiB float64, err error) {
	cmd := exec.CommandContext(ctx, app, args...)
	cmd.Dir, cmd.Env = dir, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("%s %v: %w: %s", filepath.Base(app), args, err, lastLines(out.String()))
	}
	wall = ms(time.Since(start))
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, 0, errors.New("no resource usage for the app's process on this system")
	}
	return wall, float64(ru.Maxrss) / 1024, nil
}

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
	if o.App == "" {
		return nil, errNoApp
	}
	dir, err := os.MkdirTemp("", "phoenix-bench-cold-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	home, work := filepath.Join(dir, "home"), filepath.Join(dir, "work")
	for _, d := range []string{home, work} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	env := appEnv(home)
	var version, chat, diff, versionRSS, chatRSS []float64
	n := samplesOf(o, 20, 3)
	for i := -1; i < n; i++ { // the first pair only warms the page cache
		v, vr, err := runOnce(ctx, o.App, work, env, "--version")
		if err != nil {
			return nil, err
		}
		c, cr, err := runOnce(ctx, o.App, work, env, "chat", "--demo", "--data-dir", filepath.Join(dir, fmt.Sprintf("data-%d", i+1)), "hello")
		if err != nil {
			return nil, err
		}
		if i < 0 {
			continue
		}
		version, chat, diff = append(version, v), append(chat, c), append(diff, c-v)
		versionRSS, chatRSS = append(versionRSS, vr), append(chatRSS, cr)
	}
	r1 := summarise("phoenix-desktop --version (the binary's own start)", "ms", 0, version)
	r1.Note = "exec, dynamic loading, the Go runtime and every package's initialisation, one line printed"
	r2 := summarise(coldStartRowName+" (demo model, no tool)", "ms", 0, chat)
	r2.Note = "chat --demo hello in a new data directory and a private home: store, runtime, conversation, one streamed reply, shutdown"
	r3 := differenceRow(coldStartRowName+" − --version (paired difference)", 20, diff, "each sample: the chat minus the --version run just before it")
	r4 := summarise("peak RSS, --version", "MiB", 0, versionRSS)
	r5 := summarise("peak RSS, "+coldStartRowName, "MiB", 35, chatRSS)
	r5.Note = "VmHWM of the chat process; most of it is the binary's own pages, which the kernel maps in large folios when the file was written in large blocks, so the same binary reads several MiB higher after a fresh go build than after a copy in 4 KiB blocks (the --version row moves with it)"
	return []Row{r1, r2, r3, r4, r5}, nil
}
