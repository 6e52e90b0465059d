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
	// A remote conversation's checkpoints are on its host: a restore connects there.
	// It runs no command, so its agents' proxies never ask.
	a.remote = newRemoteHosts(nil)
	rt, err := actors.Start(actors.Config{Store: store, LLM: noModel{}, Tools: tools.NewRegistry(), Search: a.index,
		Logger: log, TempRoot: filepath.Join(store.Dir(), "sandbox-tmp"), Remote: a.remote})
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
	return parseArgsBetween(fs, args, want, want)
}

// parseArgsBetween is parseIDArgs for a command that takes from min to max positional
// arguments.
func parseArgsBetween(fs *flag.FlagSet, args []string, min, max int) ([]string, error) {
	// Flags and positional arguments may come in any order (rewind --undo ID --data-dir D):
	// the flag package stops at the first positional one, so parsing goes on after it.
	var pos []string
	for {
		for len(args) > 0 && !strings.HasPrefix(args[0], "-") {
			pos, args = append(pos, args[0]), args[1:]
		}
		if len(args) == 0 {
			break
		}
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if args = fs.Args(); len(args) > 0 && strings.HasPrefix(args[0], "-") {
			// Only after "--": everything left is positional.
			pos = append(pos, args...)
			break
		}
	}
	if len(pos) < min || len(pos) > max {
		want := strconv.Itoa(min)
		if max > min {
			want += " or " + strconv.Itoa(max)
		}
		noun := " arguments"
		if max == 1 {
			noun = " argument"
		}
		return nil, fmt.Errorf("%s: expected %s"+noun+", got %d (see phoenix-desktop %s -h)", fs.Name(), want, len(pos), fs.Name())
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
	if err := tw.Flush(); err != nil {
		return err
	}
	return printRestores(a.runtime, pos[0], stdout)
}

// printRestores lists the rewinds and undos applied in a conversation, each of which
// rewind --undo takes back.
func printRestores(rt *actors.Runtime, id string, stdout io.Writer) error {
	list, err := rt.Restores(context.Background(), id)
	if err != nil || len(list) == 0 {
		return err
	}
	fmt.Fprintf(stdout, "\nRestores (phoenix-desktop rewind --undo %s RESTORE puts their files back as they were just before):\n", id)
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RESTORE\tWHAT\tAT\tFILES CHANGED\tKEPT (CHANGED BY YOU)")
	for _, r := range list {
		what := fmt.Sprintf("%s to before checkpoint %d", r.Kind, r.Checkpoint)
		switch r.Kind {
		case actors.RestoreUndo:
			what = fmt.Sprintf("undo of checkpoint %d", r.Checkpoint)
		case actors.RestoreBack:
			what = fmt.Sprintf("took back restore %d", r.Undoes)
		case actors.RestoreRevert:
			what = "revert of the whole file"
			if r.Hunk > 0 {
				what = fmt.Sprintf("revert of hunk %d", r.Hunk)
			}
		}
		files := describeChanges(r.Files)
		if !r.Complete() {
			files += " (the restore did not finish)"
		}
		kept := strings.Join(r.Kept, ", ")
		if kept == "" {
			kept = "none"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", r.N, what, r.At.Local().Format("2006-01-02 15:04"), files, kept)
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
	var force, dryRun, undo bool
	common.register(fs, false)
	fs.BoolVar(&force, "force", false, "overwrite files changed by you (between the agent's calls or since its last one) and by later calls; without it they are kept")
	fs.BoolVar(&dryRun, "dry-run", false, "print the diff that would be applied and change nothing")
	fs.BoolVar(&undo, "undo", false, "take back a rewind or undo: rewind --undo ID [RESTORE] puts the files it changed back as they were just before it (the last one, or RESTORE as numbered by checkpoints)")
	pos, err := parseArgsBetween(fs, args, 1, 2)
	if err != nil {
		return err
	}
	if !undo && len(pos) != 2 {
		return fmt.Errorf("rewind: expected ID CHECKPOINT (see phoenix-desktop checkpoints ID for the checkpoints, or rewind --undo ID to take back the last rewind)")
	}
	id := pos[0]
	a, err := openForConversation(env, common, stderr, "rewind", id)
	if err != nil {
		return err
	}
	defer a.Close()
	ctx := context.Background()
	var plan actors.RestorePlan
	if undo {
		n, err := restoreToUndo(ctx, a.runtime, id, pos[1:])
		if err != nil {
			return err
		}
		if plan, err = a.runtime.PlanUndoRestore(ctx, id, n); err != nil {
			return fmt.Errorf("rewind --undo: %w", err)
		}
	} else {
		n, err := strconv.ParseUint(pos[1], 10, 64)
		if err != nil {
			return fmt.Errorf("rewind: checkpoint %q is not a number (see phoenix-desktop checkpoints %s)", pos[1], id)
		}
		if plan, err = a.runtime.PlanRestore(ctx, id, actors.RestoreRewind, domain.ExecID(n)); err != nil {
			return fmt.Errorf("rewind: %w", err)
		}
	}
	plan.OverwriteYours = force
	files, diff := plan.Chosen()
	if len(files) == 0 {
		if len(plan.Yours) > 0 {
			fmt.Fprintf(stdout, "Nothing to restore except files changed by you, which are kept: %s. Pass --force to overwrite them.\n", strings.Join(plan.Yours, ", "))
			return nil
		}
		fmt.Fprintln(stdout, "Nothing to restore: the working tree is already as it was then.")
		return nil
	}
	if dryRun {
		fmt.Fprint(stdout, diff)
		return nil
	}
	if len(plan.Conflicts) > 0 && !force {
		return &exitError{code: 1, err: fmt.Errorf("rewind: these files were changed by a later call of the agent and would be overwritten: %s; pass --force to overwrite them (or --dry-run to see the diff)",
			strings.Join(plan.Conflicts, ", "))}
	}
	rec, err := a.runtime.ApplyRestore(ctx, id, plan, force)
	if errors.Is(err, actors.ErrRestoreConflict) {
		return &exitError{code: 1, err: fmt.Errorf("rewind: %w", err)}
	}
	if err != nil {
		return fmt.Errorf("rewind: %w", err)
	}
	if undo {
		fmt.Fprintf(stdout, "Took back restore %d: these files are as they were just before it:\n", plan.Restore.N)
	} else {
		fmt.Fprintf(stdout, "Rewound the working directory to before checkpoint %d (%s call %s):\n", plan.Checkpoint.ID, plan.Checkpoint.Tool, plan.Checkpoint.CallID)
	}
	for _, c := range rec.Files {
		fmt.Fprintf(stdout, "  %-9s %s\n", actors.RestoreVerb(c.Status), c.Path)
	}
	if len(rec.Kept) > 0 {
		fmt.Fprintln(stdout, "Kept as you left them (changed by you; pass --force to overwrite them too):")
		for _, p := range rec.Kept {
			fmt.Fprintf(stdout, "  %-9s %s\n", "kept", p)
		}
	}
	fmt.Fprintf(stdout, "This was restore %d. To take it back: phoenix-desktop rewind --undo %s\n", rec.N, id)
	return nil
}

// restoreToUndo is the restore rewind --undo takes back: the number given, or the last one.
func restoreToUndo(ctx context.Context, rt *actors.Runtime, id string, arg []string) (int, error) {
	if len(arg) == 1 {
		n, err := strconv.Atoi(strings.TrimPrefix(strings.ToUpper(arg[0]), "R"))
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("rewind --undo: restore %q is not a number (see phoenix-desktop checkpoints %s)", arg[0], id)
		}
		return n, nil
	}
	list, err := rt.Restores(ctx, id)
	if err != nil {
		return 0, fmt.Errorf("rewind --undo: %w", err)
	}
	if len(list) == 0 {
		return 0, fmt.Errorf("rewind --undo: nothing to take back: conversation %s has no rewind or undo", id)
	}
	return list[len(list)-1].N, nil
}
