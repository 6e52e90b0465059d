package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/phoenix-desktop/phoenix/llm"
	"github.com/phoenix-desktop/phoenix/search"
	"github.com/phoenix-desktop/phoenix/transcript"
)

// searchCatchUp bounds how long search waits for the index to catch up with the store (a
// first build over a long history); after it, the hits found so far are printed with a note.
const searchCatchUp = 2 * time.Minute

// runSearch finds words in every conversation: phoenix-desktop search QUERY [--json].
func runSearch(env *cmdEnv, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		common   commonFlags
		jsonOut  bool
		archived bool
		limit    int
	)
	common.register(fs, false)
	fs.BoolVar(&jsonOut, "json", false, "print the hits as JSON")
	fs.BoolVar(&archived, "archived", false, "search archived conversations too")
	fs.IntVar(&limit, "limit", 20, "show at most this many hits")
	query, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if strings.TrimSpace(query) == "" {
		return errors.New("search: what for? Pass the words to look for: phoenix-desktop search WORDS")
	}
	log := common.logger(stderr)
	store, done, err := env.openStore(&common, log, false)
	if err != nil {
		return err
	}
	defer done()
	idx, doneIdx, err := env.openIndex(store, log)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	defer doneIdx()
	ctx, cancel := context.WithTimeout(context.Background(), searchCatchUp)
	defer cancel()
	_ = idx.WaitSynced(ctx) // on timeout, Result.Indexing says so
	res, err := idx.Search(search.Query{Text: query, IncludeArchived: archived, Limit: limit})
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	if jsonOut {
		if res.Hits == nil {
			res.Hits = []search.Hit{}
		}
		return json.NewEncoder(stdout).Encode(res)
	}
	if res.Indexing {
		fmt.Fprintln(stderr, "phoenix-desktop: the search index is still being built; some matches may be missing")
	}
	if len(res.Hits) == 0 {
		fmt.Fprintf(stdout, "No message holds every word of %q.\n", query)
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tMESSAGE\tTITLE\tLINE")
	for _, h := range res.Hits {
		title := transcript.Title(h.Title, "")
		if h.Archived {
			title += " (archived)"
		}
		fmt.Fprintf(tw, "%s\t#%d %s\t%s\t%s\n", h.ConvID, h.Seq, h.Kind, transcript.OneLine(title, 40), transcript.OneLine(h.Line, 100))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if res.Matches > len(res.Hits) {
		fmt.Fprintf(stdout, "%d of %d matching messages shown (at most three per conversation).\n", len(res.Hits), res.Matches)
	}
	return nil
}

// runDelete deletes a conversation for good: phoenix-desktop delete ID.
func runDelete(env *cmdEnv, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("delete", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var common commonFlags
	common.register(fs, false)
	id, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if id == "" || strings.Contains(id, " ") {
		return errors.New("delete: pass one conversation id (see phoenix-desktop list)")
	}
	// The model is never asked anything here; the offline demo keeps the settings out of it.
	common.demo = true
	a, err := env.open(func() (*session, error) { return openApp(common, llm.Config{}, common.logger(stderr)) })
	if err != nil {
		return err
	}
	defer a.Close()
	snap, err := a.runtime.Snapshot(context.Background(), id)
	if err != nil {
		return fmt.Errorf("delete: %w (see phoenix-desktop list for the ids)", err)
	}
	if err := a.runtime.Delete(context.Background(), id); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Deleted %s “%s” (%d messages, %d sub-agents).\n", id, snap.Conv.Title, len(snap.Messages), len(snap.SubAgents))
	return nil
}

// parseInterleaved parses flags that may come before or after the positional words, and
// returns the words joined by spaces.
func parseInterleaved(fs *flag.FlagSet, args []string) (string, error) {
	var words []string
	for {
		if err := fs.Parse(args); err != nil {
			return "", err
		}
		if fs.NArg() == 0 {
			break
		}
		words = append(words, fs.Arg(0))
		args = fs.Args()[1:]
	}
	return strings.Join(words, " "), nil
}
