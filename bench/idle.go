package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/assets"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/persistence"
)

// BareWindowArg is the hidden first argument that turns the app binary into the baseline of
// the idle rows: a bare Fyne window of the app's default size holding nothing but a focused
// multi-line entry, so that both windows run on the same Fyne, driver and display.
const BareWindowArg = "__phoenix_bench_bare_window"

// The app's default window size (ui/winpos.go), which the bare window takes too.
const idleWidth, idleHeight = 1180, 780

// MaybeRunBareWindow shows the bare window when this process was started as one, and never
// returns then; otherwise it returns at once. main (and TestMain of this package) call it.
func MaybeRunBareWindow() {
	if len(os.Args) < 2 || os.Args[1] != BareWindowArg {
		return
	}
	a := app.NewWithID(assets.AppID + ".bench.bare")
	w := a.NewWindow("Bare Fyne window")
	e := widget.NewMultiLineEntry()
	e.SetPlaceHolder("A bare Fyne window with a focused multi-line entry")
	w.SetContent(container.NewBorder(nil, e, nil, nil, widget.NewLabel("")))
	w.Resize(fyne.NewSize(idleWidth, idleHeight))
	w.Canvas().Focus(e)
	w.ShowAndRun()
	os.Exit(0)
}

const idleRowName = "idle window, 500-turn conversation, composer focused"

// idleSettle is how long a window runs before its CPU is counted: start-up, the conversation
// loaded and drawn, and the composer's cursor done blinking (10 s after the focus, as GTK's).
const idleSettle = 15 * time.Second

// idleRows measures the CPU a window uses while nobody touches it: the app with a 500-turn
// conversation open (the last one, reopened at start, which focuses the composer), and the
// bare window, one after the other, several times, each on its own Xvfb display. The row
// is the median of the pairs' ratios.
func idleRows(ctx context.Context, o Options) ([]Row, error) {
	wb, err := startWindowBench(ctx, o, "draw the windows off screen", "idle")
	if err != nil {
		return nil, err
	}
	defer wb.close()
	dir, display := wb.dir, wb.display
	data, home := filepath.Join(dir, "data"), filepath.Join(dir, "home")
	if err := writeIdleConversation(data); err != nil {
		return nil, err
	}
	// The window reopens the conversation it showed last (and focuses the composer).
	if err := showLast(home, idleConvID); err != nil {
		return nil, err
	}
	env := append(appEnv(home), "DISPLAY="+display)
	window := 15 * time.Second
	if o.Quick {
		window = 2 * time.Second
	}
	var appCPU, bareCPU, ratio []float64
	for range samplesOf(o, 3, 1) {
		a, err := idleCPU(ctx, o.App, env, window, "--demo", "--data-dir", data)
		if err != nil {
			return nil, fmt.Errorf("the app: %w", err)
		}
		bare, err := idleCPU(ctx, o.App, env, window, BareWindowArg)
		if err != nil {
			return nil, fmt.Errorf("the bare window: %w", err)
		}
		appCPU, bareCPU = append(appCPU, a), append(bareCPU, bare)
		if bare > 0 {
			ratio = append(ratio, a/bare)
		}
	}
	if len(ratio) == 0 {
		return nil, errors.New("the bare window used no CPU at all in any sample: the window is too short to tell")
	}
	note := fmt.Sprintf("CPU of the app's process (every thread, the software OpenGL's too) over %s, after %s at rest, as a share of one core, on Xvfb 1280×800", window, idleSettle)
	r1 := summarise(idleRowName, "% of a core", 0, appCPU)
	r1.Note = note
	r2 := summarise("bare Fyne window, focused multi-line entry", "% of a core", 0, bareCPU)
	r2.Note = fmt.Sprintf("the same measure of a window of the app's size (%d×%d) holding only a focused multi-line entry, the app binary started with %s", idleWidth, idleHeight, BareWindowArg)
	r3 := summarise(idleRowName+" ÷ bare window", "×", 1.2, ratio)
	r3.Note = "each sample: the app's share over the bare window's, measured one after the other"
	return []Row{r1, r2, r3}, nil
}

const idleConvID = "bench-idle-500"

