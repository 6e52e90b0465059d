package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// cliRoundRowName heads the rows of a tool round as a script meets it: the app binary's
// headless chat, its own fake server (the offline demo model), the store on disk, the
// transcript printed — everything the in-process tool round rows leave out (issue 39). A
// round is one after the chat's first tool call: what the first call pays once (its
// supervisor's start, the sandbox's first set-up) is a row of its own, cliFirstRowName, so
// that neither hides in the other. (Until this split the row was the 10-round chat less the
// chat of none, over 10, under the name without "after the first": a new name, so that
// bench --baseline does not compare the two.)
const cliRoundRowName = "headless chat tool round after the first − plain bash -c true, Restricted"

// cliFirstRowName heads the rows of a chat's first tool call.
const cliFirstRowName = "headless chat first tool call − plain bash -c true, Restricted"

// cliRounds is how many bash rounds the long chat of a pair runs beyond the short one's.
const cliRounds = 10

// cliRoundModes are the modes measured, in the rows' order.
var cliRoundModes = []string{"restricted", "project", "unrestricted"}

// cliRoundRows runs, for each mode, three chats one after the other (each on a new data
// directory, so all pay the same start): one with no tool, one with a bash `true` round, one
// with 1+cliRounds rounds. (long − one) ÷ cliRounds is a round as the CLI pays it after the
// first; (one − none) is the first tool call with all it sets up. A plain `bash -c true` is
// timed beside each set, and each row is less that floor, so the machine's load hits both
// alike.
func cliRoundRows(ctx context.Context, o Options) ([]Row, error) {
	place, err := newAppPlace(o, "phoenix-bench-cli-")
	if err != nil {
		return nil, err
	}
	defer place.remove()
	dir, app, work, env := place.dir, place.app, place.work, place.env
	long := strings.TrimSuffix(strings.Repeat("bash: true\n", 1+cliRounds), "\n")
	n := samplesOf(o, 7, 2)
	rounds := make([][]float64, len(cliRoundModes))
	firsts := make([][]float64, len(cliRoundModes))
	errs := make([]error, len(cliRoundModes))
	var floor []float64
	run := 0
	for i := -1; i < n; i++ { // the first pass only warms the page cache and the supervisors' binary
		for m, mode := range cliRoundModes {
			if errs[m] != nil {
				continue
			}
			chat := func(prompt string) (float64, error) {
				run++
				wall, _, err := runOnce(ctx, app, work, env, "chat", "--demo", "--mode", mode,
					"--data-dir", filepath.Join(dir, fmt.Sprintf("data-%d", run)), prompt)
				return wall, err
			}
			var walls [3]float64
			for k, prompt := range []string{"echo: no tools", "bash: true", long} {
				if walls[k], err = chat(prompt); err != nil {
					errs[m] = err
					break
				}
			}
			if errs[m] != nil {
				continue
			}
			var plain float64
			for range cliRounds {
				p, err := plainOnce(ctx)
				if err != nil {
					return nil, err
				}
				plain += p / cliRounds
			}
			if i < 0 {
				continue
			}
			firsts[m] = append(firsts[m], walls[1]-walls[0]-plain)
			rounds[m] = append(rounds[m], (walls[2]-walls[1])/cliRounds-plain)
			floor = append(floor, plain)
		}
	}
	var rows []Row
	for m, mode := range cliRoundModes {
		name := strings.Replace(cliRoundRowName, "Restricted", modeTitle(mode), 1)
		r := differenceRow(name, 2, rounds[m],
			fmt.Sprintf("(chat of %d bash rounds − chat of 1) ÷ %d, less a plain bash -c true timed beside it: what a round after the first costs beyond the command itself when a script runs the CLI", 1+cliRounds, cliRounds))
		if errs[m] != nil {
			r.Err, r.Met = errs[m].Error(), false
		}
		rows = append(rows, r)
	}
	for m, mode := range cliRoundModes {
		name := strings.Replace(cliFirstRowName, "Restricted", modeTitle(mode), 1)
		r := differenceRow(name, 0, firsts[m],
			"chat of 1 bash round − chat of none, less a plain bash -c true: the round with what the first tool call sets up once (a supervisor started, the sandbox's first set-up, in Unrestricted the checkpoint repository)")
		if errs[m] != nil {
			r.Err, r.Met = errs[m].Error(), false
		}
		rows = append(rows, r)
	}
	floorRow := summarise("plain bash -c true beside the headless chat rounds", "ms", 0, floor)
	floorRow.Note = "the floor the rows above are measured against, in the same minutes"
	return append(rows, floorRow), nil
}

func modeTitle(mode string) string { return strings.ToUpper(mode[:1]) + mode[1:] }
