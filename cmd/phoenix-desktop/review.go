package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/review"
	"github.com/phoenix-desktop/phoenix/transcript"
)

// scopeFlags are the scope flags of changes and revert (hunks are numbered within a scope).
type scopeFlags struct {
	turn        string
	uncommitted bool
}

func (s *scopeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.turn, "turn", "", `only the turn of user message N (as numbered by "show"), or "last"; from its first change to the files as they are now`)
	fs.BoolVar(&s.uncommitted, "uncommitted", false, "the working tree against HEAD of the project's git repository")
}

// scope is what the flags chose: the whole conversation when neither is given.
func (s *scopeFlags) scope(command string) (actors.ChangesScope, error) {
	switch {
	case s.turn != "" && s.uncommitted:
		return actors.ChangesScope{}, fmt.Errorf("%s: choose --turn or --uncommitted, not both", command)
	case s.uncommitted:
		return actors.ChangesScope{Kind: review.Uncommitted}, nil
	case s.turn == "last":
		return actors.ChangesScope{Kind: review.Turn}, nil
	case s.turn != "":
		n, err := strconv.ParseUint(s.turn, 10, 64)
		if err != nil || n == 0 {
			return actors.ChangesScope{}, fmt.Errorf(`%s: --turn %q is not a message number (see phoenix-desktop show ID) or "last"`, command, s.turn)
		}
		return actors.ChangesScope{Kind: review.Turn, Turn: n}, nil
	}
	return actors.ChangesScope{Kind: review.Conversation}, nil
}

func runChanges(env *cmdEnv, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("changes", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var common commonFlags
	var sf scopeFlags
	var jsonOut bool
	common.register(fs, false)
	sf.register(fs)
	fs.BoolVar(&jsonOut, "json", false, "print JSON: the files and their numbered hunks")
	pos, err := parseIDArgs(fs, args, 1)
	if err != nil {
		return err
	}
	scope, err := sf.scope("changes")
	if err != nil {
		return err
	}
	a, err := openForConversation(env, common, stderr, "changes", pos[0])
	if err != nil {
		return err
	}
	defer a.Close()
	ch, err := a.runtime.Changes(context.Background(), pos[0], scope)
	if err != nil {
		return fmt.Errorf("changes: %w", err)
	}
	if jsonOut {
		return json.NewEncoder(stdout).Encode(ch)
	}
	printChanges(stdout, pos[0], ch)
	return nil
}

// printChanges prints the changes as a unified diff whose hunks carry the numbers revert
// --hunk takes.
func printChanges(w io.Writer, id string, ch review.Changes) {
	what := "this conversation"
	switch ch.Scope {
	case review.Turn:
		what = fmt.Sprintf("the turn of message %d", ch.Turn)
	case review.Uncommitted:
		what = "the working tree against HEAD"
	}
	if len(ch.Files) == 0 {
		fmt.Fprintf(w, "No changes in %s.\n", what)
		return
	}
	fmt.Fprintf(w, "Changes of %s: %s. Revert one with phoenix-desktop revert %s --file PATH [--hunk N] (and the same scope flag).\n", what, transcript.Count(len(ch.Files), "file", "files"), id)
	for _, f := range ch.Files {
		fmt.Fprintf(w, "\n%-8s %s  +%d −%d", f.Status, f.Path, f.Added, f.Deleted)
		if f.Mode != "" {
			fmt.Fprintf(w, "  (mode %s)", f.Mode)
		}
		fmt.Fprintln(w)
		if f.Binary {
			fmt.Fprintln(w, "  (binary file: no lines to show)")
		}
		for _, h := range f.Hunks {
			fmt.Fprintf(w, "hunk %d  %s\n", h.N, h.Header())
			for _, l := range h.Lines {
				fmt.Fprintf(w, "%s%s\n", l.Kind, l.Text)
			}
		}
	}
}

func runRevert(env *cmdEnv, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("revert", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var common commonFlags
	var sf scopeFlags
	var file string
	var hunk int
	common.register(fs, false)
	sf.register(fs)
	fs.StringVar(&file, "file", "", "the file to revert, as changes names it (required)")
	fs.IntVar(&hunk, "hunk", 0, "revert only hunk N of the file, as changes numbers it (default: the whole file)")
	pos, err := parseIDArgs(fs, args, 1)
	if err != nil {
		return err
	}
	if file == "" {
		return fmt.Errorf("revert: say which file with --file PATH (see phoenix-desktop changes %s)", pos[0])
	}
	if hunk < 0 {
		return fmt.Errorf("revert: --hunk %d is not a hunk number (they start at 1)", hunk)
	}
	scope, err := sf.scope("revert")
	if err != nil {
		return err
	}
	a, err := openForConversation(env, common, stderr, "revert", pos[0])
	if err != nil {
		return err
	}
	defer a.Close()
	rec, err := a.runtime.Revert(context.Background(), pos[0], actors.RevertRequest{Scope: scope, Path: file, Hunk: hunk})
	if errors.Is(err, actors.ErrRestoreConflict) || errors.Is(err, actors.ErrNothingToRevert) {
		return &exitError{code: 1, err: fmt.Errorf("revert: %w", err)}
	}
	if err != nil {
		return fmt.Errorf("revert: %w", err)
	}
	if rec.N == 0 {
		fmt.Fprintln(stdout, "Nothing to revert: the file is already as it was.")
		return nil
	}
	what := "all of " + file
	if hunk > 0 {
		what = fmt.Sprintf("hunk %d of %s", hunk, file)
	}
	fmt.Fprintf(stdout, "Reverted %s. This was restore %d. To take it back: phoenix-desktop rewind --undo %s %d\n", what, rec.N, pos[0], rec.N)
	return nil
}
