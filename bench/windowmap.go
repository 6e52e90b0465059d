package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

const windowMapRowName = "exec → window mapped"

// windowMapRows (issue 36) times exec → the window mapped on the X server, for the app (the
// offline demo model, on a data directory it opened before) and for a bare Fyne window (the
// bench/barewindow program, built now with the go tool: nothing of the app linked in), one
// after the other on the same Xvfb, and their difference. A MapNotify heard on the root window
// marks the moment (x11map.go). The first pair only warms the page cache and the data
// directory.
func windowMapRows(ctx context.Context, o Options) ([]Row, error) {
	wb, err := startWindowBench(ctx, o, "map the windows off screen", "map")
	if err != nil {
		return nil, err
	}
	defer wb.close()
	dir, display := wb.dir, wb.display
	bare := filepath.Join(dir, "barewindow")
	build := exec.CommandContext(ctx, "go", "build", "-o", bare, "github.com/phoenix-desktop/phoenix/bench/barewindow")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build the bare window (needs the go tool and this source tree; run the bench from it): %v: %s", err, lastLines(string(out)))
	}
	w, err := watchMaps(display)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, err
	}
	env := append(appEnv(home), "DISPLAY="+display)
	data := filepath.Join(dir, "data")
	var appMs, bareMs, diff []float64
	n := samplesOf(o, 10, 2)
	for i := -1; i < n; i++ {
		a, err := mapTime(ctx, w, o.App, home, env, "--demo", "--data-dir", data)
		if err != nil {
			return nil, fmt.Errorf("the app: %w", err)
		}
		b, err := mapTime(ctx, w, bare, home, env)
		if err != nil {
			return nil, fmt.Errorf("the bare window: %w", err)
		}
		if i < 0 {
			continue
		}
		appMs, bareMs, diff = append(appMs, a), append(bareMs, b), append(diff, a-b)
	}
	r1 := summarise(windowMapRowName+", the app", "ms", 0, appMs)
	r1.Note = "exec → MapNotify of its window on Xvfb 1280×800: the offline demo model on a data directory opened before"
	r2 := summarise(windowMapRowName+", a bare Fyne window", "ms", 0, bareMs)
	r2.Note = "the same for bench/barewindow (Fyne only: one focused multi-line entry at the app's size), built in this run"
	r3 := summarise(windowMapRowName+", the app − the bare window", "ms", 30, diff)
	r3.Signed = true
	r3.Note = "each sample: the app's time less the bare window's, measured one after the other"
	return []Row{r1, r2, r3}, nil
}

// mapTime starts bin in dir and returns the milliseconds until a window is mapped, then
// ends it (stopGracefully).
//
// dir is the home folder, where a desktop launcher starts an app, not the bench's own
// folder: both binaries are built under the temporary folder, where Fyne takes them for a
// `go run` and reads FyneApp.toml from the working folder, and in this source tree that
// file names the 512×512 icon, which each then decoded and scaled on its main thread before
// the map (some 20 ms of CPU each; an installed app looks beside its binary and finds none).
func mapTime(ctx context.Context, w *mapWatcher, bin, dir string, env []string, args ...string) (float64, error) {
	w.drain()
	cmd := launched(ctx, bin, dir, env, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	at, err := w.next(30 * time.Second)
	stopGracefully(cmd, waitProcess(cmd))
	if err != nil {
		return 0, fmt.Errorf("%w: %s", err, lastLines(out.String()))
	}
	return float64(at.Sub(start).Microseconds()) / 1000, nil
}

// launched is bin with args as a desktop launcher starts it: in dir (the home folder), with env.
func launched(ctx context.Context, bin, dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	return cmd
}