// writeIdleConversation stores one conversation of 500 turns whose replies hold Markdown (bold,
// inline code, a Go code block), as the window draws them.
func writeIdleConversation(dir string) error {
	store, err := persistence.Open(dir, persistence.Options{Logger: quietLogger()})
	if err != nil {
		return err
	}
	defer store.Close()
	c, err := domain.NewConversation(domain.NewConversationParams{ID: idleConvID, Title: "Five hundred turns",
		Cwd: os.TempDir(), Model: domain.DemoModel, CreatedAt: time.Now()})
	if err != nil {
		return err
	}
	if c, err = store.Create(c); err != nil {
		return err
	}
	reply := "Rename it with **care**: `read_file_text` is used in three places.\n```go\nfunc readFileText(p string) (string, error) {\n\treturn \"\", nil\n}\n```\n" +
		strings.Repeat("Then run the tests again and read what fails. ", 6)
	for done := 0; done < 1000; done += 100 {
		batch := make([]domain.Message, 100)
		for j := range batch {
			seq := c.NextSeq + uint64(j)
			batch[j] = domain.Message{Seq: seq, Kind: domain.KindUser, Text: fmt.Sprintf("Question %d: how do I rename read_text_file in foo_bar.go?", seq/2+1)}
			if seq%2 == 1 {
				batch[j] = domain.Message{Seq: seq, Kind: domain.KindAssistant, Text: reply}
			}
		}
		c.NextSeq += 100
		if c, _, err = store.Commit(c, batch); err != nil {
			return err
		}
	}
	return nil
}

// startXvfb starts Xvfb on a display it picks itself (-displayfd writes the number once the
// server is ready) and returns it, and how to stop it.
func startXvfb(ctx context.Context, xvfb string) (string, func(), error) {
	r, w, err := os.Pipe()
	if err != nil {
		return "", nil, err
	}
	defer r.Close()
	cmd := exec.CommandContext(ctx, xvfb, "-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	err = cmd.Start()
	w.Close()
	if err != nil {
		return "", nil, fmt.Errorf("start Xvfb: %w", err)
	}
	stop := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		got <- strings.TrimSpace(line)
	}()
	select {
	case n := <-got:
		if n == "" {
			stop()
			return "", nil, errors.New("the X server Xvfb exited without opening a display")
		}
		return ":" + n, stop, nil
	case <-time.After(15 * time.Second):
		stop()
		return "", nil, errors.New("the X server Xvfb did not open a display within 15 s")
	}
}

// idleCPU starts a window, lets it come to rest for idleSettle, and returns the share of one
// core its process used over the next window.
func idleCPU(ctx context.Context, app string, env []string, window time.Duration, args ...string) (float64, error) {
	cmd := exec.CommandContext(ctx, app, args...)
	cmd.Env = env
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	exited := waitProcess(cmd)
	defer stopGracefully(cmd, exited)
	wait := func(d time.Duration) error {
		select {
		case err := <-exited:
			exited <- err
			return fmt.Errorf("it exited: %v: %s", err, lastLines(out.String()))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d):
			return nil
		}
	}
	if err := wait(idleSettle); err != nil {
		return 0, err
	}
	before, err := cpuTicks(cmd.Process.Pid)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	if err := wait(window); err != nil {
		return 0, err
	}
	after, err := cpuTicks(cmd.Process.Pid)
	if err != nil {
		return 0, err
	}
	// /proc counts in USER_HZ, 100 a second on Linux.
	seconds := float64(after-before) / 100
	return 100 * seconds / time.Since(start).Seconds(), nil
}

// cpuTicks is a process's user and system time, every thread, from /proc/PID/stat.
func cpuTicks(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name may hold spaces: the fields that follow start after its ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	// Fields 14 and 15 of the whole line (utime, stime) are 12 and 13 after the name.
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	return u + st, nil
}

// findXvfb finds the X server the window rows draw on; why says what they need it for.
func findXvfb(why string) (string, error) {
	xvfb, err := exec.LookPath("Xvfb")
	if err != nil {
		return "", errors.New("needs Xvfb (apt-get install xvfb) to " + why)
	}
	return xvfb, nil
}
