package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
)

// runFork makes a new conversation that continues conversation ID from its message MSG (the
// seq that `show --json` prints), keeping ID as it is (issue 27). It prints the new id, so a
// script can go on with `chat --continue NEW …`.
func runFork(env *cmdEnv, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("fork", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var common commonFlags
	var jsonOut bool
	common.register(fs, false)
	fs.BoolVar(&jsonOut, "json", false, "print the new conversation as JSON")
	pos, err := parseIDArgs(fs, args, 2)
	if err != nil {
		return err
	}
	id := pos[0]
	seq, err := strconv.ParseUint(pos[1], 10, 64)
	if err != nil {
		return fmt.Errorf("fork: %q is not a message number: give the seq that phoenix-desktop show %s --json prints", pos[1], id)
	}
	a, err := openForConversation(env, common, stderr, "fork", id)
	if err != nil {
		return err
	}
	defer a.Close()
	conv, err := a.runtime.Fork(context.Background(), id, seq)
	if err != nil {
		return fmt.Errorf("fork: %w", err)
	}
	if jsonOut {
		return json.NewEncoder(stdout).Encode(conv)
	}
	fmt.Fprintf(stdout, "%s — %s (%d messages, %s mode)\nGo on with: phoenix-desktop chat --continue %s PROMPT\n",
		conv.ID, conv.Title, conv.NextSeq, conv.Mode, conv.ID)
	return nil
}
