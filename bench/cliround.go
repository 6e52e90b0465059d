package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// cliRoundRowName heads the rows of a tool round as a script meets it: the app binary's
// headless chat, its own fake server (the offline demo model), the store on disk, the
// transcript printed — everything the in-process tool round rows leave out (issue 39).
const cliRoundRowName = "headless chat tool round − plain bash -c true, Restricted"

// cliRounds is how many bash rounds the long chat of a pair runs.
const cliRounds = 10

// cliRoundModes are the modes measured, in the rows' order.
var cliRoundModes = []string{"restricted", "project", "unrestricted"}

// cliRoundRows pairs, for each mode, a chat that runs cliRounds bash `true` rounds with one
// that runs none (each on a new data directory, so both pay the same start); the difference
// over cliRounds is one round as the CLI pays it. A plain `bash -c true` is timed beside each
// pair, and each row is the round less that floor, so the machine's load hits both alike.
func cliRoundRows(ctx context.Context, o Options) ([]Row, error) {
	place, err := newAppPlace(o, "phoenix-bench-cli-")
	if err != nil {
		return nil, err
	}
	defer place.remove()
	dir, app, work, env := place.dir, place.app, place.work, place.env
	long := strings.TrimSuffix(strings.Repeat("bash: true\n", cliRounds), "\n")
	n := samplesOf(o, 7, 2)
	diffs := make([][]float64, len(cliRoundModes))
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
			short, err := chat("echo: no tools")
			if err != nil {
				errs[m] = err
				continue
			}
			full, err := chat(long)
			if err != nil {
				errs[m] = err
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
			diffs[m] = append(diffs[m], (full-short)/cliRounds-plain)
			floor = append(floor, plain)
		}
	}
	var rows []Row
	for m, mode := range cliRoundModes {
		name := strings.Replace(cliRoundRowName, "Restricted", modeTitle(mode), 1)
		r := differenceRow(name, 2, diffs[m],
			fmt.Sprintf("(chat of %d bash rounds − chat of none) ÷ %d, less a plain bash -c true timed beside it: what a round costs beyond the command itself when a script runs the CLI", cliRounds, cliRounds))
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
