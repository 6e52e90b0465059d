package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/transcript"
)

// spentJSON is what `spent --json` prints: the total in the shape of a conversation's own
// "spent" (list --json), and since when it counts (absent: since the first conversation).
type spentJSON struct {
	Since *time.Time   `json:"since,omitempty"`
	Spent domain.Spend `json:"spent"`
	// NotCounted is how many conversations could not be read and are left out of the total.
	NotCounted int `json:"not_counted,omitempty"`
}

// runSpent prints what the model's replies took and cost, over every conversation, each reply
// once in the conversation that made it (issue 33): with --today, since local midnight, the
// figure Settings shows as "Spent today" (the same actors.Spent adds up both).
func runSpent(env *cmdEnv, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("spent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var common commonFlags
	var jsonOut, today bool
	common.register(fs, false)
	fs.BoolVar(&today, "today", false, "only the replies since midnight (Settings' \"Spent today\")")
	fs.BoolVar(&jsonOut, "json", false, "print JSON")
	if _, err := parseIDArgs(fs, args, 0); err != nil {
		return err
	}
	// Read as stored: a turn running in the app is counted up to its last committed reply.
	store, done, err := env.openStore(&common, common.logger(stderr), false)
	if err != nil {
		return err
	}
	defer done()
	var since time.Time
	if today {
		since = actors.StartOfDay(time.Now())
	}
	total, err := actors.Spent(context.Background(), store, since)
	var partial *actors.IncompleteSpendError
	if err != nil && !errors.As(err, &partial) {
		return fmt.Errorf("spent: %w", err)
	}
	if jsonOut {
		out := spentJSON{Spent: total}
		if today {
			out.Since = &since
		}
		if partial != nil {
			out.NotCounted = partial.Unreadable
		}
		if err := json.NewEncoder(stdout).Encode(out); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(stdout, transcript.SpendLine(total))
	}
	if partial != nil {
		return fmt.Errorf("spent: %w; the figure above is what the others spent", partial)
	}
	return nil
}
