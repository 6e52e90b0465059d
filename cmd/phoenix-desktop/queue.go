package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/phoenix-desktop/phoenix/actors"
)

// runQueue lists (or clears) the messages queued for a conversation while its agent worked.
// `chat --continue ID` sends them after its own turn; a held queue (after an error, Stop or
// a crash) waits until --resume.
func runQueue(env *cmdEnv, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("queue", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var common commonFlags
	var jsonOut, clear, resume bool
	common.register(fs, false)
	fs.BoolVar(&jsonOut, "json", false, "print JSON")
	fs.BoolVar(&clear, "clear", false, "remove every queued message")
	fs.BoolVar(&resume, "release", false, "release a held queue so that the next chat --continue sends it")
	pos, err := parseIDArgs(fs, args, 1)
	if err != nil {
		return err
	}
	id := pos[0]
	a, err := openForConversation(env, common, stderr, "queue", id)
	if err != nil {
		return err
	}
	defer a.Close()
	ctx := context.Background()
	q, err := a.runtime.Queue(ctx, id)
	if err != nil {
		return err
	}
	switch {
	case clear:
		if q, err = a.runtime.ClearQueue(ctx, id); err != nil {
			return fmt.Errorf("queue: %w", err)
		}
	case resume && q.Held != "":
		// Marked released without sending: this command has no model to send with.
		if q, err = a.runtime.ReleaseQueue(ctx, id); err != nil {
			return fmt.Errorf("queue: %w", err)
		}
	}
	if jsonOut {
		if q.Items == nil {
			q.Items = []actors.QueuedMessage{}
		}
		return json.NewEncoder(stdout).Encode(q)
	}
	if len(q.Items) == 0 {
		fmt.Fprintln(stdout, "No queued messages.")
		return nil
	}
	if q.Held != "" {
		fmt.Fprintf(stdout, "Held: %s\n", q.Held)
	}
	for i, m := range q.Items {
		fmt.Fprintf(stdout, "%d. %s\n", i+1, m.Text)
	}
	return nil
}
