package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/persistence"
	"github.com/phoenix-desktop/phoenix/transcript"
)

func runList(env *cmdEnv, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var common commonFlags
	var jsonOut, archived bool
	common.register(fs, false)
	fs.BoolVar(&jsonOut, "json", false, "print JSON")
	fs.BoolVar(&archived, "archived", false, "include archived conversations")
	if err := fs.Parse(args); err != nil {
		return err
	}
	store, done, err := env.openStore(&common, common.logger(stderr), true)
	if err != nil {
		return err
	}
	defer done()
	list, err := store.List(archived)
	if err != nil {
		return err
	}
	if jsonOut {
		return json.NewEncoder(stdout).Encode(list)
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUPDATED\tSTATE\tMODE\tTITLE")
	for _, s := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.ID, s.UpdatedAt.Local().Format("2006-01-02 15:04"), transcript.StoppedWord(s.State), s.Mode, transcript.Title(s.Title, s.Cwd))
	}
	return tw.Flush()
}

// loadConversation parses the flags of show and export, and reads one conversation.
func loadConversation(env *cmdEnv, name string, args []string, stderr io.Writer) (domain.Conversation, []domain.Message, bool, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var common commonFlags
	var jsonOut bool
	common.register(fs, false)
	if name == "show" {
		fs.BoolVar(&jsonOut, "json", false, "print the conversation and its messages as JSON")
	}
	// Accept the id before or after the flags.
	var id string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		id, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return domain.Conversation{}, nil, false, err
	}
	if id == "" && fs.NArg() > 0 {
		id = fs.Arg(0)
	}
	if id == "" {
		return domain.Conversation{}, nil, false, fmt.Errorf("%s: which conversation? Pass its id (see phoenix-desktop list)", name)
	}
	store, done, err := env.openStore(&common, common.logger(stderr), true)
	if err != nil {
		return domain.Conversation{}, nil, false, err
	}
	defer done()
	conv, msgs, err := store.Load(id)
	return conv, msgs, jsonOut, err
}

func runShow(env *cmdEnv, args []string, stdout, stderr io.Writer) error {
	conv, msgs, jsonOut, err := loadConversation(env, "show", args, stderr)
	if err != nil {
		return err
	}
	if jsonOut {
		return json.NewEncoder(stdout).Encode(struct {
			Conversation domain.Conversation `json:"conversation"`
			Messages     []domain.Message    `json:"messages"`
		}{conv, msgs})
	}
	fmt.Fprintf(stdout, "%s — %s\n%s · %s · %s mode · %s\n", conv.ID, transcript.Title(conv.Title, conv.Cwd), conv.Cwd, conv.Model, conv.Mode, transcript.Status(conv, time.Time{}, time.Time{}))
	if conv.Spent.Responses > 0 {
		fmt.Fprintf(stdout, "spent: %s\n", transcript.SpendLine(conv.Spent))
	}
	writeTodo(stdout, msgs)
	for _, m := range msgs {
		writeMessage(stdout, m)
		if m.Kind == domain.KindAssistant && m.Usage != nil && m.Usage.Total() > 0 {
			fmt.Fprintf(stdout, "  · %s\n", transcript.UsageLine(*m.Usage))
		}
	}
	if _, ok := actors.InterruptedTurn(msgs); ok {
		writeRetryHint(stdout, conv.ID)
	}
	return nil
}

// writeRetryHint follows the "Not answered" notice of a turn the app stopped in: the command
// line's Retry.
func writeRetryHint(w io.Writer, id string) {
	fmt.Fprintf(w, "! To send it again: phoenix-desktop chat --continue %s --retry\n", id)
}

// openStoreAtRest opens the store for a command that reads it without a runtime (list, show,
// export) and first runs restart recovery, so that a turn the app stopped in is shown at rest
// with its "Not answered" notice, never as still running. On a full disk the store is
// read-only and recovery waits for room: list then says "interrupted" (StoppedWord).
func (c *commonFlags) openStoreAtRest(log *slog.Logger) (*persistence.Store, error) {
	store, err := c.openStore(log)
	if err != nil {
		return nil, err
	}
	if !store.ReadOnly() {
		if err := actors.Recover(store, log); err != nil {
			log.Warn("the conversations a stopped app left running could not be brought to rest; they are shown as stored", "err", err)
		}
	}
	return store, nil
}

func runExport(env *cmdEnv, args []string, stdout, stderr io.Writer) error {
	conv, msgs, _, err := loadConversation(env, "export", args, stderr)
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, transcript.Markdown(conv, msgs))
	return err
}
