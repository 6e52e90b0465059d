package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"

	uireview "github.com/phoenix-desktop/phoenix/ui/review"
)

// The Changes view timed as the person sees it (issue 34): from the action (a new view of
// the changes put in the window, or a scroll of three lines) to the X server's DAMAGE on
// the window, the moment its frame reached the screen, heard by a separate X client
// (x11damage.go) — no readback of pixels, which Canvas.Capture adds and which cost the
// same for the baseline as for the large change. The window's process does an action when
// the bench asks (a line on its stdin) and answers with the action's wall-clock time; the
// bench takes the first damage after it, then waits for the window to come to rest (the
// highlighter colours the rows a little later) before the next action.

// changesAction is one step of the measuring window's script.
type changesAction struct {
	kind  string // "first": a new view, timed; "setup": a new view, not timed; "scroll"
	large bool
	step  int // the scroll's number, from 1
}

// changesScript is what the window does, in order: paints first paints of each change,
// alternating, then steps scrolls down each.
func changesScript(paints, steps int) []changesAction {
	var s []changesAction
	for range paints {
		s = append(s, changesAction{kind: "first", large: true}, changesAction{kind: "first", large: false})
	}
	for _, large := range []bool{true, false} {
		s = append(s, changesAction{kind: "setup", large: large})
		for i := 1; i <= steps; i++ {
			s = append(s, changesAction{kind: "scroll", large: large, step: i})
		}
	}
	return s
}

// changesDamageCounts are the script's sizes, full and quick.
func changesDamageCounts(quick bool) (paints, steps int) {
	if quick {
		return 2, 5
	}
	return 5, 30
}

// runChangesDamageWindow is the window's side: each line on stdin does the next action of
// the script, and its wall-clock time (Unix nanoseconds) is printed.
func runChangesDamageWindow(w fyne.Window, script []changesAction) {
	large, small := SampleChanges(200, 100), SampleChanges(1, 100)
	var v *uireview.View
	in := bufio.NewScanner(os.Stdin)
	for _, a := range script {
		if !in.Scan() {
			return
		}
		ch := small
		if a.large {
			ch = large
		}
		at := time.Now()
		switch a.kind {
		case "first", "setup":
			fyne.DoAndWait(func() {
				// Without the highlighter's colours, which arrive from their own goroutine
				// a little later and would draw a frame of their own into the next
				// action's time: every row shows as it first does, in plain text.
				v = uireview.NewView(uireview.Options{Do: func(func()) {}})
				w.SetContent(v)
				v.SetChanges(ch)
			})
		case "scroll":
			fyne.DoAndWait(func() {
				// Down three lines at a time; the short diff goes back up when its end is
				// near, so that every step moves the rows.
				v.ScrollToRow((a.step * 3) % max(v.Rows()-60, 1))
			})
		}
		fmt.Printf("%d\n", at.UnixNano())
	}
	// The last action's frame is drawn after its time is printed: stay until the bench
	// has seen it and closes stdin.
	for in.Scan() {
	}
}

// damageSamples are the damage-timed samples, in milliseconds.
type damageSamples struct {
	FirstLarge, FirstSmall, ScrollLarge, ScrollSmall []float64
}

// measureChangesDamage runs the window of app on display, drives its script and times each
// action to the first damage after it.
func measureChangesDamage(ctx context.Context, app, display, home string, quick bool) (damageSamples, error) {
	var s damageSamples
	dw, err := watchDamage(display)
	if err != nil {
		return s, err
	}
	defer dw.Close()
	args := []string{ChangesWindowArg, "damage"}
	if quick {
		args = append(args, "quick")
	}
	cmd := exec.CommandContext(ctx, app, args...)
	cmd.Env = append(appEnv(home), "DISPLAY="+display)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return s, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return s, err
	}
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		return s, fmt.Errorf("start the measuring window: %w", err)
	}
	defer func() {
		stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	fail := func(err error) (damageSamples, error) {
		return s, fmt.Errorf("%w: %s", err, lastLines(errb.String()))
	}
	if _, err := dw.nextWindow(time.Minute); err != nil {
		return fail(err)
	}
	// The window's own first frames, before any view.
	if _, _, err := dw.settle(300*time.Millisecond, 30*time.Second); err != nil {
		return fail(err)
	}
	out := bufio.NewReader(stdout)
	for _, a := range changesScript(changesDamageCounts(quick)) {
		if _, err := io.WriteString(stdin, "next\n"); err != nil {
			return fail(fmt.Errorf("ask the window for its next action: %w", err))
		}
		line, err := out.ReadString('\n')
		if err != nil {
			return fail(fmt.Errorf("the window did not say when it acted: %w", err))
		}
		n, err := strconv.ParseInt(strings.TrimSpace(line), 10, 64)
		if err != nil {
			return fail(fmt.Errorf("the window said %q, not a time", line))
		}
		at := time.Unix(0, n)
		first, err := firstDamageAfter(dw, at, 10*time.Second)
		if err != nil {
			return fail(fmt.Errorf("%s of the %s change: %w", a.kind, map[bool]string{true: "large", false: "small"}[a.large], err))
		}
		if err := restAfter(dw, 200*time.Millisecond, 30*time.Second); err != nil {
			return fail(err)
		}
		d := ms(first.Sub(at))
		switch {
		case a.kind == "first" && a.large:
			s.FirstLarge = append(s.FirstLarge, d)
		case a.kind == "first":
			s.FirstSmall = append(s.FirstSmall, d)
		case a.kind == "scroll" && a.large:
			s.ScrollLarge = append(s.ScrollLarge, d)
		case a.kind == "scroll":
			s.ScrollSmall = append(s.ScrollSmall, d)
		}
	}
	return s, nil
}

// firstDamageAfter is when the watched window first drew after at (damage heard before at
// belongs to an earlier frame and is skipped).
func firstDamageAfter(dw *damageWatcher, at time.Time, limit time.Duration) (time.Time, error) {
	end := time.NewTimer(limit)
	defer end.Stop()
	for {
		select {
		case t := <-dw.damages:
			if !t.Before(at) {
				return t, nil
			}
		case err := <-dw.errs:
			return time.Time{}, fmt.Errorf("the X connection ended: %w", err)
		case <-end.C:
			return time.Time{}, fmt.Errorf("the window drew nothing within %s", limit)
		}
	}
}

// restAfter waits until the window has drawn nothing for quiet (at most limit in all).
func restAfter(dw *damageWatcher, quiet, limit time.Duration) error {
	end := time.NewTimer(limit)
	defer end.Stop()
	for {
		q := time.NewTimer(quiet)
		select {
		case <-dw.damages:
			q.Stop()
		case <-q.C:
			return nil
		case err := <-dw.errs:
			q.Stop()
			return fmt.Errorf("the X connection ended: %w", err)
		case <-end.C:
			q.Stop()
			return errors.New("the window did not come to rest")
		}
	}
}

// medianNote is a sample set's median for a row's note.
func medianNote(samples []float64) string {
	r := summarise("", "ms", 0, samples)
	return fmt.Sprintf("%.1f ms", r.Median)
}
