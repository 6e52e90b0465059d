package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/phoenix-desktop/phoenix/bench"
)

// runBench measures the headline numbers on this machine and prints one table.
func runBench(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var jsonOut, quick bool
	var baselinePath, only string
	fs.BoolVar(&jsonOut, "json", false, "print JSON instead of a table")
	fs.BoolVar(&quick, "quick", false, "take fewer samples (seconds instead of a minute)")
	fs.StringVar(&baselinePath, "baseline", "", "compare with an earlier `bench --json` output (bench/baseline.json is the last release's) and name every row more than 10% worse")
	fs.StringVar(&only, "only", "", "take only the measurements whose name holds this text (\"headless chat\", \"MCP\")")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var baseline []bench.Row
	if baselinePath != "" {
		var err error
		if baseline, err = bench.ReadBaselineFile(baselinePath); err != nil {
			return fmt.Errorf("bench --baseline %s: %w", baselinePath, err)
		}
	}
	// The cold-start and idle rows start this binary again.
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("bench: find the app binary: %w", err)
	}
	rows := bench.Run(context.Background(), bench.Options{Quick: quick, Progress: stderr, App: exe, Only: only})
	write := bench.PrintTable
	if jsonOut {
		write = bench.PrintJSON
	}
	if err := write(stdout, rows); err != nil {
		return err
	}
	for _, r := range rows {
		if r.Err != "" {
			return fmt.Errorf("bench: %s could not be measured: %s", r.Name, r.Err)
		}
	}
	if baselinePath != "" {
		worse := bench.Compare(rows, baseline)
		if len(worse) == 0 {
			fmt.Fprintf(stderr, "bench: no row is more than 10%% worse than %s\n", baselinePath)
			return nil
		}
		fmt.Fprintf(stderr, "bench: %d rows are more than 10%% worse than %s:\n", len(worse), baselinePath)
		for _, w := range worse {
			fmt.Fprintf(stderr, "  %s\n", w)
		}
		return fmt.Errorf("bench: %d rows worse than the baseline", len(worse))
	}
	return nil
}
