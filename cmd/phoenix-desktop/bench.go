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
	fs.BoolVar(&jsonOut, "json", false, "print JSON instead of a table")
	fs.BoolVar(&quick, "quick", false, "take fewer samples (seconds instead of a minute)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	// The cold-start and idle rows start this binary again.
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("bench: find the app binary: %w", err)
	}
	rows := bench.Run(context.Background(), bench.Options{Quick: quick, Progress: stderr, App: exe})
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
	return nil
}
