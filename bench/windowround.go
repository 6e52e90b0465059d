package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// windowRoundRowName heads the rows of a tool round in the window (issue 39: "≤ floor + 2 ms
// per round … headless and in the window"): the app's binary with its window on Xvfb showing
// the conversation, so every event of a round is drawn as it happens, and the turns sent by
// the command line beside it (`chat --continue`, served by the app, as cliRoundRows' chats are
// by themselves). A round is measured as the headless rows measure it: the chat of 1+cliRounds
// bash rounds less the chat of one, over cliRounds, less a plain `bash -c true` timed beside
// it; what the command line's own start costs is in both chats and cancels out.
const windowRoundRowName = "window tool round after the first − plain bash -c true, Restricted"

func windowRoundRows(ctx context.Context, o Options) ([]Row, error) {
	wb, err := startWindowBench(ctx, o, "draw the conversation's rounds off screen", "windowround")
	if err != nil {
		return nil, err
	}
	defer wb.close()
	long := strings.TrimSuffix(strings.Repeat("bash: true\n", 1+cliRounds), "\n")
	n := samplesOf(o, 7, 2)
	var rows []Row
	var floor []float64
	for _, mode := range cliRoundModes {
		name := strings.Replace(windowRoundRowName, "Restricted", modeTitle(mode), 1)
		rounds, plains, err := windowRounds(ctx, o, wb, mode, long, n)
		r := differenceRow(name, 2, rounds,
			fmt.Sprintf("the app's window on Xvfb showing the conversation (%s mode, offline demo model); (chat --continue of %d bash rounds − of 1) ÷ %d, served by the app, less a plain bash -c true timed beside it: what a round costs beyond the command itself while the window draws it", mode, 1+cliRounds, cliRounds))
		if err != nil {
			r.Err, r.Met = err.Error(), false
		}
		rows = append(rows, r)
		floor = append(floor, plains...)
	}
	floorRow := summarise("plain bash -c true beside the window's rounds", "ms", 0, floor)
	floorRow.Note = "the floor the rows above are measured against, in the same minutes"
	return append(rows, floorRow), nil
}

// windowRounds makes one conversation in mode (the command line alone, before the app), lets
// the app's window reopen it as the conversation it showed last, and times n pairs of turns
// sent to it through the app, after one pair that only warms up.
func windowRounds(ctx context.Context, o Options, wb *windowBench, mode, long string, n int) (rounds, plains []float64, err error) {
	dir := filepath.Join(wb.dir, mode)
	data, home, work := filepath.Join(dir, "data"), filepath.Join(dir, "home"), filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o700); err != nil {
		return nil, nil, err
	}
	env := append(appEnv(home), "DISPLAY="+wb.display)
	chat := besideApp(ctx, o.App, data, work, env)
	out, err := chat("--demo", "--mode", mode, "--cwd", work, "echo: the window's rounds")
	if err != nil {
		return nil, nil, err
	}
	m := convLineRE.FindStringSubmatch(out)
	if m == nil {
		return nil, nil, fmt.Errorf("chat printed no conversation id: %s", lastLines(out))
	}
	id := m[1]
	if err := showLast(home, id); err != nil {
		return nil, nil, err
	}

	w, err := watchMaps(wb.display)
	if err != nil {
		return nil, nil, err
	}
	defer w.Close()
	app := exec.CommandContext(ctx, o.App, "--demo", "--data-dir", data)
	app.Env, app.Dir = env, work
	var appOut bytes.Buffer
	app.Stdout, app.Stderr = &appOut, &appOut
	if err := app.Start(); err != nil {
		return nil, nil, fmt.Errorf("start the app: %w", err)
	}
	exited := waitProcess(app)
	defer stopGracefully(app, exited)
	if _, err := w.next(60 * time.Second); err != nil {
		return nil, nil, fmt.Errorf("the app's window: %w: %s", err, lastLines(appOut.String()))
	}
	// The conversation loaded and drawn before the first turn.
	select {
	case err := <-exited:
		exited <- err
		return nil, nil, fmt.Errorf("the app exited: %v: %s", err, lastLines(appOut.String()))
	case <-time.After(2 * time.Second):
	}
	timed := func(prompt string) (float64, error) {
		start := time.Now()
		if _, err := chat("--continue", id, prompt); err != nil {
			return 0, err
		}
		return ms(time.Since(start)), nil
	}
	for i := -1; i < n; i++ {
		one, err := timed("bash: true")
		if err != nil {
			return rounds, plains, err
		}
		all, err := timed(long)
		if err != nil {
			return rounds, plains, err
		}
		var plain float64
		for range cliRounds {
			p, err := plainOnce(ctx)
			if err != nil {
				return rounds, plains, err
			}
			plain += p / cliRounds
		}
		if i < 0 {
			continue
		}
		rounds = append(rounds, (all-one)/cliRounds-plain)
		plains = append(plains, plain)
	}
	return rounds, plains, nil
}
