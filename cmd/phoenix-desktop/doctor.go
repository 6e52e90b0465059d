package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/phoenix-desktop/phoenix/remote"
	"github.com/phoenix-desktop/phoenix/sandbox"
)

// runDoctor prints which layers of the Restricted sandbox this machine enforces, and why any
// is missing, from the one report the Restricted badge's details also show.
func runDoctor(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	jsonOut := fs.Bool("json", false, "print the report as JSON")
	host := fs.String("remote", "", "report the layers of this SSH host (user@host or a Host of ~/.ssh/config) instead")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("doctor takes no arguments, got %q", fs.Arg(0))
	}
	if *host != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		return remote.Doctor(ctx, remote.Options{Destination: *host}, stdout, *jsonOut)
	}
	layers := sandbox.Describe()
	if *jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(layers)
	}
	_, err := io.WriteString(stdout, layers.String())
	return err
}
