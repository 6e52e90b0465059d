package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/phoenix-desktop/phoenix/assets"
	"github.com/phoenix-desktop/phoenix/ui"
)

// windowBench is what every window row starts from: a temp folder of its own and an Xvfb
// display, so the look-up of the app and of Xvfb, their words, and the clean-up live in one
// place.
type windowBench struct {
	dir     string // the row's own temp folder, removed by close
	display string // the Xvfb display, ":N"
	stopX   func()
}

// startWindowBench checks that the bench has the app binary and Xvfb (why says what the row
// needs Xvfb for), makes the row's temp folder (its name holds name) and starts Xvfb on a
// display of its own. The caller defers close.
func startWindowBench(ctx context.Context, o Options, why, name string) (*windowBench, error) {
	if o.App == "" {
		return nil, errNoApp
	}
	xvfb, err := findXvfb(why)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "phoenix-bench-"+name+"-")
	if err != nil {
		return nil, err
	}
	display, stopX, err := startXvfb(ctx, xvfb)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &windowBench{dir: dir, display: display, stopX: stopX}, nil
}

// close stops Xvfb and removes the row's temp folder.
func (b *windowBench) close() {
	b.stopX()
	os.RemoveAll(b.dir)
}

// waitProcess waits for the started cmd on a goroutine of its own: the channel receives Wait's
// result once it exits (a caller that takes it to see the process end puts it back for
// stopGracefully).
func waitProcess(cmd *exec.Cmd) chan error {
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	return exited
}

// stopGracefully ends a process the bench started (exited is waitProcess's): SIGTERM first, so
// that the app closes its store as a person's quitting does, and SIGKILL if it has not exited
// 10 s later.
func stopGracefully(cmd *exec.Cmd, exited <-chan error) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
	}
}

// showLast makes the window of an app started with this home reopen conversation id, as the
// conversation it showed last (its Fyne preferences; the window focuses its composer).
func showLast(home, id string) error {
	prefs := filepath.Join(home, ".config", "fyne", assets.AppID, "preferences.json")
	if err := os.MkdirAll(filepath.Dir(prefs), 0o700); err != nil {
		return err
	}
	b, _ := json.Marshal(map[string]string{ui.PrefLastConversation: id})
	return os.WriteFile(prefs, b, 0o600)
}

// besideApp is the command line beside an open app: `chat` on its data directory, run in work
// with env, served by the app as a script's would be. It returns what the command printed.
func besideApp(ctx context.Context, app, data, work string, env []string) func(args ...string) (string, error) {
	return func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, app, append([]string{"chat", "--data-dir", data}, args...)...)
		cmd.Env, cmd.Dir = env, work
		out, err := cmd.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("chat %s: %v: %s", strings.Join(args, " "), err, lastLines(string(out)))
		}
		return string(out), nil
	}
}
