package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm"
	"github.com/phoenix-desktop/phoenix/tools"
)

// noModel is the model client of commands that change files but never ask a model
// (checkpoints, rewind): they need no API key.
type noModel struct{}

func (noModel) Stream(context.Context, llm.Request, func(llm.Delta)) (llm.Response, error) {
	return llm.Response{}, &llm.Error{Kind: domain.ErrorInvalidRequest, Message: "this command does not talk to a model"}
}

// openFilesApp opens the store and a runtime without a model.
func openFilesApp(flags commonFlags, log *slog.Logger) (*session, error) {
	a := &session{}
	store, err := flags.openStore(log)
	if err != nil {
		return nil, err
	}
	a.store = store
	// The notices a restore adds to the history are searchable like every message.
	a.index = newLazyIndex(store, log)
	rt, err := actors.Start(actors.Config{Store: store, LLM: noModel{}, Tools: tools.NewRegistry(), Search: a.index,
		Logger: log, TempRoot: filepath.Join(store.Dir(), "sandbox-tmp")})
	if err != nil {
		a.Close()
		return nil, err
	}
	a.runtime = rt
	return a, nil
}

// openForConversation opens the model-less runtime for a command about one existing
// conversation.
func openForConversation(env *cmdEnv, common commonFlags, stderr io.Writer, command, id string) (*session, error) {
	a, err := env.open(func() (*session, error) { return openFilesApp(common, common.logger(stderr)) })
	if err != nil {
		return nil, err
	}
	if _, err := a.store.Get(id); err != nil {
		a.Close()
		return nil, fmt.Errorf("%s: %w (see phoenix-desktop list for the ids)", command, err)
	}
	return a, nil
}

// parseIDArgs accepts positional arguments before or after the flags.
func parseIDArgs(fs *flag.FlagSet, args []string, want int) ([]string, error) {
	var pos []string
	for len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		pos, args = append(pos, args[0]), args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	pos = append(pos, fs.Args()...)
	if len(pos) != want {
		return nil, fmt.Errorf("%s: expected %d argument(s), got %d (see phoenix-desktop %s -h)", fs.Name(), want, len(pos), fs.Name())
	}
	return pos, nil
}

func runCheckpoints(env *cmdEnv, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("checkpoints", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var common commonFlags
	var jsonOut bool
	common.register(fs, false)
	fs.BoolVar(&jsonOut, "json", false, "print JSON")
	pos, err := parseIDArgs(fs, args, 1)
	if err != nil {
		return err
	}
	a, err := openForConversation(env, common, stderr, "checkpoints", pos[0])
	if err != nil {
		return err
	}
	defer a.Close()
	list, err := a.runtime.Checkpoints(context.Background(), pos[0])
	if err != nil {
		return err
	}
	if jsonOut {
		if list == nil {
			list = []actors.Checkpoint{}
		}
		return json.NewEncoder(stdout).Encode(list)
	}
	if len(list) == 0 {
		fmt.Fprintln(stdout, "No checkpoints: the agent has not run patch or an Unrestricted bash command in this conversation.")
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CHECKPOINT\tMESSAGE\tTOOL\tCALL\tFILES CHANGED")
	for _, cp := range list {
		files := describeChanges(cp.Files)
		if !cp.Complete() {
			files = "(the call did not finish: unknown)"
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\n", cp.ID, cp.MsgSeq, cp.Tool, cp.CallID, files)
	}
	return tw.Flush()
}

func describeChanges(ch []actors.FileChange) string {
	if len(ch) == 0 {
		return "none"
	}
	parts := make([]string, len(ch))
	for i, c := range ch {
		parts[i] = c.Path + " (" + string(c.Status) + ")"
	}
	return strings.Join(parts, ", ")
}

func runRewind(env *cmdEnv, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("rewind", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var common commonFlags
	var force, dryRun bool
	common.register(fs, false)
	fs.BoolVar(&force, "force", false, "overwrite files that changed after the checkpoint")
	fs.BoolVar(&dryRun, "dry-run", false, "print the diff that would be applied and change nothing")
	pos, err := parseIDArgs(fs, args, 2)
	if err != nil {
		return err
	}
	id := pos[0]
	n, err := strconv.ParseUint(pos[1], 10, 64)
	if err != nil {
		return fmt.Errorf("rewind: checkpoint %q is not a number (see phoenix-desktop checkpoints %s)", pos[1], id)
	}
	a, err := openForConversation(env, common, stderr, "rewind", id)
	if err != nil {
		return err
	}
	defer a.Close()
	ctx := context.Background()
	plan, err := a.runtime.PlanRestore(ctx, id, actors.RestoreRewind, domain.ExecID(n))
	if err != nil {
		return fmt.Errorf("rewind: %w", err)
	}
	if plan.Empty() {
		fmt.Fprintln(stdout, "Nothing to restore: the working tree is already as it was at that checkpoint.")
		return nil
	}
	if dryRun {
		fmt.Fprint(stdout, plan.Diff)
		return nil
	}
	if len(plan.Conflicts) > 0 && !force {
		return &exitError{code: 1, err: fmt.Errorf("rewind: these files changed after the agent last changed them and would be overwritten: %s; pass --force to overwrite them (or --dry-run to see the diff)",
			strings.Join(plan.Conflicts, ", "))}
	}
	changed, err := a.runtime.ApplyRestore(ctx, id, plan, force)
	if errors.Is(err, actors.ErrRestoreConflict) {
		return &exitError{code: 1, err: fmt.Errorf("rewind: %w", err)}
	}
	if err != nil {
		return fmt.Errorf("rewind: %w", err)
	}
	fmt.Fprintf(stdout, "Rewound the working directory to before checkpoint %d (%s call %s):\n", plan.Checkpoint.ID, plan.Checkpoint.Tool, plan.Checkpoint.CallID)
	for _, c := range changed {
		fmt.Fprintf(stdout, "  %-9s %s\n", actors.RestoreVerb(c.Status), c.Path)
	}
	return nil
}
