package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/sandbox"
)

// runMCP runs the mcp sub-commands; `mcp list` starts each enabled server as a new
// conversation in --cwd would (Restricted where the sandbox works), lists its tools, and stops
// it again.
func runMCP(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "login" {
		return runMCPLogin(args[1:], os.Stdin, stdout, stderr)
	}
	if len(args) == 0 || args[0] != "list" {
		return errors.New("mcp: the sub-commands are list and login: phoenix-desktop mcp list [--cwd DIR] [--unrestricted] [--mcp-config FILE] [--json], phoenix-desktop mcp login NAME")
	}
	fs := flag.NewFlagSet("mcp list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		common       commonFlags
		cwd          string
		unrestricted bool
		jsonOut      bool
		timeout      time.Duration
	)
	common.registerMCP(fs)
	fs.StringVar(&cwd, "cwd", ".", "working directory whose .mcp.json is considered")
	fs.BoolVar(&unrestricted, "unrestricted", false, "start the servers as an Unrestricted conversation would")
	fs.BoolVar(&jsonOut, "json", false, "print JSON")
	fs.DurationVar(&timeout, "timeout", 2*time.Minute, "give up on the servers after this long")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return fmt.Errorf("mcp list: working directory %s: %w", cwd, err)
	}
	hub, err := common.openMCP()
	if hub == nil {
		if err == nil {
			return errors.New("mcp list: MCP is off (--no-mcp)")
		}
		return fmt.Errorf("mcp list: %w", err)
	}
	if err != nil {
		return fmt.Errorf("mcp list: %w", err)
	}
	servers := actors.NewMCPServers(hub, sandbox.Describe())
	for _, n := range servers.Notes() {
		fmt.Fprintf(stderr, "! %s\n", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	var statuses []actors.MCPStatus
	for _, st := range servers.Statuses(abs) {
		if st.Enabled {
			st = servers.Check(ctx, st.Name, abs, unrestricted)
		}
		// Env values, headers and URL queries hold tokens: shown by name only.
		st.Config = st.Config.Redacted()
		statuses = append(statuses, st)
	}
	offered, err := servers.ProjectServers(abs)
	if err != nil {
		fmt.Fprintf(stderr, "! %s: %v\n", filepath.Join(abs, ".mcp.json"), err)
	}
	for i := range offered {
		offered[i].Config = offered[i].Config.Redacted()
	}
	if jsonOut {
		return json.NewEncoder(stdout).Encode(struct {
			Config     string                    `json:"config"`
			Servers    []actors.MCPStatus        `json:"servers"`
			Offered    []actors.MCPProjectServer `json:"project_servers"`
			Restricted bool                      `json:"restricted"`
		}{servers.ConfigPath(), statuses, offered, servers.Restricted() && !unrestricted})
	}
	mode := "a Restricted"
	if unrestricted || !servers.Restricted() {
		mode = "an Unrestricted"
	}
	where := servers.ConfigPath()
	if where == "" {
		where = common.mcpConfig
	}
	fmt.Fprintf(stdout, "MCP servers of %s, started as %s conversation in %s would:\n", where, mode, abs)
	if len(statuses) == 0 {
		fmt.Fprintln(stdout, "  (none configured)")
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	for _, st := range statuses {
		what := st.Config.Command
		if st.Config.IsURL() {
			what = st.Config.URL
		}
		origin := ""
		if st.Project {
			origin = " (project)"
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\n", st.Name, origin, st.Config.Kind(), st.State, what)
		if st.Error != "" {
			fmt.Fprintf(tw, "\t\terror: %s\n", strings.ReplaceAll(st.Error, "\n", "\n\t\t  "))
		}
		for _, tool := range st.Tools {
			if tool.Skipped != "" {
				fmt.Fprintf(tw, "\t\t%s\tskipped: %s\n", tool.Name, tool.Skipped)
			} else {
				fmt.Fprintf(tw, "\t\t%s\t%s\n", tool.Name, tool.Description)
			}
		}
	}
	tw.Flush()
	for _, p := range offered {
		switch {
		case p.Shadowed:
			fmt.Fprintf(stdout, "%s/.mcp.json offers %s, but your own server of that name is used.\n", abs, p.Name)
		case !p.Allowed:
			fmt.Fprintf(stdout, "%s/.mcp.json offers %s (%s); it does not start until you allow it in Settings, or pass --mcp-config %s.\n",
				abs, p.Name, p.Config.Kind(), filepath.Join(abs, ".mcp.json"))
		}
	}
	return nil
}
